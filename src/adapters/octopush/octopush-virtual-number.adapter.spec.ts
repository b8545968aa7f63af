import { Logger } from '@nestjs/common';
import { FakeServer, adapterConfig, outgoingSms } from '../../../test/support/adapters.factories';
import { FakeOctopush, startFakeOctopush } from '../../../test/support/fake-octopush';
import {
  MISBEHAVIOURS,
  Misbehaviour,
  startMisbehavingServer,
  timeoutFor,
} from '../../../test/support/misbehaving-provider';
import { OctopushVirtualNumberAdapter } from './octopush-virtual-number.adapter';

const DATA = FakeOctopush.data({ number: '+33611000001' });

describe('OctopushVirtualNumberAdapter', () => {
  let fake: FakeOctopush;
  let server: FakeServer;
  let adapter: OctopushVirtualNumberAdapter;
  let warnings: jest.SpyInstance;

  beforeEach(async () => {
    ({ fake, server } = await startFakeOctopush());
    adapter = new OctopushVirtualNumberAdapter(adapterConfig({ OCTOPUSH_API_URL: server.url }));
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    warnings.mockRestore();
    await server.close();
  });

  it('is named as RaspiSMS names it, its number a phone number field', () => {
    expect(adapter.descriptor).toMatchObject({
      id: 'octopush_virtual_number',
      alias: 'adapters\\OctopushVirtualNumberAdapter',
      callbackId: 'octopush_virtual_number_adapter',
    });
    expect(adapter.descriptor.fields.find(({ name }) => name === 'number')).toMatchObject({
      required: true,
      number: true,
    });
  });

  describe('test', () => {
    it('accepts credentials Octopush accepts', async () => {
      expect(await adapter.test(DATA)).toBeNull();
      expect(fake.calls.map(({ method, path }) => `${method} ${path}`)).toEqual([
        'GET /wallet/check-balance',
      ]);
    });

    it('names a missing number without calling Octopush', async () => {
      expect(await adapter.test(FakeOctopush.data())).toBe('number is required.');
      expect(fake.calls).toEqual([]);
    });

    it('reports refused credentials', async () => {
      expect(await adapter.test({ ...DATA, login: 'someone@example.com' })).toBe(
        'Octopush refused the credentials (HTTP 401: Invalid api-login or api-key (code 101)): check login and api_key.',
      );
    });
  });

  describe('send', () => {
    it('sends from the virtual number, asking for answers', async () => {
      const result = await adapter.send(
        DATA,
        outgoingSms({ destination: '+33612345678', text: 'Héllo €' }),
      );

      expect(result).toEqual({ outcome: 'sent', uid: 'sms_0000000000001' });
      expect(fake.campaigns).toEqual([
        {
          text: 'Héllo €',
          recipients: [{ phone_number: '+33612345678' }],
          type: 'sms_low_cost',
          purpose: 'alert',
          sender: '+33611000001',
          with_replies: true,
        },
      ]);
    });

    it('fails for good without a number, without calling Octopush', async () => {
      expect(await adapter.send(FakeOctopush.data(), outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: 'number is required.',
        cause: 'phone',
      });
      expect(fake.calls).toEqual([]);
    });

    const servers: FakeServer[] = [];
    afterEach(async () => {
      await Promise.all(servers.splice(0).map((broken) => broken.close()));
    });

    it.each(MISBEHAVIOURS)(
      'never throws when Octopush misbehaves: %s',
      async (how: Misbehaviour) => {
        const broken = await startMisbehavingServer(how);
        servers.push(broken);
        const result = await new OctopushVirtualNumberAdapter(
          adapterConfig({
            OCTOPUSH_API_URL: broken.url,
            PROVIDER_TIMEOUT_MS: String(timeoutFor(how)),
          }),
        ).send(DATA, outgoingSms());
        expect(result.outcome).toBe(
          ['html-page', 'invalid-json', 'huge-body', 'hang', 'reset-mid-response'].includes(how)
            ? 'ambiguous'
            : 'transient',
        );
      },
    );
  });

  it('reads receipts and answers as the short code adapter does', () => {
    const request = {
      method: 'POST',
      url: '/callback/reception/octopush_virtual_number/1/',
      headers: {},
      query: {},
      form: { number: '+33612345678', text: 'Stop', reception_date: '2026-01-15 09:30:00' },
      rawBody: '',
    };
    expect(adapter.parseReceptionCallback(request)).toEqual({
      origin: '+33612345678',
      text: 'Stop',
      at: '2026-01-15 08:30:00',
    });
    expect(
      adapter.parseStatusCallback({
        ...request,
        form: { message_id: 'sms_1', status: 'DELIVERED' },
      }),
    ).toEqual({ uid: 'sms_1', status: 'delivered' });
  });
});
