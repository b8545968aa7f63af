import { Logger } from '@nestjs/common';
import { Adapter, AdapterData, OutgoingSms } from '../../src/adapters/adapter';
import { MAY_HAVE_BEEN_SENT } from '../../src/adapters/provider-http';
import { FakeServer, closedPort } from './adapters.factories';
import { Misbehaviour } from './fake-misbehaviour';

/** What the shared specs of a provider's trouble set on its fake. */
interface TroubleFake {
  misbehaviour: { kind: Misbehaviour } | null;
  failWith: number | null;
}

/**
 * One HTTP provider's spec: what `useFakeProvider` makes anew for each test, read by the spec
 * and by the shared specs of the provider's trouble inside each test.
 */
export interface ProviderFixture<F extends TroubleFake, A extends Adapter> {
  /** The provider's name in the adapter's sentences ("Telnyx"). */
  readonly provider: string;
  readonly data: AdapterData;
  /** The adapter pointed at `url`, with `env` added to its configuration. */
  readonly adapterAt: (url: string, env?: Record<string, string>) => A;
  fake: F;
  /** The fake's URL. */
  url: string;
  /** The adapter pointed at the fake. */
  adapter: A;
  /** Logger's warnings, silenced. */
  warnings: jest.SpyInstance;
}

/** Gives each test of the calling describe the fake `start` starts, and the adapter on it. */
export function useFakeProvider<F extends TroubleFake, A extends Adapter>(
  provider: string,
  data: AdapterData,
  start: () => Promise<{ fake: F; server: FakeServer }>,
  adapterAt: (url: string, env?: Record<string, string>) => A,
): ProviderFixture<F, A> {
  const fixture = { provider, data, adapterAt } as ProviderFixture<F, A>;
  let server: FakeServer;

  beforeEach(async () => {
    ({ fake: fixture.fake, server } = await start());
    fixture.url = server.url;
    fixture.adapter = adapterAt(server.url);
    fixture.warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    fixture.warnings.mockRestore();
    await server.close();
  });

  return fixture;
}

/**
 * `send` asks the provider to report statuses at the phone's own URL, unless the phone's
 * `status_change_callback` names another, and at none without either. `asked` reads the URL
 * each message the fake was sent asked for, in order.
 */
export function itAsksForStatusesAtThePhoneUrl(
  spec: { readonly adapter: Adapter; readonly data: AdapterData },
  sms: (overrides?: Partial<OutgoingSms>) => OutgoingSms,
  asked: () => unknown[],
): void {
  it("asks for statuses at the phone's own URL unless status_change_callback names another", async () => {
    const callbackUrls = {
      status: 'https://sms.example.org/callback/phone/status/?callback_token=tok',
      reception: 'https://sms.example.org/callback/phone/reception/?callback_token=tok',
    };

    await spec.adapter.send(spec.data, sms({ callbackUrls }));
    await spec.adapter.send(
      { ...spec.data, status_change_callback: 'https://sms.example.org/cb' },
      sms({ callbackUrls }),
    );
    await spec.adapter.send(spec.data, sms());

    expect(asked()).toEqual([callbackUrls.status, 'https://sms.example.org/cb', undefined]);
  });
}

/** What the shared specs of a provider's trouble are told of it. */
export interface TroubleCases {
  /** Ends the name of the test on a provider that takes no connection. */
  offline?: string;
  /** The answers `checkStatus` reports as unavailable. */
  statusKinds: readonly Misbehaviour[];
  /** A message to send. */
  sms: () => OutgoingSms;
  /** The reason of the ambiguous send on a 200 answer the adapter cannot read. */
  unreadable: string;
}

type ProviderTrouble = ProviderFixture<TroubleFake, Adapter>;

/** The adapter with a 200 ms timeout, for the provider that never answers. */
const hangingAdapter = (trouble: ProviderTrouble) =>
  trouble.adapterAt(trouble.url, { PROVIDER_TIMEOUT_MS: '200' });

