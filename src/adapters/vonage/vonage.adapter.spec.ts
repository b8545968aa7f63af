import { MAY_HAVE_BEEN_SENT } from '../provider-http';
import { createHash, createHmac } from 'node:crypto';
import { adapterConfig, outgoingSms } from '../../../test/support/adapters.factories';
import { FakeVonage, startFakeVonage } from '../../../test/support/fake-vonage';
import { CallbackRequest, OutgoingSms } from '../adapter';
import { VonageAdapter } from './vonage.adapter';
import {
  describeProviderTrouble,
  itAsksForStatusesAtThePhoneUrl,
  useFakeProvider,
} from '../../../test/support/provider-trouble';

const DATA = FakeVonage.data();
const SIGNATURE_SECRET = 'the-signature-secret';

const sms = (overrides: Partial<OutgoingSms> = {}): OutgoingSms =>
  outgoingSms({ destination: '+33655555555', text: 'Hello there', ...overrides });

const callback = (overrides: Partial<CallbackRequest> = {}): CallbackRequest => ({
  method: 'POST',
  url: 'https://sms.example.org/callback/status/vonage/?api_key=k',
  headers: {},
  query: { api_key: 'k' },
  form: {},
  rawBody: '',
  ...overrides,
});

/** Vonage's `sig` as its signing docs describe it, written apart from the adapter's. */
function sign(params: Record<string, string>, secret: string, method = 'md5hash'): string {
  let text = '';
  for (const name of Object.keys(params).sort()) {
    text += `&${name}=${params[name].split('&').join('_').split('=').join('_')}`;
  }
  return method === 'md5hash'
    ? createHash('md5')
        .update(text + secret)
        .digest('hex')
    : createHmac(method, secret).update(text).digest('hex').toUpperCase();
}

const RECEIPT = {
  msisdn: '33655555555',
  to: FakeVonage.SENDER,
  'network-code': '23410',
  messageId: '0A00000000000001',
  price: '0.03330000',
  status: 'delivered',
  scts: '2001011400',
  'err-code': '0',
  'api-key': FakeVonage.API_KEY,
  'message-timestamp': '2026-11-24 12:00:00',
};

const INBOUND = {
  msisdn: '33687654321',
  to: FakeVonage.SENDER,
  messageId: '0B00000000000002',
  text: 'Hi & welcome = yes',
  type: 'text',
  keyword: 'HI',
  'api-key': FakeVonage.API_KEY,
  'message-timestamp': '2026-11-24 11:59:58',
};

