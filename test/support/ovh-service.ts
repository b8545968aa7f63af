import { Logger } from '@nestjs/common';
import { AdapterData } from '../../src/adapters/adapter';
import { OvhSmsAdapter } from '../../src/adapters/ovh/ovh-sms';
import { AppConfig } from '../../src/config/configuration';
import {
  FakeOvh,
  FakeServer,
  adapterConfig,
  closedPort,
  outgoingSms,
  startFakeOvh,
  startSilentServer,
  trackListening,
} from './adapters.factories';

/*
 * Both OVH adapters test and check the SMS service the same way (OvhSmsAdapter), whatever line
 * they send from: their specs share the fake OVH each test gets, and run these checks each on
 * its own adapter.
 */

/** One OVH adapter's spec: what `useFakeOvh` makes anew for each test. */
export interface OvhFixture<A extends OvhSmsAdapter> {
  /** The phone's data, reaching the fake's service. */
  readonly data: AdapterData;
  /** The same adapter with another configuration (another OVH URL, timeout). */
  readonly make: (config: AppConfig) => A;
  fake: FakeOvh;
  /** The adapter pointed at the fake OVH, polling every 20 ms. */
  adapter: A;
  /** Logger's warnings, silenced. */
  warnings: jest.SpyInstance;
  /** Listens with the adapter; the listening stops after the test, even one that failed. */
  listen: (...args: Parameters<OvhSmsAdapter['listen']>) => () => Promise<void>;
}

/** Gives each test of the calling describe a fake OVH and the adapter `make` points at it. */
export function useFakeOvh<A extends OvhSmsAdapter>(
  make: (config: AppConfig) => A,
  data: AdapterData,
): OvhFixture<A> {
  const fixture = { data, make } as OvhFixture<A>;
  const { listen, stopAll } = trackListening((...args: Parameters<OvhSmsAdapter['listen']>) =>
    fixture.adapter.listen(...args),
  );
  fixture.listen = listen;
  let server: FakeServer;

  beforeEach(async () => {
    ({ fake: fixture.fake, server } = await startFakeOvh());
    fixture.adapter = make(
      adapterConfig({ OVH_API_URL: `${server.url}/1.0`, PROVIDER_POLL_INTERVAL_MS: '20' }),
    );
    fixture.warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });

  afterEach(async () => {
    await stopAll();
    fixture.warnings.mockRestore();
    await server.close();
  });

  return fixture;
}

/**
 * What `test` says of the service, its credentials and an OVH that fails or cannot be reached,
 * and what `checkStatus` makes of the service's credits and of such an OVH.
 */
export function describeTheOvhService(ovh: OvhFixture<OvhSmsAdapter>): void {
  describe('test', () => {
    it('reports a service the credentials do not reach', async () => {
      expect(await ovh.adapter.test({ ...ovh.data, service_name: 'sms-zz99999-1' })).toBe(
        'OVH has no SMS service sms-zz99999-1 for these credentials (HTTP 404): check service_name.',
      );
    });

    it('reports a wrong application secret as a refused signature', async () => {
      expect(await ovh.adapter.test({ ...ovh.data, app_secret: 'wrongSecret' })).toBe(
        'OVH refused the request signature (HTTP 400): check app_secret.',
      );
    });

    it.each(['app_key', 'consumer_key'])(
      'reports a wrong %s as refused credentials',
      async (name) => {
        expect(await ovh.adapter.test({ ...ovh.data, [name]: 'wrongKey' })).toBe(
          'OVH refused the credentials (HTTP 403): check app_key and consumer_key, and that the consumer key is granted /sms/*.',
        );
      },
    );

    it.each([500, 502])('reports a failing OVH (HTTP %i)', async (status) => {
      ovh.fake.failWith = status;

      expect(await ovh.adapter.test(ovh.data)).toBe(
        `OVH answered HTTP ${status}: it is failing on its side, try again later.`,
      );
    });

    it('reports an OVH it cannot connect to, without throwing', async () => {
      const port = await closedPort();
      const offline = ovh.make(adapterConfig({ OVH_API_URL: `http://127.0.0.1:${port}/1.0` }));

      expect(await offline.test(ovh.data)).toBe(
        `Could not reach OVH at http://127.0.0.1:${port}/1.0 (connection refused).`,
      );
    });

    it('gives up on an OVH that never answers within the provider timeout', async () => {
      const silent = await startSilentServer();
      const hanging = ovh.make(
        adapterConfig({ OVH_API_URL: `${silent.url}/1.0`, PROVIDER_TIMEOUT_MS: '200' }),
      );

      try {
        expect(await hanging.test(ovh.data)).toBe(
          `Could not reach OVH at ${silent.url}/1.0 within 200 ms.`,
        );
      } finally {
        await silent.close();
      }
    });
  });

  describe('checkStatus', () => {
    it('reports a service with credits as available', async () => {
      expect(await ovh.adapter.checkStatus(ovh.data)).toBe('available');
    });

    it.each([0, -3])('reports a service with %p credits left as no_credit', async (credits) => {
      ovh.fake.services.get(FakeOvh.SERVICE)!.creditsLeft = credits;

      expect(await ovh.adapter.checkStatus(ovh.data)).toBe('no_credit');
    });

    it('reports an unknown service as unavailable', async () => {
      expect(await ovh.adapter.checkStatus({ ...ovh.data, service_name: 'sms-zz99999-1' })).toBe(
        'unavailable',
      );
    });

    it('reports a failing OVH as unavailable', async () => {
      ovh.fake.failWith = 500;

      expect(await ovh.adapter.checkStatus(ovh.data)).toBe('unavailable');
    });

    it('reports an unreachable OVH as unavailable', async () => {
      const port = await closedPort();
      const offline = ovh.make(adapterConfig({ OVH_API_URL: `http://127.0.0.1:${port}/1.0` }));

      expect(await offline.checkStatus(ovh.data)).toBe('unavailable');
    });

    it('reports an OVH that never answers as unavailable', async () => {
      const silent = await startSilentServer();
      const hanging = ovh.make(
        adapterConfig({ OVH_API_URL: `${silent.url}/1.0`, PROVIDER_TIMEOUT_MS: '200' }),
      );

      try {
        expect(await hanging.checkStatus(ovh.data)).toBe('unavailable');
      } finally {
        await silent.close();
      }
    });
  });
}

/**
 * Sends the phone's data dooms fail for good, as the phone's, before any call to OVH: a missing
 * credential for both adapters, and the `refusals` of the spec's own adapter (what the data
 * changes, and the reason given).
 */
export function itRefusesDataBeforeCallingOvh(
  ovh: OvhFixture<OvhSmsAdapter>,
  refusals: Array<[string, AdapterData, string]>,
): void {
  it.each<[string, AdapterData, string]>([
    ['a missing app_secret', { app_secret: '' }, 'app_secret is required.'],
    ...refusals,
  ])('fails for good on %s, without calling OVH', async (_, change, reason) => {
    expect(await ovh.adapter.send({ ...ovh.data, ...change }, outgoingSms())).toEqual({
      outcome: 'permanent',
      reason,
      cause: 'phone',
    });
    expect(ovh.fake.calls).toHaveLength(0);
  });
}
