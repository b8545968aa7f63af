import {
  FakeServer,
  REFUSAL_STATUS_CAUSES,
  closedPort,
  startFakeServer,
} from '../../test/support/adapters.factories';
import { OutboundPolicy } from '../common/net/outbound-policy';
import {
  ProviderHttp,
  isAmbiguousStatus,
  isTransientStatus,
  MAY_HAVE_BEEN_SENT,
  parseJson,
  unexpectedSendReply,
  unexpectedStatus,
} from './provider-http';
import { MAX_EXCERPT_CHARS, excerpt, formatDuration } from '../common/net/http-answers';

describe('formatDuration', () => {
  it('says whole seconds in seconds and anything else in milliseconds', () => {
    expect([formatDuration(10_000), formatDuration(250), formatDuration(1500)]).toEqual([
      '10 s',
      '250 ms',
      '1500 ms',
    ]);
  });
});

describe('parseJson', () => {
  it('gives the JSON value, or undefined for what is not JSON', () => {
    expect(parseJson('{"a":1}')).toEqual({ a: 1 });
    expect(parseJson('<html>')).toBeUndefined();
  });
});

describe('excerpt', () => {
  it('puts a provider answer on one line, without its final full stop', () => {
    expect(excerpt('  Sender missing and\r\n\tno global set, rejected.\n')).toBe(
      'Sender missing and no global set, rejected',
    );
  });

  it('drops control and format characters, which could disguise the text', () => {
    expect(excerpt('Invalid\u0000 \u001b[31mnumber\u202e\u200b here')).toBe(
      'Invalid [31mnumber here',
    );
  });

  it(`cuts a long answer to ${MAX_EXCERPT_CHARS} characters, marking the cut`, () => {
    const cut = excerpt(`${'é'.repeat(150)} ${'😀'.repeat(300)}\n${'x'.repeat(10_000)}`);

    expect([...cut]).toHaveLength(MAX_EXCERPT_CHARS);
    expect(cut.endsWith('😀…')).toBe(true);
  });

  it('leaves a short answer whole', () => {
    expect(excerpt('x'.repeat(MAX_EXCERPT_CHARS))).toBe('x'.repeat(MAX_EXCERPT_CHARS));
  });
});

describe('unexpectedStatus', () => {
  it('tells the user to try again later for a failing or throttling provider', () => {
    expect(unexpectedStatus('OVH', 503)).toBe(
      'OVH answered HTTP 503: it is failing on its side, try again later.',
    );
    expect(unexpectedStatus('OVH', 429)).toBe(
      'OVH answered HTTP 429 (too many requests): try again later.',
    );
  });

  it('points at the adapter data for any other status', () => {
    expect(unexpectedStatus('Twilio', 418)).toBe(
      'Twilio answered HTTP 418, which smsgw does not expect: check the adapter data.',
    );
  });
});

describe('isTransientStatus and isAmbiguousStatus', () => {
  it('makes only 429 and 503 transient: the provider says it did not take the message', () => {
    expect([429, 503, 500, 502, 504, 400, 401, 404, 418].map(isTransientStatus)).toEqual([
      true,
      true,
      false,
      false,
      false,
      false,
      false,
      false,
      false,
    ]);
  });

  it('makes 502 and 504 ambiguous: a gateway may have passed the request on', () => {
    expect([502, 504, 500, 503, 429].map(isAmbiguousStatus)).toEqual([
      true,
      true,
      false,
      false,
      false,
    ]);
  });
});

