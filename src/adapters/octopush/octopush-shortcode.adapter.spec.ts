import { Logger } from '@nestjs/common';
import {
  FakeServer,
  adapterConfig,
  outgoingSms,
  startSilentServer,
} from '../../../test/support/adapters.factories';
import { FakeOctopush, startFakeOctopush } from '../../../test/support/fake-octopush';
import {
  MISBEHAVIOURS,
  misbehavingAdapters,
  sharedSendOutcomes,
} from '../../../test/support/misbehaving-provider';
import { CallbackRequest } from '../adapter';
import { OctopushShortcodeAdapter } from './octopush-shortcode.adapter';

const DATA = FakeOctopush.data();

function callback(form: Record<string, string>): CallbackRequest {
  return {
    method: 'POST',
    url: '/callback/status/octopush_shortcode/',
    headers: { 'content-type': 'application/json' },
    query: {},
    form,
    rawBody: JSON.stringify(form),
  };
}

describe('OctopushShortcodeAdapter', () => {
  let fake: FakeOctopush;
  let server: FakeServer;
  let adapter: OctopushShortcodeAdapter;
  let warnings: jest.SpyInstance;

  beforeEach(async () => {
    ({ fake, server } = await startFakeOctopush());
    adapter = new OctopushShortcodeAdapter(adapterConfig({ OCTOPUSH_API_URL: server.url }));
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    warnings.mockRestore();
    await server.close();
  });

  it('is named as RaspiSMS names it, its credentials secret', () => {
    expect(adapter.descriptor).toMatchObject({
      id: 'octopush_shortcode',
      alias: 'adapters\\OctopushShortcodeAdapter',
      callbackId: 'octopush_shortcode_adapter',
    });
    expect(
      adapter.descriptor.fields.filter((field) => field.secret).map(({ name }) => name),
    ).toEqual(['api_key']);
  });

  describe('test', () => {
    it('accepts credentials Octopush accepts, checking the balance with them', async () => {
      expect(await adapter.test(DATA)).toBeNull();
      expect(fake.calls.map(({ method, path }) => `${method} ${path}`)).toEqual([
        'GET /wallet/check-balance',
      ]);
      expect(fake.calls[0].headers).toMatchObject({
        'api-login': FakeOctopush.LOGIN,
        'api-key': FakeOctopush.API_KEY,
      });
    });

    it("reports refused credentials with Octopush's reason, naming the fields", async () => {
      expect(await adapter.test({ ...DATA, api_key: 'wrong' })).toBe(
        'Octopush refused the credentials (HTTP 401: Invalid api-login or api-key (code 101)): check login and api_key.',
      );
    });

    it.each([
      [{ sms_type: 'cheap' }, 'sms_type must be "low cost" or "premium".'],
      [{ sender: 'AB' }, 'sender must be 3 to 11 letters or digits.'],
      [{ sender: 'ABCDEFGHIJKL' }, 'sender must be 3 to 11 letters or digits.'],
      [{ sender: 'Bad sender' }, 'sender must be 3 to 11 letters or digits.'],
      [
        { api_key: 'with space' },
        'api_key must be made of letters, digits and symbols, without spaces.',
      ],
      [{ login: '' }, 'login is required.'],
    ])('refuses %j without calling Octopush', async (overrides, problem) => {
      expect(await adapter.test({ ...DATA, ...overrides })).toBe(problem);
      expect(fake.calls).toEqual([]);
    });

    it.each(['low cost', 'premium', 'Premium', 'sms_premium', ''])(
      'accepts the sms_type %j',
      async (smsType) => {
        expect(await adapter.test({ ...DATA, sms_type: smsType })).toBeNull();
      },
    );

    it('accepts a sender of 3 and of 11 characters', async () => {
      expect(await adapter.test({ ...DATA, sender: 'ABC' })).toBeNull();
      expect(await adapter.test({ ...DATA, sender: 'ABCDEFGHIJK' })).toBeNull();
    });
  });

  describe('checkStatus', () => {
    it('reports an account with credit as available', async () => {
      expect(await adapter.checkStatus(DATA)).toBe('available');
    });

    it('reports an account without credit as no_credit', async () => {
      fake.balance = 0;
      expect(await adapter.checkStatus(DATA)).toBe('no_credit');
    });

    it('reports refused credentials as unavailable, logging no secret', async () => {
      expect(await adapter.checkStatus({ ...DATA, api_key: 'wrong-key-secret' })).toBe(
        'unavailable',
      );
      expect(JSON.stringify(warnings.mock.calls)).not.toContain('wrong-key-secret');
    });
  });

  describe('send', () => {
    it('sends an alert campaign from a short code that can be answered, its ticket as uid', async () => {
      const result = await adapter.send(
        DATA,
        outgoingSms({ destination: '+33612345678', text: 'Hello' }),
      );

      expect(result).toEqual({ outcome: 'sent', uid: 'sms_0000000000001' });
      expect(fake.campaigns).toEqual([
        {
          text: 'Hello',
          recipients: [{ phone_number: '+33612345678' }],
          type: 'sms_low_cost',
          purpose: 'alert',
          with_replies: true,
        },
      ]);
      expect(fake.calls[0].headers['content-type']).toBe('application/json');
    });

    it('sends from the sender name, premium, without asking for answers', async () => {
      await adapter.send({ ...DATA, sender: 'SMSGW', sms_type: 'premium' }, outgoingSms());

      expect(fake.campaigns[0]).toMatchObject({ type: 'sms_premium', sender: 'SMSGW' });
      expect(fake.campaigns[0]).not.toHaveProperty('with_replies');
    });

    it("fails for good on a campaign Octopush refuses, with Octopush's reason", async () => {
      expect(await adapter.send(DATA, outgoingSms({ destination: '0612345678' }))).toEqual({
        outcome: 'permanent',
        reason:
          'Octopush refused the message (HTTP 400: recipients must hold phone numbers in international format (code 105)): check the message and the adapter data.',
        cause: 'recipient',
      });
    });

    it('fails for good without credit, saying so', async () => {
      fake.balance = 0;
      expect(await adapter.send(DATA, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason:
          'Octopush refused the message (HTTP 400: Not enough credit (code 113)): check the message and the adapter data.',
        cause: 'phone',
      });
    });

    // Each refusal of a campaign, and whose it is (docs/adapters.md#refusals).
    it.each<[number, number, string, 'recipient' | 'phone']>([
      [400, 104, 'text must be 1 to 1224 characters', 'recipient'],
      [400, 105, 'recipients must hold phone numbers in international format', 'recipient'],
      [400, 108, 'sender must be 3 to 11 letters or digits', 'phone'],
      [400, 113, 'Not enough credit', 'phone'],
      [401, 100, 'api-login and api-key headers are required', 'phone'],
      [403, 101, 'Invalid api-login or api-key', 'phone'],
      [402, 199, 'Payment required', 'phone'],
      [422, 199, 'Unprocessable campaign', 'recipient'],
    ])(
      'classifies HTTP %i code %i (%s) as the %s refusing',
      async (status, code, message, cause) => {
        fake.reply = () => ({ status, body: { code, message } });

        expect(await adapter.send(DATA, outgoingSms())).toMatchObject({
          outcome: 'permanent',
          cause,
        });
      },
    );

    it('fails for good on refused credentials', async () => {
      expect(await adapter.send({ ...DATA, login: 'other@example.com' }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason:
          'Octopush refused the credentials (HTTP 401: Invalid api-login or api-key (code 101)): check login and api_key.',
        cause: 'phone',
      });
    });

    it('records as of unknown outcome a campaign Octopush accepts without a ticket', async () => {
      fake.reply = () => ({ status: 200, body: { number_of_contacts: 1 } });
      expect(await adapter.send(DATA, outgoingSms())).toEqual({
        outcome: 'ambiguous',
        reason:
          'Octopush accepted the message without giving its ticket, so smsgw cannot follow it: check the campaigns in the Octopush account.',
      });
    });

    it('fails for good on invalid data, without calling Octopush', async () => {
      expect(await adapter.send({ ...DATA, sender: 'AB' }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: 'sender must be 3 to 11 letters or digits.',
        cause: 'phone',
      });
      expect(fake.calls).toEqual([]);
    });
  });

  describe('an Octopush that misbehaves', () => {
    const { servers, misbehaving } = misbehavingAdapters(
      (url, timeoutMs) =>
        new OctopushShortcodeAdapter(
          adapterConfig({ OCTOPUSH_API_URL: url, PROVIDER_TIMEOUT_MS: String(timeoutMs) }),
        ),
    );

    const notJson = (status: number) =>
      `Octopush answered HTTP ${status} with something other than its JSON answer, so the message may have been sent or not: check the campaigns in the Octopush account before sending it again.`;
    const sendOutcomes = sharedSendOutcomes('Octopush', notJson(200));

    it.each(MISBEHAVIOURS)('send: %s gives the outcome the shared rules give', async (how) => {
      const broken = await misbehaving(how);
      expect(await broken.adapter.send(DATA, outgoingSms())).toEqual(sendOutcomes[how](broken.url));
    });

    it.each(MISBEHAVIOURS)('test: %s refuses the phone with a sentence', async (how) => {
      const broken = await misbehaving(how);
      const problem = await broken.adapter.test(DATA);
      expect(typeof problem).toBe('string');
      expect(problem).toMatch(/Octopush|OCTOPUSH_API_URL/);
    });

    it.each(MISBEHAVIOURS)('checkStatus: %s is unavailable', async (how) => {
      const broken = await misbehaving(how);
      expect(await broken.adapter.checkStatus(DATA)).toBe('unavailable');
    });

    it('gives up on an Octopush that never answers, within the provider timeout', async () => {
      const silent = await startSilentServer();
      servers.push(silent);
      const hanging = new OctopushShortcodeAdapter(
        adapterConfig({ OCTOPUSH_API_URL: silent.url, PROVIDER_TIMEOUT_MS: '200' }),
      );
      const started = Date.now();
      expect(await hanging.test(DATA)).toBe(
        `Could not reach Octopush at ${silent.url} within 200 ms.`,
      );
      expect(Date.now() - started).toBeLessThan(2000);
    });
  });

  describe('parseStatusCallback', () => {
    it.each([
      ['DELIVERED', 'delivered'],
      ['NOT_DELIVERED', 'failed'],
      ['NOT_ALLOWED', 'failed'],
      ['BLACKLISTED_NUMBER', 'failed'],
      ['UNKNOWN_DELIVERY', 'unknown'],
      ['', 'unknown'],
    ])('reads the status %j as %s', (state, status) => {
      expect(
        adapter.parseStatusCallback(callback({ message_id: 'sms_0000000000001', status: state })),
      ).toEqual({ uid: 'sms_0000000000001', status });
    });

    it('ignores a request without message_id', () => {
      expect(adapter.parseStatusCallback(callback({ status: 'DELIVERED' }))).toBeNull();
    });
  });

  describe('parseReceptionCallback', () => {
    it('reads the number, text and reception date, Paris time without an offset', () => {
      expect(
        adapter.parseReceptionCallback(
          callback({ number: '+33612345678', text: 'Yes', reception_date: '2026-07-01 12:00:00' }),
        ),
      ).toEqual({ origin: '+33612345678', text: 'Yes', at: '2026-07-01 10:00:00' });
    });

    it('reads a number with the 00 prefix and an ISO date with its offset', () => {
      expect(
        adapter.parseReceptionCallback(
          callback({
            number: '0033612345678',
            text: 'Yes',
            reception_date: '2026-01-01T12:00:00+01:00',
          }),
        ),
      ).toEqual({ origin: '+33612345678', text: 'Yes', at: '2026-01-01 11:00:00' });
    });

    it('takes an unreadable date as now, and ignores a request without number or text', () => {
      expect(
        adapter.parseReceptionCallback(
          callback({ number: '+33612345678', text: 'Hi', reception_date: 'x' }),
        ),
      ).toEqual({ origin: '+33612345678', text: 'Hi', at: null });
      expect(adapter.parseReceptionCallback(callback({ text: 'Hi' }))).toBeNull();
      expect(adapter.parseReceptionCallback(callback({ number: '+33612345678' }))).toBeNull();
    });
  });
});
