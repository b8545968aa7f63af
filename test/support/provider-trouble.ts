import { Adapter, AdapterData, OutgoingSms } from '../../src/adapters/adapter';
import { MAY_HAVE_BEEN_SENT } from '../../src/adapters/provider-http';
import { closedPort } from './adapters.factories';
import { Misbehaviour } from './fake-misbehaviour';

/**
 * What the shared specs of a provider's trouble need of an adapter's spec. The getters are
 * read inside each test, after the spec's `beforeEach` has started its fake.
 */
export interface ProviderTrouble {
  /** The provider's name in the adapter's sentences ("Telnyx"). */
  provider: string;
  data: AdapterData;
  fake: () => { misbehaviour: { kind: Misbehaviour } | null; failWith: number | null };
  /** The fake's URL. */
  url: () => string;
  adapter: () => Adapter;
  /** The adapter with a 200 ms timeout, for the provider that never answers. */
  hangingAdapter: () => Adapter;
  /** The adapter pointed at `url`. */
  adapterAt: (url: string) => Adapter;
}

/**
 * `test` on a balance answer that fails, cannot be read, never comes or is cut, and on a
 * provider that takes no connection. `offline` ends the name of the last test.
 */
export function itReportsTestTrouble(trouble: ProviderTrouble, offline = ''): void {
  const { provider, data } = trouble;

  it.each([
    [429, `${provider} answered HTTP 429 (too many requests): try again later.`],
    [503, `${provider} answered HTTP 503: it is failing on its side, try again later.`],
  ])('reports HTTP %i', async (status, reason) => {
    trouble.fake().failWith = status;

    expect(await trouble.adapter().test(data)).toBe(reason);
  });

  it.each(['html', 'invalid-json', 'huge'] as const)(
    'reports a %s answer as no balance',
    async (kind) => {
      trouble.fake().misbehaviour = { kind };

      expect(await trouble.adapter().test(data)).toBe(
        `${provider} answered without an account balance: try again later.`,
      );
    },
  );

  it(`gives up on a ${provider} that reads the request and never answers`, async () => {
    trouble.fake().misbehaviour = { kind: 'hang' };

    expect(await trouble.hangingAdapter().test(data)).toBe(
      `Could not reach ${provider} at ${trouble.url()} within 200 ms.`,
    );
  });

  it('reports a connection reset in the middle of the answer', async () => {
    trouble.fake().misbehaviour = { kind: 'reset' };

    expect(await trouble.adapter().test(data)).toBe(
      `Could not reach ${provider} at ${trouble.url()} (connection closed).`,
    );
  });

  it(`reports a ${provider} it cannot connect to${offline}`, async () => {
    const port = await closedPort();

    expect(await trouble.adapterAt(`http://127.0.0.1:${port}`).test(data)).toBe(
      `Could not reach ${provider} at http://127.0.0.1:${port} (connection refused).`,
    );
  });
}

/** `checkStatus` on each of `kinds` of answer, from the adapter with a short timeout. */
export function itReportsStatusTrouble(
  trouble: ProviderTrouble,
  kinds: readonly Misbehaviour[],
): void {
  it.each(kinds)('reports a %s answer as unavailable', async (kind) => {
    trouble.fake().misbehaviour = { kind };

    expect(await trouble.hangingAdapter().checkStatus(trouble.data)).toBe('unavailable');
  });
}

/**
 * `send` on a 200 answer it cannot read (ambiguous with `unreadable` as the reason), one that
 * never comes or is cut (ambiguous, by the shared rule), and a provider that takes no
 * connection (transient).
 */
export function itGivesSendTroubleOutcomes(
  trouble: ProviderTrouble,
  sms: () => OutgoingSms,
  unreadable: string,
): void {
  const { provider, data } = trouble;

  it.each(['html', 'invalid-json', 'huge'] as const)(
    'does not retry a %s answer with HTTP 200, which may have been sent',
    async (kind) => {
      trouble.fake().misbehaviour = { kind };

      expect(await trouble.adapter().send(data, sms())).toEqual({
        outcome: 'ambiguous',
        reason: unreadable,
      });
    },
  );

  it(`gives what the shared rule gives for a ${provider} that reads the request and never answers`, async () => {
    trouble.fake().misbehaviour = { kind: 'hang' };

    expect(await trouble.hangingAdapter().send(data, sms())).toEqual({
      outcome: 'ambiguous',
      reason: `Could not reach ${provider} at ${trouble.url()} within 200 ms. ${MAY_HAVE_BEEN_SENT}`,
    });
  });

  it('gives what the shared rule gives for a connection reset mid-answer', async () => {
    trouble.fake().misbehaviour = { kind: 'reset' };

    expect(await trouble.adapter().send(data, sms())).toEqual({
      outcome: 'ambiguous',
      reason: `Could not reach ${provider} at ${trouble.url()} (connection closed). ${MAY_HAVE_BEEN_SENT}`,
    });
  });

  it(`retries later a ${provider} it cannot connect to`, async () => {
    const port = await closedPort();

    expect(await trouble.adapterAt(`http://127.0.0.1:${port}`).send(data, sms())).toEqual({
      outcome: 'transient',
      reason: `Could not reach ${provider} at http://127.0.0.1:${port} (connection refused).`,
    });
  });
}