describe('unexpectedSendReply', () => {
  it('makes a request that certainly never left transient, with its reason', () => {
    expect(
      unexpectedSendReply('OVH', {
        ok: false,
        reason: 'Could not reach OVH (connection refused).',
        mayHaveReached: false,
      }),
    ).toEqual({ outcome: 'transient', reason: 'Could not reach OVH (connection refused).' });
  });

  it('makes a request that may have reached the provider ambiguous, saying so', () => {
    expect(
      unexpectedSendReply('OVH', {
        ok: false,
        reason: 'Could not reach OVH at its API within 10 s.',
        mayHaveReached: true,
      }),
    ).toEqual({
      outcome: 'ambiguous',
      reason: `Could not reach OVH at its API within 10 s. ${MAY_HAVE_BEEN_SENT}`,
    });
  });

  it('makes throttling and unavailability transient, a failing gateway ambiguous, a 500 permanent', () => {
    expect(unexpectedSendReply('OVH', { ok: true, status: 503, body: '' })).toEqual({
      outcome: 'transient',
      reason: 'OVH answered HTTP 503: it is failing on its side, try again later.',
    });
    expect(unexpectedSendReply('OVH', { ok: true, status: 429, body: '' }).outcome).toBe(
      'transient',
    );
    expect(unexpectedSendReply('OVH', { ok: true, status: 502, body: '' })).toEqual({
      outcome: 'ambiguous',
      reason: `OVH answered HTTP 502: it is failing on its side, try again later. ${MAY_HAVE_BEEN_SENT}`,
    });
    expect(unexpectedSendReply('OVH', { ok: true, status: 500, body: '' }).outcome).toBe(
      'permanent',
    );
  });

  it("makes a request the outbound policy refused permanent, the phone's: it would be refused again", () => {
    const policy = new OutboundPolicy({ blockPrivate: false, allow: { hosts: [], ranges: [] } });
    const refusal = policy.refusal('169.254.169.254');

    expect(
      unexpectedSendReply('Kannel', {
        ok: false,
        reason: 'Refused.',
        refusal: refusal ?? undefined,
        mayHaveReached: false,
      }),
    ).toEqual({ outcome: 'permanent', reason: 'Refused.', cause: 'phone' });
  });

  it("makes any other unexpected status permanent, the recipient's", () => {
    expect(unexpectedSendReply('Kannel', { ok: true, status: 418, body: '' })).toEqual({
      outcome: 'permanent',
      reason: 'Kannel answered HTTP 418, which smsgw does not expect: check the adapter data.',
      cause: 'recipient',
    });
  });

  it.each(REFUSAL_STATUS_CAUSES)('makes an unexpected HTTP %i the %s refusing', (status, cause) => {
    expect(unexpectedSendReply('Kannel', { ok: true, status, body: '' })).toMatchObject({
      outcome: 'permanent',
      cause,
    });
  });
});

describe('ProviderHttp', () => {
  let server: FakeServer;

  let requested: string[];

  beforeEach(async () => {
    requested = [];
    server = await startFakeServer((request, response) => {
      requested.push(request.url ?? '');
      if (request.url === '/redirect') {
        response.writeHead(301, { Location: '/elsewhere' });
        response.end();
        return;
      }
      response.writeHead(request.url === '/large' ? 200 : 204);
      response.end(request.url === '/large' ? 'x'.repeat(3 * 1024 * 1024) : undefined);
    });
  });
  afterEach(() => server.close());

  it('gives the status and body of an answer', async () => {
    const http = new ProviderHttp('Fake', server.url, 5000);

    expect(await http.request(`${server.url}/empty`)).toEqual({ ok: true, status: 204, body: '' });
  });

  it('keeps at most about a megabyte of a large answer', async () => {
    const reply = await new ProviderHttp('Fake', server.url, 5000).request(`${server.url}/large`);

    expect(reply.ok && reply.body.length).toBeGreaterThanOrEqual(1024 * 1024);
    expect(reply.ok && reply.body.length).toBeLessThan(2 * 1024 * 1024);
  });

  it('turns a refused connection into a sentence naming the location given, not the URL', async () => {
    const port = await closedPort();
    const http = new ProviderHttp('Fake', 'the fake provider', 5000);

    expect(await http.request(`http://127.0.0.1:${port}/secret?password=x`)).toEqual({
      ok: false,
      reason: 'Could not reach Fake at the fake provider (connection refused).',
      mayHaveReached: false,
    });
  });

  it('answers a redirect as it is, without following it', async () => {
    const reply = await new ProviderHttp('Fake', server.url, 5000).request(
      `${server.url}/redirect`,
    );

    expect(reply).toMatchObject({ ok: true, status: 301 });
    expect(requested).toEqual(['/redirect']);
  });

  describe('with the outbound policy, for a URL a user gave', () => {
    const policy = new OutboundPolicy({ blockPrivate: true, allow: { hosts: [], ranges: [] } });
    afterAll(() => policy.close());

    it('says that the policy refused the connection, naming the location given', async () => {
      const http = new ProviderHttp('Fake', 'the fake provider', 5000, policy);

      const reply = await http.request(`${server.url}/secret?password=x`);

      expect(reply).toEqual({
        ok: false,
        reason:
          "smsgw does not connect to Fake at the fake provider: the address 127.0.0.1 is refused by the server's outbound policy (loopback); an operator can allow it with OUTBOUND_ALLOW.",
        refusal: expect.objectContaining({ address: '127.0.0.1', range: 'loopback' }),
        mayHaveReached: false,
      });
      expect(requested).toEqual([]);
    });
  });
});
