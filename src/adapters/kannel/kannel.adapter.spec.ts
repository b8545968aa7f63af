import { Logger } from '@nestjs/common';
import { IncomingMessage, ServerResponse } from 'node:http';
import {
  FakeServer,
  adapterConfig,
  closedPort,
  startFakeServer,
  startSilentServer,
} from '../../../test/support/adapters.factories';
import { KannelAdapter } from './kannel.adapter';

const USERNAME = 'smsgw';
const PASSWORD = 'kannel-secret';

/**
 * A Kannel smsbox's sendsms interface as documented: credentials as the `username` and
 * `password` query parameters, 403 when they are wrong, 400 when the receiver is missing.
 */
class FakeKannel {
  failWith: number | null = null;
  readonly seen: URL[] = [];

  readonly handle = (request: IncomingMessage, response: ServerResponse): void => {
    const url = new URL(request.url ?? '/', 'http://kannel');
    this.seen.push(url);
    const answer = (status: number, text: string) => {
      response.writeHead(status, { 'Content-Type': 'text/plain' });
      response.end(text);
    };
    if (this.failWith) {
      answer(this.failWith, 'Internal error');
    } else if (request.method !== 'GET' || url.pathname !== '/cgi-bin/sendsms') {
      answer(404, 'Unknown service');
    } else if (
      url.searchParams.get('username') !== USERNAME ||
      url.searchParams.get('password') !== PASSWORD
    ) {
      answer(403, 'Authorization failed for sendsms');
    } else if (!url.searchParams.get('to')) {
      answer(400, 'Missing receiver number');
    } else {
      answer(202, '0: Accepted for delivery');
    }
  };
}

describe('KannelAdapter', () => {
  let fake: FakeKannel;
  let server: FakeServer;
  let data: Record<string, string>;
  let warnings: jest.SpyInstance;
  const adapter = new KannelAdapter(adapterConfig());
  const impatient = new KannelAdapter(adapterConfig({ PROVIDER_TIMEOUT_MS: '200' }));

  beforeEach(async () => {
    fake = new FakeKannel();
    server = await startFakeServer(fake.handle);
    data = {
      kannel_sendsms_url: `${server.url}/cgi-bin/sendsms`,
      username: USERNAME,
      password: PASSWORD,
      from: '+33612345678',
    };
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    warnings.mockRestore();
    await server.close();
  });

  describe('test', () => {
    it('accepts credentials the smsbox takes, sending no message', async () => {
      expect(await adapter.test(data)).toBeNull();
      expect(fake.seen).toHaveLength(1);
      expect(fake.seen[0].searchParams.has('to')).toBe(false);
    });

    it('keeps the query the sendsms URL already has', async () => {
      expect(
        await adapter.test({ ...data, kannel_sendsms_url: `${data.kannel_sendsms_url}?smsc=a` }),
      ).toBeNull();
      expect(fake.seen[0].searchParams.get('smsc')).toBe('a');
    });

    it('accepts a valid dlr_url', async () => {
      expect(
        await adapter.test({ ...data, dlr_url: 'https://sms.example.org/callback/status' }),
      ).toBeNull();
    });

    it('reports refused credentials', async () => {
      expect(await adapter.test({ ...data, password: 'wrong' })).toBe(
        'Kannel refused the credentials (HTTP 403): check username and password.',
      );
    });

    it('reports a sendsms URL the smsbox does not serve', async () => {
      expect(await adapter.test({ ...data, kannel_sendsms_url: `${server.url}/sendsms` })).toBe(
        `Kannel has no sendsms interface at ${server.url}/sendsms (HTTP 404): check kannel_sendsms_url.`,
      );
    });

    it('reports a failing smsbox', async () => {
      fake.failWith = 500;

      expect(await adapter.test(data)).toBe(
        'Kannel answered HTTP 500: it is failing on its side, try again later.',
      );
    });

    it.each([
      'smsbox:13013/cgi-bin/sendsms',
      'ftp://smsbox/cgi-bin/sendsms',
      'not a url',
      'http://user:pass@127.0.0.1/cgi-bin/sendsms',
    ])('refuses kannel_sendsms_url %p without calling it', async (url) => {
      expect(await adapter.test({ ...data, kannel_sendsms_url: url })).toBe(
        'kannel_sendsms_url must be an http(s) URL such as http://smsbox.example.org:13013/cgi-bin/sendsms, without credentials in it.',
      );
      expect(fake.seen).toHaveLength(0);
    });

    it.each(['callback', 'javascript:alert(1)'])('refuses dlr_url %p', async (url) => {
      expect(await adapter.test({ ...data, dlr_url: url })).toBe('dlr_url must be an http(s) URL.');
    });

    it('reports a smsbox it cannot connect to, without the credentials', async () => {
      const port = await closedPort();
      const url = `http://127.0.0.1:${port}/cgi-bin/sendsms`;

      expect(await adapter.test({ ...data, kannel_sendsms_url: url })).toBe(
        `Could not reach Kannel at ${url} (connection refused).`,
      );
    });

    it('gives up on a smsbox that never answers within the provider timeout', async () => {
      const silent = await startSilentServer();
      const url = `${silent.url}/cgi-bin/sendsms`;

      try {
        expect(await impatient.test({ ...data, kannel_sendsms_url: url })).toBe(
          `Could not reach Kannel at ${url} within 200 ms.`,
        );
      } finally {
        await silent.close();
      }
    });

    it('names a missing required field', async () => {
      expect(await adapter.test({ ...data, from: '' })).toBe('from is required.');
    });
  });

  describe('checkStatus', () => {
    it('reports a smsbox that takes the credentials as available', async () => {
      expect(await adapter.checkStatus(data)).toBe('available');
    });

    it('reports an unreachable smsbox as unavailable, logging no secret', async () => {
      const port = await closedPort();

      expect(
        await adapter.checkStatus({
          ...data,
          kannel_sendsms_url: `http://127.0.0.1:${port}/cgi-bin/sendsms`,
        }),
      ).toBe('unavailable');
      expect(warnings).toHaveBeenCalled();
      expect(JSON.stringify(warnings.mock.calls)).not.toContain(PASSWORD);
    });

    it('reports a failing smsbox as unavailable', async () => {
      fake.failWith = 503;

      expect(await adapter.checkStatus(data)).toBe('unavailable');
    });

    it('reports refused credentials as unavailable', async () => {
      expect(await adapter.checkStatus({ ...data, password: 'wrong' })).toBe('unavailable');
    });
  });
});
