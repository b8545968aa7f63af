import { Logger, Type } from '@nestjs/common';
import { readdirSync } from 'node:fs';
import { OutboundPolicy } from '../common/net/outbound-policy';
import { AppConfig } from '../config/configuration';
import {
  FakeOvh,
  FakeServer,
  adapterConfig,
  adapterDeps,
  outgoingSms,
  sendJson,
} from '../../test/support/adapters.factories';
import { FakeOctopush } from '../../test/support/fake-octopush';
import { FakeOdyssey } from '../../test/support/fake-odyssey';
import { FakeSmsGatewayAndroid } from '../../test/support/fake-sms-gateway-android';
import { FakeTelnyx } from '../../test/support/fake-telnyx';
import { FakeVonage } from '../../test/support/fake-vonage';
import {
  MISBEHAVIOURS,
  Misbehaviour,
  WellAnswered,
  startMisbehavingServer,
  timeoutFor,
} from '../../test/support/misbehaving-provider';
import { Adapter, AdapterData, SendResult, problemText } from './adapter';
import { ADAPTERS } from './adapters.module';
import { BenchmarkAdapter } from './benchmark/benchmark.adapter';
import { GammuAdapter } from './gammu/gammu.adapter';
import { KannelAdapter } from './kannel/kannel.adapter';
import { OctopushShortcodeAdapter } from './octopush/octopush-shortcode.adapter';
import { OctopushVirtualNumberAdapter } from './octopush/octopush-virtual-number.adapter';
import { OdysseyMessagingAdapter } from './odyssey/odyssey.adapter';
import { OvhShortcodeAdapter } from './ovh/ovh-shortcode.adapter';
import { OvhVirtualNumberAdapter } from './ovh/ovh-virtual-number.adapter';
import { SmppAdapter } from './smpp/smpp.adapter';
import { SmsGatewayAndroidAdapter } from './sms-gateway-android/sms-gateway-android.adapter';
import { TelnyxAdapter } from './telnyx/telnyx.adapter';
import { TestAdapter } from './test/test.adapter';
import { TwilioAdapter } from './twilio/twilio.adapter';
import { VonageAdapter } from './vonage/vonage.adapter';

/*
 * Every HTTP adapter against every misbehaviour of test/support/misbehaving-provider.ts, on a
 * fake provider of 127.0.0.1: one entry per adapter below, and a new adapter folder fails the
 * first tests until it has one.
 */

/** The folders of adapters that do not speak HTTP to their provider, with their adapters. */
const NOT_HTTP: Readonly<Record<string, ReadonlyArray<Type<Adapter>>>> = {
  // No provider: every message is taken at once.
  benchmark: [BenchmarkAdapter],
  // gammu-smsd's spool folders and commands on this host.
  gammu: [GammuAdapter],
  // SMPP sessions over TCP, with their own misbehaviours in smpp.adapter.spec.ts.
  smpp: [SmppAdapter],
  // The adapter of the tests: no provider.
  test: [TestAdapter],
};

/**
 * What a send gives when the provider misbehaves so: transient when the provider certainly did
 * not take the message (429, 503, no connection), ambiguous when it may have (a 200 that
 * cannot be read, no answer in time, a connection cut mid-answer).
 */
const SEND_OUTCOMES: Readonly<Record<Misbehaviour, SendResult['outcome']>> = {
  'rate-limited': 'transient',
  failing: 'transient',
  'html-page': 'ambiguous',
  'invalid-json': 'ambiguous',
  'huge-body': 'ambiguous',
  hang: 'ambiguous',
  'reset-mid-response': 'ambiguous',
  refused: 'transient',
};

/** How long past its timeout a call may take to give up, on a loaded machine. */
const GIVING_UP_MARGIN_MS = 2_000;
/** Reasons are sentences for the user: never the provider's body, least of all a huge one. */
const MAX_REASON_CHARS = 1_000;

/** The calls of an adapter that reach its provider. */
type Call = 'send' | 'test' | 'checkStatus' | 'registerCallbacks';

interface HttpAdapterEntry {
  /** Its folder under src/adapters/. */
  folder: string;
  /** Its descriptor id, with how it reaches its provider when it has several ways. */
  name: string;
  /** The adapter, with its provider's API at `url` and the variables `env` besides. */
  adapter(url: string, env: Record<string, string>): Adapter;
  /** A phone's data, with its provider's API at `url`. */
  data(url: string): AdapterData;
  /** Requests the provider answers well whatever the misbehaviour. */
  wellAnswered?: WellAnswered;
  /**
   * Misbehaviours that `test` and `checkStatus` take for a working provider, where the table
   * wants a problem and `unavailable`.
   */
  checkPasses?: readonly Misbehaviour[];
  /**
   * Where the adapter departs from the table with no reason of its own: bugs, reported. Their
   * tests run as failing ones, so that the fix must remove them from here.
   */
  departures?: Partial<Record<Call, readonly Misbehaviour[]>>;
}

/** The outbound policies the adapters were built with, closed after the spec. */
const policies: OutboundPolicy[] = [];

