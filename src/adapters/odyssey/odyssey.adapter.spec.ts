import { Logger } from '@nestjs/common';
import { FakeServer, adapterConfig, outgoingSms } from '../../../test/support/adapters.factories';
import { FakeOdyssey, startFakeOdyssey } from '../../../test/support/fake-odyssey';
import {
  MISBEHAVIOURS,
  misbehavingAdapters,
  sharedSendOutcomes,
} from '../../../test/support/misbehaving-provider';
import { CallbackRequest } from '../adapter';
import { OdysseyMessagingAdapter } from './odyssey.adapter';

const DATA = FakeOdyssey.data();

function callback(form: Record<string, string>): CallbackRequest {
  return {
    method: 'POST',
    url: '/callback/status/odyssey_messaging/',
    headers: { 'content-type': 'application/json' },
    query: {},
    form,
    rawBody: JSON.stringify(form),
  };
}

describe('OdysseyMessagingAdapter', () => {
  let fake: FakeOdyssey;
  let server: FakeServer;
  let adapter: OdysseyMessagingAdapter;
  let warnings: jest.SpyInstance;

  beforeEach(async () => {
    ({ fake, server } = await startFakeOdyssey());
    adapter = new OdysseyMessagingAdapter(adapterConfig({ ODYSSEY_API_URL: server.url }));
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    warnings.mockRestore();
    await server.close();
  });

  it('is named as RaspiSMS names it, its password secret', () => {
    expect(adapter.descriptor).toMatchObject({
      id: 'odyssey_messaging',
      alias: 'adapters\\OdysseyMessagingAdapter',
      callbackId: 'odyssey_messaging_adapter',
    });
    expect(
      adapter.descriptor.fields.filter((field) => field.secret).map(({ name }) => name),
    ).toEqual(['password']);
  });

  describe('test', () => {
    it('accepts credentials Odyssey accepts, with HTTP Basic authentication', async () => {
      expect(await adapter.test(DATA)).toBeNull();
      expect(fake.calls.map(({ method, path }) => `${method} ${path}`)).toEqual(['GET /JobTypes']);
      expect(fake.calls[0].headers.authorization).toBe(
        `Basic ${Buffer.from(`${FakeOdyssey.LOGIN}:${FakeOdyssey.PASSWORD}`).toString('base64')}`,
      );
    });

    it('reports refused credentials, naming the fields', async () => {
      expect(await adapter.test({ ...DATA, password: 'wrong' })).toBe(
        'Odyssey Messaging refused the credentials (HTTP 401): check login and password.',
      );
    });

    it.each([
      [{ sender: 'AB' }, 'sender must be 3 to 11 letters or digits.'],
      [{ sender: 'ABCDEFGHIJKL' }, 'sender must be 3 to 11 letters or digits.'],
      [{ login: 'a:b' }, 'login cannot hold a colon or a control character.'],
      [{ password: 'a\nb' }, 'password cannot hold a control character.'],
      [{ password: '' }, 'password is required.'],
    ])('refuses %j without calling Odyssey', async (overrides, problem) => {
      expect(await adapter.test({ ...DATA, ...overrides })).toBe(problem);
      expect(fake.calls).toEqual([]);
    });
  });

  describe('checkStatus', () => {
    it('reports an account Odyssey accepts as available, one it refuses as unavailable', async () => {
      expect(await adapter.checkStatus(DATA)).toBe('available');
      expect(await adapter.checkStatus({ ...DATA, password: 'wrong-secret-1' })).toBe(
        'unavailable',
      );
      expect(JSON.stringify(warnings.mock.calls)).not.toContain('wrong-secret-1');
    });
  });

  describe('send', () => {
    it('posts an SMS job to the number with the 00 prefix, its job number as uid', async () => {
      const result = await adapter.send(
        DATA,
        outgoingSms({ destination: '+33612345678', text: 'Hello' }),
      );

      expect(result).toEqual({ outcome: 'sent', uid: '900001' });
      expect(fake.jobs).toEqual([
        {
          JobType: 'SMS',
          Text: 'Hello',
          TrackingID: expect.stringMatching(/^[0-9a-f-]{36}$/),
          AdhocRecipients: [{ Name: '+33612345678', Address: '0033612345678' }],
        },
      ]);
    });

    it('names the sender in the job parameters', async () => {
      await adapter.send({ ...DATA, sender: 'SMSGW' }, outgoingSms());
      expect(fake.jobs[0].Parameter).toEqual({ Sender: 'SMSGW', Media: 1 });
    });

    it("fails for good on a job Odyssey refuses, with Odyssey's reason", async () => {
      fake.reply = () => ({ status: 400, body: { Message: 'Invalid recipient address.' } });
      expect(await adapter.send(DATA, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason:
          'Odyssey Messaging refused the message (HTTP 400: Invalid recipient address): check the message and the adapter data.',
        cause: 'recipient',
      });
    });

    // Odyssey gives no codes: its status says whose a refusal is (docs/adapters.md#refusals).
    it.each<[number, string, 'recipient' | 'phone']>([
      [400, 'Invalid recipient address.', 'recipient'],
      [404, 'Not found.', 'recipient'],
      [422, 'The text is too long.', 'recipient'],
      [401, 'Authorization has been denied for this request.', 'phone'],
      [402, 'Insufficient credit.', 'phone'],
      [403, 'The account is locked.', 'phone'],
    ])('classifies HTTP %i (%s) as the %s refusing', async (status, Message, cause) => {
      fake.reply = () => ({ status, body: { Message } });

      expect(await adapter.send(DATA, outgoingSms())).toMatchObject({
        outcome: 'permanent',
        cause,
      });
    });

    it('fails for good on refused credentials', async () => {
      expect(await adapter.send({ ...DATA, login: 'other' }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: 'Odyssey Messaging refused the credentials (HTTP 401): check login and password.',
        cause: 'phone',
      });
    });

    it('records as of unknown outcome a job Odyssey accepts without a number', async () => {
      fake.reply = () => ({ status: 200, body: {} });
      expect(await adapter.send(DATA, outgoingSms())).toEqual({
        outcome: 'ambiguous',
        reason:
          'Odyssey Messaging accepted the message without giving its job number, so smsgw cannot follow it: check the jobs in the Odyssey account.',
      });
    });
  });

  describe('an Odyssey that misbehaves', () => {
    const { misbehaving } = misbehavingAdapters(
      (url, timeoutMs) =>
        new OdysseyMessagingAdapter(
          adapterConfig({ ODYSSEY_API_URL: url, PROVIDER_TIMEOUT_MS: String(timeoutMs) }),
        ),
    );

    const notJson =
      'Odyssey Messaging answered HTTP 200 with something other than its JSON answer, so the message may have been sent or not: check the jobs in the Odyssey account before sending it again.';
    const sendOutcomes = sharedSendOutcomes('Odyssey Messaging', notJson);

    it.each(MISBEHAVIOURS)('send: %s gives the outcome the shared rules give', async (how) => {
      const broken = await misbehaving(how);
      expect(await broken.adapter.send(DATA, outgoingSms())).toEqual(sendOutcomes[how](broken.url));
    });

    it.each(MISBEHAVIOURS)('test: %s refuses the phone with a sentence', async (how) => {
      const broken = await misbehaving(how);
      expect(await broken.adapter.test(DATA)).toMatch(/Odyssey Messaging|ODYSSEY_API_URL/);
      expect(await broken.adapter.checkStatus(DATA)).toBe('unavailable');
    });
  });

  describe('parseStatusCallback', () => {
    it.each([
      ['S', 'delivered'],
      ['B', 'unknown'],
      ['', 'unknown'],
      ['F', 'failed'],
      ['E', 'failed'],
    ])('reads the item outcome %j as %s', (outcome, status) => {
      expect(
        adapter.parseStatusCallback(
          callback({ EventType: '9', JobNumber: '900001', Outcome: outcome }),
        ),
      ).toEqual({ uid: '900001', status });
    });

    it('ignores other events and a request without a job number', () => {
      expect(
        adapter.parseStatusCallback(
          callback({ EventType: '4', JobNumber: '900001', Outcome: 'S' }),
        ),
      ).toBeNull();
      expect(adapter.parseStatusCallback(callback({ EventType: '9', Outcome: 'S' }))).toBeNull();
    });
  });

  describe('parseReceptionCallback', () => {
    it('reads From, Message and the .NET EventDateTime, in UTC', () => {
      expect(
        adapter.parseReceptionCallback(
          callback({
            EventType: '8',
            From: '0033612345678',
            Message: 'Oui',
            EventDateTime: '/Date(1767268800000+0100)/',
          }),
        ),
      ).toEqual({ origin: '+33612345678', text: 'Oui', at: '2026-01-01 12:00:00' });
    });

    it('takes an unreadable date as now, and ignores other events', () => {
      expect(
        adapter.parseReceptionCallback(
          callback({ EventType: '8', From: '+33612345678', Message: 'Hi', EventDateTime: 'today' }),
        ),
      ).toEqual({ origin: '+33612345678', text: 'Hi', at: null });
      expect(
        adapter.parseReceptionCallback(
          callback({ EventType: '9', From: '+33612345678', Message: 'Hi' }),
        ),
      ).toBeNull();
    });
  });
});
