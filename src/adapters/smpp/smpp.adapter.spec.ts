import { Logger } from '@nestjs/common';
import { AddressInfo } from 'node:net';
import { PDU, Server, Session, createServer, errors } from 'smpp';
import { adapterConfig, closedPort } from '../../../test/support/adapters.factories';
import { SmppAdapter } from './smpp.adapter';

/**
 * An SMSC from the `smpp` package's own server, on 127.0.0.1: it binds `smsgw`/`secret`,
 * refuses other credentials with the status SMPP defines, and answers unbind.
 */
class FakeSmsc {
  mode: 'normal' | 'silent' | 'hang_up' = 'normal';
  readonly commands: string[] = [];
  readonly binds: PDU[] = [];
  readonly server: Server = createServer((session: Session) => {
    session.on('error', () => undefined);
    session.on('bind_transceiver', (pdu: PDU) => {
      this.commands.push(pdu.command);
      this.binds.push(pdu);
      if (this.mode === 'silent') {
        return;
      }
      if (this.mode === 'hang_up') {
        session.close();
        return;
      }
      const status =
        pdu.system_id !== 'smsgw'
          ? errors.ESME_RINVSYSID
          : pdu.password !== 'secret'
            ? errors.ESME_RINVPASWD
            : errors.ESME_ROK;
      session.send(pdu.response({ command_status: status }));
    });
    session.on('unbind', (pdu: PDU) => {
      this.commands.push(pdu.command);
      session.send(pdu.response());
      session.close();
    });
  });

  async start(): Promise<number> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    return (this.server.address() as AddressInfo).port;
  }

  stop(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

describe('SmppAdapter', () => {
  let smsc: FakeSmsc;
  let data: Record<string, string>;
  let warnings: jest.SpyInstance;
  const adapter = new SmppAdapter(adapterConfig());
  const impatient = new SmppAdapter(adapterConfig({ PROVIDER_TIMEOUT_MS: '200' }));

  beforeEach(async () => {
    smsc = new FakeSmsc();
    const port = await smsc.start();
    data = {
      host: '127.0.0.1',
      port: String(port),
      system_id: 'smsgw',
      password: 'secret',
      system_type: 'SMSGW',
      source_addr: '+33612345678',
    };
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    warnings.mockRestore();
    await smsc.stop();
  });

  describe('test', () => {
    it('binds as a transceiver with the credentials, then unbinds', async () => {
      expect(await adapter.test(data)).toBeNull();
      expect(smsc.commands).toEqual(['bind_transceiver', 'unbind']);
      expect(smsc.binds[0]).toMatchObject({
        system_id: 'smsgw',
        password: 'secret',
        system_type: 'SMSGW',
        interface_version: 0x34,
      });
    });

    it('binds without a system_type', async () => {
      const { system_type: _, ...withoutType } = data;

      expect(await adapter.test(withoutType)).toBeNull();
      expect(smsc.binds[0].system_type).toBe('');
    });

    it('names the SMPP status of a refused password', async () => {
      expect(await adapter.test({ ...data, password: 'wrong' })).toBe(
        'The SMSC refused the bind with ESME_RINVPASWD: check system_id, password and system_type.',
      );
    });

    it('names the SMPP status of a refused system_id', async () => {
      expect(await adapter.test({ ...data, system_id: 'nobody' })).toBe(
        'The SMSC refused the bind with ESME_RINVSYSID: check system_id, password and system_type.',
      );
    });

    it('reports an SMSC that hangs up instead of answering the bind', async () => {
      smsc.mode = 'hang_up';

      expect(await adapter.test(data)).toBe(
        `The SMSC at 127.0.0.1:${data.port} closed the connection before answering the bind.`,
      );
    });

    it('gives up on an SMSC that never answers the bind within the provider timeout', async () => {
      smsc.mode = 'silent';

      expect(await impatient.test(data)).toBe(
        `The SMSC at 127.0.0.1:${data.port} did not answer the bind within 200 ms.`,
      );
    });

    it('reports an SMSC it cannot connect to, without throwing', async () => {
      const port = await closedPort();

      expect(await adapter.test({ ...data, port: String(port) })).toBe(
        `Could not reach the SMSC at 127.0.0.1:${port} (connection refused).`,
      );
    });

    it.each(['0', '65536', 'abc', '2775.5', '-1', ' 2775'])(
      'refuses port %p without connecting',
      async (port) => {
        expect(await adapter.test({ ...data, port })).toBe(
          'port must be an integer from 1 to 65535.',
        );
        expect(smsc.commands).toEqual([]);
      },
    );

    it.each([
      ['system_id', 16],
      ['password', 9],
      ['system_type', 13],
      ['source_addr', 21],
    ])('refuses a %s longer than SMPP 3.4 allows', async (name, length) => {
      const max = length - 1;

      expect(await adapter.test({ ...data, [name]: 'x'.repeat(length) })).toBe(
        `${name} must be at most ${max} characters (SMPP 3.4).`,
      );
    });

    it.each(['', '   '])('refuses an empty source_addr %p', async (sourceAddr) => {
      expect(await adapter.test({ ...data, source_addr: sourceAddr })).toBe(
        'source_addr is required.',
      );
    });
  });

  describe('checkStatus', () => {
    it('reports an SMSC that binds as available', async () => {
      expect(await adapter.checkStatus(data)).toBe('available');
    });

    it('reports a refused bind as unavailable, logging no secret', async () => {
      expect(await adapter.checkStatus({ ...data, password: 'wrongpw' })).toBe('unavailable');
      expect(warnings).toHaveBeenCalled();
      expect(JSON.stringify(warnings.mock.calls)).not.toContain('wrongpw');
    });

    it('reports an unreachable SMSC as unavailable', async () => {
      const port = await closedPort();

      expect(await adapter.checkStatus({ ...data, port: String(port) })).toBe('unavailable');
    });

    it('reports an SMSC that never answers as unavailable', async () => {
      smsc.mode = 'silent';

      expect(await impatient.checkStatus(data)).toBe('unavailable');
    });
  });
});