/** The configuration and outbound policy of adapters that connect where users say. */
function withPolicy(env: Record<string, string>): [AppConfig, OutboundPolicy] {
  const deps = adapterDeps(env);
  policies.push(deps[1]);
  return deps;
}

/** A phone's credentials, none of which a reason or a log line may show. */
const TWILIO = {
  account_sid: 'AC0123456789abcdef0123456789abcdef',
  auth_token: 'twilioAuthToken0001',
  number: '+33612345678',
};
const KANNEL = { username: 'smsgw', password: 'kannelPassw0rd', from: '+33612345678' };

/** The misbehaviours that answer HTTP 200 with a body that is not the provider's answer. */
const UNREADABLE_200: readonly Misbehaviour[] = ['html-page', 'invalid-json', 'huge-body'];

/** The app's webhook registration reads the answer's status only: any 2xx is taken as done. */
const ANDROID_DEPARTURES = { registerCallbacks: UNREADABLE_200 };

/** OVH's clock query, which comes before each signed call and is answered as OVH does. */
const ovhClock: WellAnswered = (request, response) => {
  if (request.method !== 'GET' || request.url !== '/1.0/auth/time') {
    return false;
  }
  sendJson(response, 200, Math.floor(Date.now() / 1000));
  return true;
};

const ENTRIES: readonly HttpAdapterEntry[] = [
  {
    folder: 'kannel',
    name: 'kannel',
    adapter: (_url, env) => new KannelAdapter(...withPolicy(env)),
    data: (url) => ({ kannel_sendsms_url: `${url}/cgi-bin/sendsms`, ...KANNEL }),
    // Kannel has no credentials check: the adapter's test takes any answer but 403 (refused
    // credentials), 404 (no sendsms there), a redirect or a 5xx as a smsbox that will send.
    checkPasses: ['rate-limited', 'html-page', 'invalid-json', 'huge-body'],
  },
  {
    folder: 'octopush',
    name: 'octopush_shortcode',
    adapter: (url, env) =>
      new OctopushShortcodeAdapter(adapterConfig({ OCTOPUSH_API_URL: url, ...env })),
    data: () => FakeOctopush.data(),
  },
  {
    folder: 'octopush',
    name: 'octopush_virtual_number',
    adapter: (url, env) =>
      new OctopushVirtualNumberAdapter(adapterConfig({ OCTOPUSH_API_URL: url, ...env })),
    data: () => FakeOctopush.data({ number: '+33611000001' }),
  },
  {
    folder: 'odyssey',
    name: 'odyssey_messaging',
    adapter: (url, env) =>
      new OdysseyMessagingAdapter(adapterConfig({ ODYSSEY_API_URL: url, ...env })),
    data: () => FakeOdyssey.data(),
  },
  {
    folder: 'ovh',
    name: 'ovh_shortcode',
    adapter: (url, env) =>
      new OvhShortcodeAdapter(adapterConfig({ OVH_API_URL: `${url}/1.0`, ...env })),
    data: () => FakeOvh.data(),
    wellAnswered: ovhClock,
  },
  {
    folder: 'ovh',
    name: 'ovh_virtual_number',
    adapter: (url, env) =>
      new OvhVirtualNumberAdapter(adapterConfig({ OVH_API_URL: `${url}/1.0`, ...env })),
    data: () => FakeOvh.data({ number: '+33612345678' }),
    wellAnswered: ovhClock,
  },
  {
    folder: 'sms-gateway-android',
    name: 'sms_gateway_android, through the cloud',
    adapter: (url, env) =>
      new SmsGatewayAndroidAdapter(
        ...withPolicy({ SMS_GATEWAY_ANDROID_API_URL: `${url}/3rdparty/v1`, ...env }),
      ),
    data: () => FakeSmsGatewayAndroid.data(),
    departures: ANDROID_DEPARTURES,
  },
  {
    folder: 'sms-gateway-android',
    name: "sms_gateway_android, through the phone's local server",
    adapter: (_url, env) => new SmsGatewayAndroidAdapter(...withPolicy(env)),
    data: (url) => FakeSmsGatewayAndroid.data({ api_url: url }),
    departures: ANDROID_DEPARTURES,
  },
  {
    folder: 'telnyx',
    name: 'telnyx',
    adapter: (url, env) => new TelnyxAdapter(adapterConfig({ TELNYX_API_URL: url, ...env })),
    data: () => FakeTelnyx.data(),
  },
  {
    folder: 'twilio',
    name: 'twilio',
    adapter: (url, env) => new TwilioAdapter(adapterConfig({ TWILIO_API_URL: url, ...env })),
    data: () => TWILIO,
  },
  {
    folder: 'vonage',
    name: 'vonage',
    adapter: (url, env) => new VonageAdapter(adapterConfig({ VONAGE_API_URL: url, ...env })),
    data: () => FakeVonage.data(),
  },
];

/** A URL where no test connects: adapters built only to be looked at. */
const NOWHERE = 'http://127.0.0.1:9';

afterAll(async () => {
  await Promise.all(policies.splice(0).map((policy) => policy.close()));
});