describe('VonageAdapter', () => {
  const vonage = useFakeProvider(
    'Vonage',
    DATA,
    startFakeVonage,
    (url, env) => new VonageAdapter(adapterConfig({ VONAGE_API_URL: url, ...env })),
  );

  describeProviderTrouble(vonage, {
    offline: ', without the credentials',
    statusKinds: ['html', 'invalid-json', 'hang'],
    sms,
    unreadable:
      'Vonage answered HTTP 200 without a list of messages: check the message in the Vonage dashboard before sending it again.',
  });

  describe('test', () => {
    it('accepts credentials Vonage takes', async () => {
      expect(await vonage.adapter.test(DATA)).toBeNull();
    });

    it.each(['Acme Shop', '36700'])('accepts the sender %s', async (from) => {
      expect(await vonage.adapter.test({ ...DATA, from })).toBeNull();
    });

    it('reports refused credentials, naming the fields to check', async () => {
      expect(await vonage.adapter.test({ ...DATA, api_secret: 'wrong' })).toBe(
        'Vonage refused the credentials (HTTP 401): check api_key and api_secret.',
      );
    });

    it('refuses a sender Vonage cannot send from, before calling it', async () => {
      vonage.fake.failWith = 500;

      expect(await vonage.adapter.test({ ...DATA, from: 'Far too long a sender' })).toEqual({
        field: 'from',
        reason:
          'must be a phone number in international format, a short code, or up to 11 letters, digits and spaces.',
      });
    });

    it('refuses a signature method Vonage does not have', async () => {
      expect(await vonage.adapter.test({ ...DATA, signature_method: 'sha3' })).toEqual({
        field: 'signature_method',
        reason: 'must be one of md5hash, md5, sha1, sha256, sha512.',
      });
    });

    it('names a missing required field before calling Vonage', async () => {
      vonage.fake.failWith = 500;

      expect(await vonage.adapter.test({ api_key: FakeVonage.API_KEY, from: 'Acme' })).toBe(
        'api_secret is required.',
      );
    });
  });

  describe('checkStatus', () => {
    it('reports an account with credit as available', async () => {
      expect(await vonage.adapter.checkStatus(DATA)).toBe('available');
    });

    it('reports an empty balance as no credit, unless it reloads itself', async () => {
      vonage.fake.balance = 0;
      const empty = await vonage.adapter.checkStatus(DATA);
      vonage.fake.autoReload = true;

      expect([empty, await vonage.adapter.checkStatus(DATA)]).toEqual(['no_credit', 'available']);
    });

    it('reports refused credentials as unavailable, logging no secret', async () => {
      expect(await vonage.adapter.checkStatus({ ...DATA, api_secret: 'wrong-secret' })).toBe(
        'unavailable',
      );
      expect(JSON.stringify(vonage.warnings.mock.calls)).not.toMatch(/wrong-secret|Secret0123/);
    });
  });

  describe('send', () => {
    it('posts the credentials, sender and destination without +, and gives the message-id', async () => {
      const data = { ...DATA, status_change_callback: 'https://sms.example.org/cb' };

      expect(await vonage.adapter.send(data, sms())).toEqual({
        outcome: 'sent',
        uid: '000000000A000001',
      });
      expect(vonage.fake.sent).toEqual([
        {
          api_key: FakeVonage.API_KEY,
          api_secret: FakeVonage.API_SECRET,
          from: FakeVonage.SENDER,
          to: '33655555555',
          text: 'Hello there',
          callback: 'https://sms.example.org/cb',
        },
      ]);
    });

    it.each([
      [299, '299000'],
      [5, '20000'],
      [900_000, '604800000'],
    ])(
      'passes %p seconds of validity left as a ttl of %p ms, within 20 s to 7 days',
      async (seconds, ttl) => {
        await vonage.adapter.send(DATA, sms({ validitySeconds: seconds }));

        expect(vonage.fake.sent[0].ttl).toBe(ttl);
      },
    );

    it('sends no ttl for a message without validity', async () => {
      await vonage.adapter.send(DATA, sms({ validitySeconds: null }));

      expect(vonage.fake.sent[0]).not.toHaveProperty('ttl');
    });

    itAsksForStatusesAtThePhoneUrl(vonage, sms, () =>
      vonage.fake.sent.map((form) => form.callback),
    );

    it('sends text outside GSM-7 as unicode and a flash message as class 0', async () => {
      await vonage.adapter.send(DATA, sms({ text: 'Ça va ? 日本', flash: true }));

      expect(vonage.fake.sent[0]).toMatchObject({
        text: 'Ça va ? 日本',
        type: 'unicode',
        'message-class': '0',
      });
    });

    it('gives the first part id of a long message', async () => {
      expect(await vonage.adapter.send(DATA, sms({ text: 'x'.repeat(400) }))).toEqual({
        outcome: 'sent',
        uid: '000000000A000001',
      });
    });

    it('retries later a throttled message (status 1)', async () => {
      vonage.fake.sendStatuses.push('1');

      expect(await vonage.adapter.send(DATA, sms())).toEqual({
        outcome: 'transient',
        reason:
          'Vonage could not take the message now (status 1: Throughput Rate Exceeded - please wait [ 1000 ] and retry): try again later.',
      });
    });

    it('retries later an internal error of Vonage (status 5)', async () => {
      vonage.fake.sendStatuses.push('5');

      expect((await vonage.adapter.send(DATA, sms())).outcome).toBe('transient');
    });

    it('refuses for good wrong credentials (status 4)', async () => {
      expect(await vonage.adapter.send({ ...DATA, api_secret: 'wrong' }, sms())).toEqual({
        outcome: 'permanent',
        reason:
          'Vonage refused the message (status 4: Bad Credentials): check api_key and api_secret.',
        cause: 'phone',
      });
    });

    it('refuses for good an invalid destination, quoting Vonage', async () => {
      expect(await vonage.adapter.send(DATA, sms({ destination: '+12' }))).toEqual({
        outcome: 'permanent',
        reason: 'Vonage refused the message (status 3: Invalid to param).',
        cause: 'recipient',
      });
    });

    it('refuses for good a sender of another account', async () => {
      expect(await vonage.adapter.send({ ...DATA, from: '+33699999999' }, sms())).toEqual({
        outcome: 'permanent',
        reason:
          'Vonage refused the message (status 15: Illegal Sender Address - rejected): check from: Vonage does not accept it as a sender.',
        cause: 'phone',
      });
    });

    it('refuses for good when the balance is too low', async () => {
      vonage.fake.balance = 0;

      expect(await vonage.adapter.send(DATA, sms())).toEqual({
        outcome: 'permanent',
        reason:
          "Vonage refused the message (status 9: Partner quota exceeded): the Vonage account's balance is too low.",
        cause: 'phone',
      });
    });

    it('refuses for good, without calling Vonage, when a required field is missing', async () => {
      expect(await vonage.adapter.send({ ...DATA, api_key: '' }, sms())).toEqual({
        outcome: 'permanent',
        reason: 'api_key is required.',
        cause: 'phone',
      });
      expect(vonage.fake.sent).toHaveLength(0);
    });

    // Each refusal status Vonage documents, and whose it is (docs/adapters.md#refusals).
    it.each<[string, 'recipient' | 'phone']>([
      ['2', 'phone'],
      ['3', 'recipient'],
      ['4', 'phone'],
      ['6', 'recipient'],
      ['7', 'recipient'],
      ['8', 'phone'],
      ['9', 'phone'],
      ['11', 'phone'],
      ['12', 'recipient'],
      ['14', 'phone'],
      ['15', 'phone'],
      ['22', 'recipient'],
      ['23', 'phone'],
      ['29', 'phone'],
      ['32', 'phone'],
      ['33', 'recipient'],
    ])('classifies status %s as the %s refusing', async (status, cause) => {
      vonage.fake.sendStatuses.push(status);

      expect(await vonage.adapter.send(DATA, sms())).toMatchObject({ outcome: 'permanent', cause });
    });

    it.each([
      [429, 'Vonage answered HTTP 429 (too many requests): try again later.'],
      [503, 'Vonage answered HTTP 503: it is failing on its side, try again later.'],
    ])('retries later on HTTP %i', async (status, reason) => {
      vonage.fake.failWith = status;

      expect(await vonage.adapter.send(DATA, sms())).toEqual({ outcome: 'transient', reason });
    });

    it('fails for good on HTTP 500, and does not send again an HTML page with HTTP 502', async () => {
      vonage.fake.failWith = 500;
      const failing = await vonage.adapter.send(DATA, sms());
      vonage.fake.failWith = null;
      vonage.fake.misbehaviour = { kind: 'html', status: 502 };

      expect([failing.outcome, await vonage.adapter.send(DATA, sms())]).toEqual([
        'permanent',
        {
          outcome: 'ambiguous',
          reason: `Vonage answered HTTP 502: it is failing on its side, try again later. ${MAY_HAVE_BEEN_SENT}`,
        },
      ]);
    });
  });

  describe('parseStatusCallback', () => {
    it.each([
      ['delivered', 'delivered'],
      ['expired', 'failed'],
      ['failed', 'failed'],
      ['rejected', 'failed'],
      ['accepted', 'unknown'],
      ['buffered', 'unknown'],
      ['unknown', 'unknown'],
    ])('reads status %s as %s', (reported, status) => {
      expect(
        vonage.adapter.parseStatusCallback(callback({ form: { ...RECEIPT, status: reported } })),
      ).toEqual({
        uid: RECEIPT.messageId,
        status,
      });
    });

    it('reads a receipt given in the query of a GET', () => {
      const query = { api_key: 'k', ...RECEIPT };

      expect(vonage.adapter.parseStatusCallback(callback({ method: 'GET', query }))).toEqual({
        uid: RECEIPT.messageId,
        status: 'delivered',
      });
    });

    it('ignores what is not a receipt', () => {
      expect(vonage.adapter.parseStatusCallback(callback({ form: INBOUND }))).toBeNull();
    });
  });

  describe('parseReceptionCallback', () => {
    it('reads the sender, text and time of an inbound message', () => {
      expect(vonage.adapter.parseReceptionCallback(callback({ form: INBOUND }))).toEqual({
        origin: '+33687654321',
        text: 'Hi & welcome = yes',
        at: '2026-11-24 11:59:58',
      });
    });

    it('keeps a sender that is not a number as Vonage gave it, received now without a time', () => {
      const form = { ...INBOUND, msisdn: 'ACME', 'message-timestamp': 'yesterday' };

      expect(vonage.adapter.parseReceptionCallback(callback({ form }))).toEqual({
        origin: 'ACME',
        text: INBOUND.text,
        at: null,
      });
    });

    it('ignores a delivery receipt', () => {
      expect(vonage.adapter.parseReceptionCallback(callback({ form: RECEIPT }))).toBeNull();
    });
  });

  describe('verifyCallback', () => {
    const signed = { ...DATA, signature_secret: SIGNATURE_SECRET };
    const signedForm = (method = 'md5hash') => {
      const params = { ...INBOUND, timestamp: '1764000000', nonce: 'b7c9e2a1' };
      return { ...params, sig: sign(params, SIGNATURE_SECRET, method) };
    };

    it("checks Vonage's published md5hash example", () => {
      const form = {
        a: '1',
        b: '2',
        timestamp: '1461605396',
        sig: '6af838ef94998832dbfc29020b564830',
      };

      expect(
        vonage.adapter.verifyCallback(callback({ form }), { ...DATA, signature_secret: 'secret' }),
      ).toBe(true);
    });

    it('accepts a form signed with md5hash, the default method', () => {
      expect(vonage.adapter.verifyCallback(callback({ form: signedForm() }), signed)).toBe(true);
    });

    it.each(['md5', 'sha1', 'sha256', 'sha512'])(
      'accepts a form signed with HMAC-%s, in either case of hex',
      (method) => {
        const data = { ...signed, signature_method: method };

        expect(vonage.adapter.verifyCallback(callback({ form: signedForm(method) }), data)).toBe(
          true,
        );
      },
    );

    it('accepts a GET whose signed parameters sit in the query beside smsgw api_key', () => {
      const query = { api_key: 'k', ...signedForm() };

      expect(vonage.adapter.verifyCallback(callback({ method: 'GET', query }), signed)).toBe(true);
    });

    it('rejects a tampered parameter', () => {
      const form = { ...signedForm(), text: 'Send me your password' };

      expect(vonage.adapter.verifyCallback(callback({ form }), signed)).toBe(false);
    });

    it('rejects a callback without sig when the phone has a signature secret', () => {
      const { sig: _sig, ...form } = signedForm();

      expect(vonage.adapter.verifyCallback(callback({ form }), signed)).toBe(false);
    });

    it('rejects a signature made with another method or secret', () => {
      const form = signedForm();

      expect(
        vonage.adapter.verifyCallback(callback({ form }), {
          ...signed,
          signature_method: 'sha256',
        }),
      ).toBe(false);
      expect(
        vonage.adapter.verifyCallback(callback({ form }), { ...signed, signature_secret: 'other' }),
      ).toBe(false);
    });

    it('takes unsigned callbacks for a phone without a signature secret', () => {
      expect(vonage.adapter.verifyCallback(callback({ form: INBOUND }), DATA)).toBe(true);
    });
  });
});
