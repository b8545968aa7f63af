import { MAY_HAVE_BEEN_SENT } from '../provider-http';
import { Logger } from '@nestjs/common';
import { IncomingMessage, ServerResponse } from 'node:http';
import {
  DLR_TYPE_STATUSES,
  FakeServer,
  adapterDeps,
  closedPort,
  startFakeServer,
  startSilentServer,
  outgoingSms,
} from '../../../test/support/adapters.factories';
import { CallbackRequest, OutgoingSms } from '../adapter';
import { KannelAdapter } from './kannel.adapter';

const USERNAME = 'smsgw';
const PASSWORD = 'kannel-secret';
const CALLBACK = 'https://sms.example.org/callback/status/kannel/?api_key=k';

/**
 * A Kannel smsbox's sendsms interface as documented: credentials as the `username` and
 * `password` query parameters, 403 when they are wrong, 400 when the receiver is missing, 202
 * "0: Accepted for delivery" for a message taken, and a dlr-url it calls back with its `%d`
 * replaced by the report's type.
 */
class FakeKannel {
  failWith: number | null = null;
  /** A canned answer to requests that pass authentication. */
  answerWith: { status: number; text: string } | null = null;
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
    } else if (this.answerWith) {
      answer(this.answerWith.status, this.answerWith.text);
    } else if (!url.searchParams.get('to')) {
      answer(400, 'Missing receiver number');
    } else {
      answer(202, '0: Accepted for delivery');
    }
  };

  /** The URL Kannel would call to report a delivery of `type` for the last message. */
  report(type: number): string {
    const dlrUrl = this.seen[this.seen.length - 1].searchParams.get('dlr-url') ?? '';
    return dlrUrl.replace('%d', String(type));
  }
}

const sms = (overrides: Partial<OutgoingSms> = {}): OutgoingSms =>
  outgoingSms({ destination: '+33655555555', text: 'Hello there', ...overrides });

const callback = (overrides: Partial<CallbackRequest> = {}): CallbackRequest => ({
  method: 'GET',
  url: 'https://sms.example.org/callback/reception/kannel/1/?api_key=k',
  headers: {},
  query: {},
  form: {},
  rawBody: '',
  ...overrides,
});

/** The callback request smsgw gets when Kannel calls `url` with a GET. */
const getRequest = (url: string): CallbackRequest => {
  const parsed = new URL(url);
  return callback({ url, query: Object.fromEntries(parsed.searchParams) });
};