describe('the misbehaviour table', () => {
  it('has an entry for every adapter folder but those of adapters that do not speak HTTP', () => {
    const folders = readdirSync(__dirname, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name)
      .filter((folder) => !(folder in NOT_HTTP));
    expect(folders.sort()).toEqual([...new Set(ENTRIES.map((entry) => entry.folder))].sort());
  });

  it('has an entry for every HTTP adapter that adapters.module.ts lists', () => {
    const covered = new Set<unknown>(
      ENTRIES.map((entry) => entry.adapter(NOWHERE, {}).constructor),
    );
    const notHttp = new Set<unknown>(Object.values(NOT_HTTP).flat());
    expect(
      ADAPTERS.filter((type) => !notHttp.has(type) && !covered.has(type)).map(({ name }) => name),
    ).toEqual([]);
  });
});

describe.each(ENTRIES)('$name, with a provider that misbehaves', (entry) => {
  const servers: FakeServer[] = [];
  let logged: jest.SpyInstance[];

  beforeEach(() => {
    logged = [
      jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined),
      jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined),
    ];
  });

  afterEach(async () => {
    jest.restoreAllMocks();
    await Promise.all(servers.splice(0).map((server) => server.close()));
  });

  /** The adapter and a phone's data, with the provider misbehaving `how`. */
  async function misbehaving(how: Misbehaviour) {
    const server = await startMisbehavingServer(how, entry.wellAnswered);
    servers.push(server);
    const timeoutMs = timeoutFor(how);
    const adapter = entry.adapter(server.url, { PROVIDER_TIMEOUT_MS: String(timeoutMs) });
    return { adapter, data: entry.data(server.url), timeoutMs };
  }

  /** Runs `call`, failing when it outlasts the provider timeout by more than the margin. */
  async function withinTimeout<T>(timeoutMs: number, call: () => Promise<T>): Promise<T> {
    const started = Date.now();
    const result = await call();
    expect(Date.now() - started).toBeLessThan(timeoutMs + GIVING_UP_MARGIN_MS);
    return result;
  }

  /** Fails when `text`, or anything logged, shows a secret of `data` or is not a short sentence. */
  function expectPlainWords(text: string, adapter: Adapter, data: AdapterData): void {
    const secrets = adapter.descriptor.fields
      .filter((field) => field.secret && data[field.name])
      .map((field) => data[field.name]);
    const logs = JSON.stringify(logged.flatMap((spy) => spy.mock.calls as unknown[]));
    for (const secret of secrets) {
      expect(text).not.toContain(secret);
      expect(logs).not.toContain(secret);
    }
    expect(text.trim()).not.toBe('');
    expect(text.length).toBeLessThan(MAX_REASON_CHARS);
  }

  /** `it`, or `it.failing` for a departure the entry lists: its fix must remove the listing. */
  const itUnless = (call: Call, how: Misbehaviour) =>
    entry.departures?.[call]?.includes(how) ? it.failing : it;

  for (const how of MISBEHAVIOURS) {
    itUnless('send', how)(`send: ${how} gives the outcome of the table`, async () => {
      const { adapter, data, timeoutMs } = await misbehaving(how);
      const result = await withinTimeout(timeoutMs, () => adapter.send(data, outgoingSms()));
      expect(result.outcome).toBe(SEND_OUTCOMES[how]);
      expectPlainWords('reason' in result ? result.reason : '', adapter, data);
    });
  }

  for (const how of MISBEHAVIOURS) {
    const passes = entry.checkPasses?.includes(how);
    itUnless('test', how)(
      `test: ${how} ${passes ? 'passes, as the adapter says why' : 'is a problem'}`,
      async () => {
        const { adapter, data, timeoutMs } = await misbehaving(how);
        const problem = await withinTimeout(timeoutMs, () => adapter.test(data));
        if (passes) {
          expect(problem).toBeNull();
        } else {
          expect(problem).not.toBeNull();
          expectPlainWords(problem ? problemText(problem) : '', adapter, data);
        }
      },
    );
  }

  for (const how of MISBEHAVIOURS) {
    const status = entry.checkPasses?.includes(how) ? 'available' : 'unavailable';
    itUnless('checkStatus', how)(`checkStatus: ${how} is ${status}`, async () => {
      const { adapter, data, timeoutMs } = await misbehaving(how);
      expect(await withinTimeout(timeoutMs, () => adapter.checkStatus(data))).toBe(status);
      expectPlainWords(status, adapter, data);
    });
  }

  if (!entry.adapter(NOWHERE, {}).registerCallbacks) {
    return;
  }
  for (const how of MISBEHAVIOURS) {
    itUnless('registerCallbacks', how)(`registerCallbacks: ${how} is a problem`, async () => {
      const { adapter, data, timeoutMs } = await misbehaving(how);
      const problem = await withinTimeout(timeoutMs, () =>
        adapter.registerCallbacks!(data, {
          status: 'https://smsgw.example.org/callback/status/adapter/?callback_token=t',
          reception: 'https://smsgw.example.org/callback/reception/adapter/1/?callback_token=t',
        }),
      );
      expect(problem).not.toBeNull();
      expectPlainWords(problem ?? '', adapter, data);
    });
  }
});
