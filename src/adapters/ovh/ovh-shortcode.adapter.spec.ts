import { Logger } from '@nestjs/common';
import {
  FakeOvh,
  FakeServer,
  adapterConfig,
  closedPort,
  startFakeOvh,
  startSilentServer,
} from '../../../test/support/adapters.factories';
import { OvhShortcodeAdapter } from './ovh-shortcode.adapter';

const DATA = FakeOvh.data();

describe('OvhShortcodeAdapter', () => {
  let fake: FakeOvh;
  let server: FakeServer;
  let adapter: OvhShortcodeAdapter;
  let warnings: jest.SpyInstance;

  beforeEach(async () => {
    ({ fake, server } = await startFakeOvh());
    adapter = new OvhShortcodeAdapter(adapterConfig({ OVH_API_URL: `${server.url}/1.0` }));
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(async () => {
    warnings.mockRestore();
    await server.close();
  });

  const paths = () => fake.calls.map(({ method, path }) => `${method} ${path}`);

  describe('test', () => {
    it('accepts credentials that reach the service when no sender is given', async () => {
      expect(await adapter.test(DATA)).toBeNull();
      expect(paths()).toEqual(['GET /auth/time', `GET /sms/${FakeOvh.SERVICE}`]);
    });

    it('accepts a sender registered on the service', async () => {
      expect(await adapter.test({ ...DATA, sender: 'SMSGW' })).toBeNull();
      expect(paths()).toEqual([
        'GET /auth/time',
        `GET /sms/${FakeOvh.SERVICE}`,
        `GET /sms/${FakeOvh.SERVICE}/senders/SMSGW`,
      ]);
    });

    it('reports a sender the service does not have', async () => {
      expect(await adapter.test({ ...DATA, sender: 'OTHER' })).toBe(
        `OTHER is not a sender of OVH SMS service ${FakeOvh.SERVICE}: check sender.`,
      );
    });

    it.each(['AB', 'TWELVE_CHARS'])(
      'refuses sender %p, outside 3 to 11 characters, without calling OVH',
      async (sender) => {
        expect(await adapter.test({ ...DATA, sender })).toBe(
          'sender must be 3 to 11 characters long.',
        );
        expect(fake.calls).toHaveLength(0);
      },
    );

    it('reports a service the credentials do not reach', async () => {
      expect(await adapter.test({ ...DATA, service_name: 'sms-zz99999-1' })).toBe(
        'OVH has no SMS service sms-zz99999-1 for these credentials (HTTP 404): check service_name.',
      );
    });

    it('reports a wrong application secret as a refused signature', async () => {
      expect(await adapter.test({ ...DATA, app_secret: 'wrongSecret' })).toBe(
        'OVH refused the request signature (HTTP 400): check app_secret.',
      );
    });

    it('reports a wrong consumer key as refused credentials', async () => {
      expect(await adapter.test({ ...DATA, consumer_key: 'wrongKey' })).toBe(
        'OVH refused the credentials (HTTP 403): check app_key and consumer_key, and that the consumer key is granted /sms/*.',
      );
    });

    it('reports a failing OVH', async () => {
      fake.failWith = 500;

      expect(await adapter.test(DATA)).toBe(
        'OVH answered HTTP 500: it is failing on its side, try again later.',
      );
    });

    it('reports an OVH it cannot connect to, without throwing', async () => {
      const port = await closedPort();
      const offline = new OvhShortcodeAdapter(
        adapterConfig({ OVH_API_URL: `http://127.0.0.1:${port}/1.0` }),
      );

      expect(await offline.test(DATA)).toBe(
        `Could not reach OVH at http://127.0.0.1:${port}/1.0 (connection refused).`,
      );
    });

    it('gives up on an OVH that never answers within the provider timeout', async () => {
      const silent = await startSilentServer();
      const hanging = new OvhShortcodeAdapter(
        adapterConfig({ OVH_API_URL: `${silent.url}/1.0`, PROVIDER_TIMEOUT_MS: '200' }),
      );

      try {
        expect(await hanging.test(DATA)).toBe(
          `Could not reach OVH at ${silent.url}/1.0 within 200 ms.`,
        );
      } finally {
        await silent.close();
      }
    });

    it('names a missing required field', async () => {
      expect(await adapter.test({ ...DATA, service_name: '' })).toBe('service_name is required.');
    });
  });

  describe('checkStatus', () => {
    it('reports a service with credits as available', async () => {
      expect(await adapter.checkStatus(DATA)).toBe('available');
    });

    it('reports a service without credits as no_credit', async () => {
      fake.services.get(FakeOvh.SERVICE)!.creditsLeft = 0;

      expect(await adapter.checkStatus(DATA)).toBe('no_credit');
    });

    it('reports an unknown service as unavailable', async () => {
      expect(await adapter.checkStatus({ ...DATA, service_name: 'sms-zz99999-1' })).toBe(
        'unavailable',
      );
    });

    it('reports an OVH that never answers as unavailable', async () => {
      const silent = await startSilentServer();
      const hanging = new OvhShortcodeAdapter(
        adapterConfig({ OVH_API_URL: `${silent.url}/1.0`, PROVIDER_TIMEOUT_MS: '200' }),
      );

      try {
        expect(await hanging.checkStatus(DATA)).toBe('unavailable');
      } finally {
        await silent.close();
      }
    });
  });
});