/** `test`, `checkStatus` and `send` on a provider in trouble. */
export function describeProviderTrouble(trouble: ProviderTrouble, cases: TroubleCases): void {
  describe('test', () => {
    itReportsTestTrouble(trouble, cases.offline);
  });

  describe('checkStatus', () => {
    itReportsStatusTrouble(trouble, cases.statusKinds);
  });

  describe('send', () => {
    itGivesSendTroubleOutcomes(trouble, cases.sms, cases.unreadable);
  });
}

/**
 * `test` on a balance answer that fails, cannot be read, never comes or is cut, and on a
 * provider that takes no connection. `offline` ends the name of the last test.
 */
function itReportsTestTrouble(trouble: ProviderTrouble, offline = ''): void {
  const { provider, data } = trouble;

  it.each([
    [429, `${provider} answered HTTP 429 (too many requests): try again later.`],
    [503, `${provider} answered HTTP 503: it is failing on its side, try again later.`],
  ])('reports HTTP %i', async (status, reason) => {
    trouble.fake.failWith = status;

    expect(await trouble.adapter.test(data)).toBe(reason);
  });

  it.each(['html', 'invalid-json', 'huge'] as const)(
    'reports a %s answer as no balance',
    async (kind) => {
      trouble.fake.misbehaviour = { kind };

      expect(await trouble.adapter.test(data)).toBe(
        `${provider} answered without an account balance: try again later.`,
      );
    },
  );

  it(`gives up on a ${provider} that reads the request and never answers`, async () => {
    trouble.fake.misbehaviour = { kind: 'hang' };

    expect(await hangingAdapter(trouble).test(data)).toBe(
      `Could not reach ${provider} at ${trouble.url} within 200 ms.`,
    );
  });

  it('reports a connection reset in the middle of the answer', async () => {
    trouble.fake.misbehaviour = { kind: 'reset' };

    expect(await trouble.adapter.test(data)).toBe(
      `Could not reach ${provider} at ${trouble.url} (connection closed).`,
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
function itReportsStatusTrouble(trouble: ProviderTrouble, kinds: readonly Misbehaviour[]): void {
  it.each(kinds)('reports a %s answer as unavailable', async (kind) => {
    trouble.fake.misbehaviour = { kind };

    expect(await hangingAdapter(trouble).checkStatus(trouble.data)).toBe('unavailable');
  });
}

/**
 * `send` on a 200 answer it cannot read (ambiguous with `unreadable` as the reason), one that
 * never comes or is cut (ambiguous, by the shared rule), and a provider that takes no
 * connection (transient).
 */
function itGivesSendTroubleOutcomes(
  trouble: ProviderTrouble,
  sms: () => OutgoingSms,
  unreadable: string,
): void {
  const { provider, data } = trouble;

  it.each(['html', 'invalid-json', 'huge'] as const)(
    'does not retry a %s answer with HTTP 200, which may have been sent',
    async (kind) => {
      trouble.fake.misbehaviour = { kind };

      expect(await trouble.adapter.send(data, sms())).toEqual({
        outcome: 'ambiguous',
        reason: unreadable,
      });
    },
  );

  it(`gives what the shared rule gives for a ${provider} that reads the request and never answers`, async () => {
    trouble.fake.misbehaviour = { kind: 'hang' };

    expect(await hangingAdapter(trouble).send(data, sms())).toEqual({
      outcome: 'ambiguous',
      reason: `Could not reach ${provider} at ${trouble.url} within 200 ms. ${MAY_HAVE_BEEN_SENT}`,
    });
  });

  it('gives what the shared rule gives for a connection reset mid-answer', async () => {
    trouble.fake.misbehaviour = { kind: 'reset' };

    expect(await trouble.adapter.send(data, sms())).toEqual({
      outcome: 'ambiguous',
      reason: `Could not reach ${provider} at ${trouble.url} (connection closed). ${MAY_HAVE_BEEN_SENT}`,
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