describe('KannelAdapter', () => {
  let fake: FakeKannel;
  let server: FakeServer;
  let data: Record<string, string>;
  let warnings: jest.SpyInstance;
  const adapter = new KannelAdapter(...adapterDeps());
  const impatient = new KannelAdapter(...adapterDeps({ PROVIDER_TIMEOUT_MS: '200' }));

  beforeEach(async () => {
    fake = new FakeKannel();
    server = await startFakeServer(fake.handle);
    data = {
      kannel_sendsms_url: `${server.url}/cgi-bin/sendsms`,
      username: USERNAME,
      password: PASSWORD,
      from: '+33612345678',
      dlr_url: CALLBACK,
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
  describe('send', () => {
    const sent = () => fake.seen[fake.seen.length - 1];

    it('asks the sendsms interface to send, with receipts to smsgw, and keeps its own uid', async () => {
      const result = await adapter.send(data, sms());

      expect(result).toEqual({ outcome: 'sent', uid: expect.stringMatching(/^[0-9a-f]{32}$/) });
      const uid = result.outcome === 'sent' ? result.uid : '';
      expect(fake.seen).toHaveLength(1);
      expect(sent().pathname).toBe('/cgi-bin/sendsms');
      expect([...sent().searchParams].sort()).toEqual(
        [
          ['username', USERNAME],
          ['password', PASSWORD],
          ['from', '+33612345678'],
          ['to', '+33655555555'],
          ['text', 'Hello there'],
          ['dlr-mask', '19'],
          ['dlr-url', `${CALLBACK}&sms_uid=${uid}&type=%d`],
        ].sort(),
      );
    });

    it.each([
      [299, '4'],
      [59, '1'],
      [604_800, '10080'],
    ])('passes %p seconds of validity left as validity=%p minutes', async (seconds, minutes) => {
      await adapter.send(data, sms({ validitySeconds: seconds }));

      expect(sent().searchParams.get('validity')).toBe(minutes);
    });

    it('sends no validity for a message without one', async () => {
      await adapter.send(data, sms({ validitySeconds: null }));

      expect(sent().searchParams.has('validity')).toBe(false);
    });

    it('takes a message Kannel queues for later delivery as sent', async () => {
      fake.answerWith = { status: 202, text: '3: Queued for later delivery' };

      expect((await adapter.send(data, sms())).outcome).toBe('sent');
    });

    it('gives each message its own uid', async () => {
      const first = await adapter.send(data, sms());
      const second = await adapter.send(data, sms());

      expect(first.outcome === 'sent' && second.outcome === 'sent').toBe(true);
      expect(first).not.toEqual(second);
    });

    it.each([
      [1, 'delivered'],
      [2, 'failed'],
      [16, 'failed'],
    ])('reads back the report Kannel makes of type %d as %s', async (type, status) => {
      const result = await adapter.send(data, sms());
      const uid = result.outcome === 'sent' ? result.uid : 'none';

      expect(adapter.parseStatusCallback(getRequest(fake.report(type)))).toEqual({ uid, status });
    });

    it("sends receipts to the phone's dlr_url instead, keeping its query but not its type", async () => {
      const dlr = 'https://hooks.example.org/dlr?api_key=mine&type=9';

      const result = await adapter.send({ ...data, dlr_url: dlr }, sms());

      const uid = result.outcome === 'sent' ? result.uid : 'none';
      expect(sent().searchParams.get('dlr-url')).toBe(
        `https://hooks.example.org/dlr?api_key=mine&sms_uid=${uid}&type=%d`,
      );
    });

    it("sends receipts to the phone's own receipt URL when it has no dlr_url", async () => {
      const { dlr_url: _receipts, ...withoutReceipts } = data;
      const callbackUrls = {
        status: 'https://sms.example.org/callback/phone/status/?callback_token=tok',
        reception: 'https://sms.example.org/callback/phone/reception/?callback_token=tok',
      };

      const result = await adapter.send(withoutReceipts, sms({ callbackUrls }));

      const uid = result.outcome === 'sent' ? result.uid : 'none';
      expect(sent().searchParams.get('dlr-mask')).toBe('19');
      expect(sent().searchParams.get('dlr-url')).toBe(
        `${callbackUrls.status}&sms_uid=${uid}&type=%d`,
      );
    });

    it('asks for no receipts when the phone has no dlr_url', async () => {
      const { dlr_url: _receipts, ...withoutReceipts } = data;

      await adapter.send(withoutReceipts, sms());

      expect(sent().searchParams.has('dlr-mask')).toBe(false);
      expect(sent().searchParams.has('dlr-url')).toBe(false);
    });

    it('sends text outside GSM-7 as UCS-2 from UTF-8', async () => {
      await adapter.send(data, sms({ text: 'Ça va ? 日本 & =' }));

      expect(sent().searchParams.get('text')).toBe('Ça va ? 日本 & =');
      expect(sent().searchParams.get('coding')).toBe('2');
      expect(sent().searchParams.get('charset')).toBe('UTF-8');
    });

    it('leaves GSM-7 text, extension characters included, in the default coding', async () => {
      await adapter.send(data, sms({ text: 'Prix : 5 € [promo] é' }));

      expect(sent().searchParams.has('coding')).toBe(false);
      expect(sent().searchParams.has('charset')).toBe(false);
    });

    it('routes through the smsc of the adapter data', async () => {
      await adapter.send({ ...data, smsc: 'orange' }, sms());

      expect(sent().searchParams.get('smsc')).toBe('orange');
    });

    it('sends flash messages as message class 0', async () => {
      expect(adapter.capabilities).toEqual({ flash: true, mms: false });

      await adapter.send(data, sms({ flash: true }));
      expect(sent().searchParams.get('mclass')).toBe('0');
      await adapter.send(data, sms());
      expect(sent().searchParams.has('mclass')).toBe(false);
    });

    it('refuses for good with refused credentials', async () => {
      expect(await adapter.send({ ...data, password: 'wrong' }, sms())).toEqual({
        outcome: 'permanent',
        reason: 'Kannel refused the credentials (HTTP 403): check username and password.',
        cause: 'phone',
      });
    });

    it('refuses for good a sendsms URL the smsbox does not serve', async () => {
      const url = `${server.url}/sendsms`;

      expect(await adapter.send({ ...data, kannel_sendsms_url: url }, sms())).toEqual({
        outcome: 'permanent',
        reason: `Kannel has no sendsms interface at ${url} (HTTP 404): check kannel_sendsms_url.`,
        cause: 'phone',
      });
    });

    it("refuses for good a message Kannel rejects, quoting Kannel's reason", async () => {
      expect(await adapter.send(data, sms({ destination: '' }))).toEqual({
        outcome: 'permanent',
        reason:
          'Kannel refused the message (HTTP 400: Missing receiver number): check the adapter data and the destination.',
        cause: 'recipient',
      });
    });

    it("quotes Kannel's reason on one line", async () => {
      fake.answerWith = { status: 400, text: 'Sender missing and\nno global set, rejected.\n' };

      expect(await adapter.send(data, sms())).toEqual({
        outcome: 'permanent',
        reason:
          'Kannel refused the message (HTTP 400: Sender missing and no global set, rejected): check the adapter data and the destination.',
        cause: 'phone',
      });
    });

    // Each refusal the smsbox documents, and whose it is (docs/adapters.md#refusals).
    it.each<[number, string, 'recipient' | 'phone']>([
      [400, 'Number(s) has/have been denied by white- and/or black-lists.', 'recipient'],
      [400, 'Missing receiver number, rejected', 'recipient'],
      [400, 'Empty receiver number not allowed, rejected', 'recipient'],
      [400, 'Charset or body misformed, rejected', 'recipient'],
      [400, 'Sender missing and no global set, rejected', 'phone'],
      [401, 'Unauthorized', 'phone'],
      [402, 'Payment required', 'phone'],
      [500, 'Sending failed.', 'phone'],
    ])('classifies HTTP %i "%s" as the %s refusing', async (status, text, cause) => {
      fake.answerWith = { status, text };

      expect(await adapter.send(data, sms())).toMatchObject({ outcome: 'permanent', cause });
    });

    it.each([503])('retries later when the smsbox answers %d', async (status) => {
      fake.failWith = status;

      expect(await adapter.send(data, sms())).toEqual({
        outcome: 'transient',
        reason: `Kannel answered HTTP ${status}: it is failing on its side, try again later.`,
      });
    });

    it.each([502, 504])(
      'never sends again what a proxy answering %d may have passed on to Kannel',
      async (status) => {
        fake.failWith = status;

        expect(await adapter.send(data, sms())).toMatchObject({
          outcome: 'ambiguous',
          reason: expect.stringMatching(/^Kannel answered HTTP 50[24].* its outcome is unknown\.$/),
        });
      },
    );

    it('does not retry a success status Kannel does not give, which may have sent it', async () => {
      fake.answerWith = { status: 200, text: 'OK' };

      expect(await adapter.send(data, sms())).toEqual({
        outcome: 'ambiguous',
        reason: `Kannel answered HTTP 200, which smsgw does not expect: check the adapter data. ${MAY_HAVE_BEEN_SENT}`,
      });
    });

    it('retries later a smsbox it cannot connect to, without the password in the reason', async () => {
      const port = await closedPort();
      const url = `http://127.0.0.1:${port}/cgi-bin/sendsms`;

      expect(await adapter.send({ ...data, kannel_sendsms_url: url }, sms())).toEqual({
        outcome: 'transient',
        reason: `Could not reach Kannel at ${url} (connection refused).`,
      });
    });

    it('does not send again what a smsbox did not answer within the provider timeout', async () => {
      const silent = await startSilentServer();
      const url = `${silent.url}/cgi-bin/sendsms`;

      try {
        expect(await impatient.send({ ...data, kannel_sendsms_url: url }, sms())).toEqual({
          outcome: 'ambiguous',
          reason: `Could not reach Kannel at ${url} within 200 ms. ${MAY_HAVE_BEEN_SENT}`,
        });
      } finally {
        await silent.close();
      }
    });

    it.each([
      [{ from: '' }, 'from is required.'],
      [
        { kannel_sendsms_url: 'smsbox:13013/cgi-bin/sendsms' },
        'kannel_sendsms_url must be an http(s) URL such as http://smsbox.example.org:13013/cgi-bin/sendsms, without credentials in it.',
      ],
      [{ dlr_url: 'callback' }, 'dlr_url must be an http(s) URL.'],
    ])('refuses for good, without calling Kannel, data such as %p', async (change, reason) => {
      expect(await adapter.send({ ...data, ...change }, sms())).toEqual({
        outcome: 'permanent',
        reason,
        cause: 'phone',
      });
      expect(fake.seen).toHaveLength(0);
    });
  });

  describe('outbound policy', () => {
    let everywhere: FakeServer;
    let reached: number;

    // A smsbox on every local address: 0.0.0.0 and [::] would reach it if they were not refused.
    // It closes each connection after one answer, so that each request connects, and so is
    // checked, anew.
    beforeEach(async () => {
      reached = 0;
      everywhere = await startFakeServer((request, response) => {
        reached += 1;
        response.setHeader('Connection', 'close');
        fake.handle(request, response);
      }, '::');
    });
    afterEach(() => everywhere.close());

    const at = (host: string, port = everywhere.port) => ({
      ...data,
      kannel_sendsms_url: `http://${host}:${port}/cgi-bin/sendsms`,
    });
    const refusal = (address: string, range: string) => ({
      field: 'kannel_sendsms_url',
      reason: `the address ${address} is refused by the server's outbound policy (${range}); an operator can allow it with OUTBOUND_ALLOW.`,
    });

    it.each([
      ['0.0.0.0', '0.0.0.0', 'unspecified'],
      ['[::]', '::', 'unspecified'],
      ['0', '0.0.0.0', 'unspecified'],
    ])(
      'refuses the sendsms URL field at %s, where a smsbox answers',
      async (host, address, range) => {
        expect(await adapter.test(at(host))).toEqual(refusal(address, range));
        expect(reached).toBe(0);
      },
    );

    it('refuses 169.254.169.254 at once, however long the provider timeout', async () => {
      const patient = new KannelAdapter(...adapterDeps({ PROVIDER_TIMEOUT_MS: '600000' }));

      expect(await patient.test(at('169.254.169.254', 80))).toEqual(
        refusal('169.254.169.254', 'link-local'),
      );
    });

    it('fails a send to a refused address for good, saying why, connecting nowhere', async () => {
      const url = `http://0.0.0.0:${everywhere.port}/cgi-bin/sendsms`;

      expect(await adapter.send(at('0.0.0.0'), sms())).toEqual({
        outcome: 'permanent',
        reason: `smsgw does not connect to Kannel at ${url}: the address 0.0.0.0 is refused by the server's outbound policy (unspecified); an operator can allow it with OUTBOUND_ALLOW.`,
        cause: 'phone',
      });
      expect(reached).toBe(0);
    });

    it('reports a refused smsbox as unavailable', async () => {
      expect(await adapter.checkStatus(at('0.0.0.0'))).toBe('unavailable');
      expect(reached).toBe(0);
    });

    describe('with OUTBOUND_BLOCK_PRIVATE=true', () => {
      const closed = new KannelAdapter(...adapterDeps({ OUTBOUND_BLOCK_PRIVATE: 'true' }));

      it('refuses 127.0.0.1 and localhost', async () => {
        expect(await closed.test(at('127.0.0.1'))).toEqual(refusal('127.0.0.1', 'loopback'));
        expect(await closed.test(at('localhost'))).toEqual({
          field: 'kannel_sendsms_url',
          reason:
            "the host localhost resolves to an address refused by the server's outbound policy (loopback); an operator can allow it with OUTBOUND_ALLOW.",
        });
        expect(await closed.send(at('127.0.0.1'), sms())).toMatchObject({
          outcome: 'permanent',
          cause: 'phone',
        });
        expect(reached).toBe(0);
      });

      it.each(['127.0.0.1', 'localhost', '127.0.0.0/8'])(
        'takes 127.0.0.1 and localhost when OUTBOUND_ALLOW=%s lists them',
        async (allow) => {
          const allowing = new KannelAdapter(
            ...adapterDeps({ OUTBOUND_BLOCK_PRIVATE: 'true', OUTBOUND_ALLOW: allow }),
          );
          const host = allow === 'localhost' ? 'localhost' : '127.0.0.1';

          expect(await allowing.test(at(host))).toBeNull();
          expect((await allowing.send(at(host), sms())).outcome).toBe('sent');
          expect(reached).toBe(2);
        },
      );
    });

    it('follows no redirect, to a refused address or any other', async () => {
      const redirecting = await startFakeServer((_request, response) => {
        response.writeHead(302, { Location: `http://0.0.0.0:${everywhere.port}/cgi-bin/sendsms` });
        response.end();
      });
      try {
        const url = `${redirecting.url}/cgi-bin/sendsms`;
        const reason = `${url} answered HTTP 302, a redirect, which smsgw does not follow: give the final URL of the sendsms interface as kannel_sendsms_url.`;

        expect(await adapter.test({ ...data, kannel_sendsms_url: url })).toBe(reason);
        expect(await adapter.send({ ...data, kannel_sendsms_url: url }, sms())).toEqual({
          outcome: 'permanent',
          reason,
          cause: 'phone',
        });
        expect(reached).toBe(0);
      } finally {
        await redirecting.close();
      }
    });

    it('fails a send for good when the name of the smsbox now resolves to a refused address', async () => {
      // Resolved twice: at the phone's test, then at the send (DNS rebinding).
      const answers = [['127.0.0.1'], ['0.0.0.0']];
      const rebinding = new KannelAdapter(
        ...adapterDeps({}, (host) =>
          Promise.resolve(
            (host === 'smsbox.example.org' ? (answers.shift() ?? []) : []).map((address) => ({
              address,
              family: 4,
            })),
          ),
        ),
      );
      const url = `http://smsbox.example.org:${everywhere.port}/cgi-bin/sendsms`;
      const named = { ...data, kannel_sendsms_url: url };

      expect(await rebinding.test(named)).toBeNull();
      expect(await rebinding.send(named, sms())).toEqual({
        outcome: 'permanent',
        reason: `smsgw does not connect to Kannel at ${url}: the host smsbox.example.org resolves to an address refused by the server's outbound policy (unspecified); an operator can allow it with OUTBOUND_ALLOW.`,
        cause: 'phone',
      });
      expect(reached).toBe(1);
    });
  });

  describe('parseStatusCallback', () => {
    it.each(DLR_TYPE_STATUSES)('reads type %p as %s', (type, status) => {
      const query = { api_key: 'k', sms_uid: 'abc', type };

      expect(adapter.parseStatusCallback(callback({ query }))).toEqual({ uid: 'abc', status });
    });

    it('is not a receipt without sms_uid', () => {
      expect(adapter.parseStatusCallback(callback({ query: { type: '1' } }))).toBeNull();
    });
  });

  describe('parseReceptionCallback', () => {
    const posted = (headers: Record<string, string>, rawBody = 'Hello, world'): CallbackRequest =>
      callback({
        method: 'POST',
        headers: { 'content-type': 'text/plain', 'x-kannel-to': '+33612345678', ...headers },
        rawBody,
      });

    it('reads a post-url message: the body, X-Kannel-From as origin and X-Kannel-Time', () => {
      const request = posted({
        'x-kannel-from': '+33655555555',
        'x-kannel-time': '2026-03-01 12:34:56',
      });

      expect(adapter.parseReceptionCallback(request)).toEqual({
        origin: '+33655555555',
        text: 'Hello, world',
        at: '2026-03-01 12:34:56',
      });
    });

    it('never takes X-Kannel-To, the receiving number, for the origin', () => {
      expect(adapter.parseReceptionCallback(posted({}))).toBeNull();
    });

    it('keeps a Unicode body as it is', () => {
      const request = posted({ 'x-kannel-from': '+33655555555' }, 'Ça va ? 日本');

      expect(adapter.parseReceptionCallback(request)?.text).toBe('Ça va ? 日本');
    });

    it.each([
      ['0033655555555', '+33655555555'],
      [' +33 6 55 55 55 55 ', '+33655555555'],
      ['36180', '36180'],
    ])('gives origin %p as %p', (from, origin) => {
      expect(adapter.parseReceptionCallback(posted({ 'x-kannel-from': from }))?.origin).toBe(
        origin,
      );
    });

    it.each(['', 'yesterday', '2026-02-30 10:00:00'])(
      'takes a message with X-Kannel-Time %p as received now',
      (time) => {
        const request = posted({ 'x-kannel-from': '+33655555555', 'x-kannel-time': time });

        expect(adapter.parseReceptionCallback(request)?.at).toBeNull();
      },
    );

    it.each([
      ['2026-03-01 12:34:56', '2026-03-01 12:34:56'],
      ['2026-03-01 12:34', '2026-03-01 12:34:00'],
      ['1772368496', '2026-03-01 12:34:56'],
    ])('reads a get-url message, with time %p', (time, at) => {
      const query = { api_key: 'k', from: '+33655555555', text: 'Hello  world', time };

      expect(adapter.parseReceptionCallback(callback({ query }))).toEqual({
        origin: '+33655555555',
        text: 'Hello  world',
        at,
      });
    });

    it('is not an inbound message without from and text', () => {
      expect(adapter.parseReceptionCallback(callback({ query: { text: 'Hi' } }))).toBeNull();
      expect(
        adapter.parseReceptionCallback(callback({ query: { from: '+33655555555' } })),
      ).toBeNull();
    });
  });
});
