import { MAY_HAVE_BEEN_SENT } from '../provider-http';
import { Logger } from '@nestjs/common';
import {
  FakeOvh,
  FakeServer,
  RecordingSink,
  adapterConfig,
  closedPort,
  outgoingSms,
  startFakeOvh,
  startSilentServer,
  trackListening,
} from '../../../test/support/adapters.factories';
import { OvhVirtualNumberAdapter } from './ovh-virtual-number.adapter';

const DATA = FakeOvh.data({ number: '+33612345678' });
const LINE = `/sms/${FakeOvh.SERVICE}/virtualNumbers/0033612345678`;

describe('OvhVirtualNumberAdapter', () => {
  let fake: FakeOvh;
  let server: FakeServer;
  let adapter: OvhVirtualNumberAdapter;
  let warnings: jest.SpyInstance;

  beforeEach(async () => {
    ({ fake, server } = await startFakeOvh());
    adapter = new OvhVirtualNumberAdapter(
      adapterConfig({ OVH_API_URL: `${server.url}/1.0`, PROVIDER_POLL_INTERVAL_MS: '20' }),
    );
    warnings = jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  const { listen, stopAll } = trackListening(
    (...args: Parameters<OvhVirtualNumberAdapter['listen']>) => adapter.listen(...args),
  );

  afterEach(async () => {
    await stopAll();
    warnings.mockRestore();
    await server.close();
  });

  describe('test', () => {
    it("accepts credentials whose service has the virtual number, signing with OVH's time", async () => {
      expect(await adapter.test(DATA)).toBeNull();
      expect(fake.calls.map(({ method, path }) => `${method} ${path}`)).toEqual([
        'GET /auth/time',
        `GET /sms/${FakeOvh.SERVICE}`,
        `GET /sms/${FakeOvh.SERVICE}/virtualNumbers/0033612345678`,
      ]);
    });

    it('reports a virtual number the service does not have', async () => {
      expect(await adapter.test({ ...DATA, number: '+33700000000' })).toBe(
        `The number +33700000000 is not a virtual number of OVH SMS service ${FakeOvh.SERVICE}: check number.`,
      );
    });

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

    it.each(['app_key', 'consumer_key'])(
      'reports a wrong %s as refused credentials',
      async (name) => {
        expect(await adapter.test({ ...DATA, [name]: 'wrongKey' })).toBe(
          'OVH refused the credentials (HTTP 403): check app_key and consumer_key, and that the consumer key is granted /sms/*.',
        );
      },
    );

    it('refuses a credential that cannot travel in a header, without calling OVH', async () => {
      expect(await adapter.test({ ...DATA, consumer_key: 'two words' })).toBe(
        'consumer_key must be made of letters, digits and symbols, without spaces.',
      );
      expect(fake.calls).toHaveLength(0);
    });

    it('reports a failing OVH', async () => {
      fake.failWith = 502;

      expect(await adapter.test(DATA)).toBe(
        'OVH answered HTTP 502: it is failing on its side, try again later.',
      );
    });

    it('reports an OVH it cannot connect to, without throwing', async () => {
      const port = await closedPort();
      const offline = new OvhVirtualNumberAdapter(
        adapterConfig({ OVH_API_URL: `http://127.0.0.1:${port}/1.0` }),
      );

      expect(await offline.test(DATA)).toBe(
        `Could not reach OVH at http://127.0.0.1:${port}/1.0 (connection refused).`,
      );
    });

    it('gives up on an OVH that never answers within the provider timeout', async () => {
      const silent = await startSilentServer();
      const hanging = new OvhVirtualNumberAdapter(
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
      expect(await adapter.test({ ...DATA, number: '' })).toBe('number is required.');
    });
  });

  describe('checkStatus', () => {
    it('reports a service with credits as available', async () => {
      expect(await adapter.checkStatus(DATA)).toBe('available');
    });

    it.each([0, -3])('reports a service with %p credits left as no_credit', async (credits) => {
      fake.services.get(FakeOvh.SERVICE)!.creditsLeft = credits;

      expect(await adapter.checkStatus(DATA)).toBe('no_credit');
    });

    it('reports refused credentials as unavailable, logging no secret', async () => {
      expect(await adapter.checkStatus({ ...DATA, consumer_key: 'wrongKey' })).toBe('unavailable');
      expect(warnings).toHaveBeenCalled();
      expect(JSON.stringify(warnings.mock.calls)).not.toMatch(/wrongKey|fakeAppSecret/);
    });

    it('reports a failing OVH as unavailable', async () => {
      fake.failWith = 500;

      expect(await adapter.checkStatus(DATA)).toBe('unavailable');
    });

    it('reports an unreachable OVH as unavailable', async () => {
      const port = await closedPort();
      const offline = new OvhVirtualNumberAdapter(
        adapterConfig({ OVH_API_URL: `http://127.0.0.1:${port}/1.0` }),
      );

      expect(await offline.checkStatus(DATA)).toBe('unavailable');
    });
  });

  describe('send', () => {
    it("posts a job on the virtual number's line, its number with the 00 prefix", async () => {
      const result = await adapter.send(DATA, outgoingSms({ text: 'Rendez-vous à 10h' }));

      expect(result).toEqual({ outcome: 'sent', uid: '7000001' });
      expect(fake.jobs).toEqual([
        {
          path: `${LINE}/jobs`,
          body: { message: 'Rendez-vous à 10h', receivers: ['+33687654321'], coding: '7bit' },
        },
      ]);
    });

    it.each([
      [299, 4],
      [30, 1],
      [604_800, 10_080],
    ])(
      'passes %p seconds of validity left as a validityPeriod of %p minutes',
      async (seconds, minutes) => {
        await adapter.send(DATA, outgoingSms({ validitySeconds: seconds }));

        expect(fake.jobs[0].body).toMatchObject({ validityPeriod: minutes });
      },
    );

    it('sends no validityPeriod for a message without validity', async () => {
      await adapter.send(DATA, outgoingSms({ validitySeconds: null }));

      expect(fake.jobs[0].body).not.toHaveProperty('validityPeriod');
    });

    it('asks for a flash SMS with the flash class', async () => {
      await adapter.send(DATA, outgoingSms({ flash: true }));

      expect(fake.jobs[0].body).toMatchObject({ class: 'flash' });
      expect(adapter.capabilities.flash).toBe(true);
    });

    it('fails for good on a number the service does not have, naming service_name and number', async () => {
      expect(await adapter.send({ ...DATA, number: '+33700000000' }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: `OVH has no virtual number +33700000000 on SMS service ${FakeOvh.SERVICE} for these credentials (HTTP 404): check service_name and number.`,
        cause: 'phone',
      });
    });

    it('does not send again a job whose gateway failed (502): OVH may have it', async () => {
      fake.jobReply = { status: 502, body: { message: 'Bad gateway' } };

      expect(await adapter.send(DATA, outgoingSms())).toEqual({
        outcome: 'ambiguous',
        reason: `OVH answered HTTP 502: it is failing on its side, try again later. ${MAY_HAVE_BEEN_SENT}`,
      });
    });

    it('fails for good without the number, without calling OVH', async () => {
      expect(await adapter.send({ ...DATA, number: '' }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: 'number is required.',
        cause: 'phone',
      });
      expect(fake.calls).toHaveLength(0);
    });
  });

  describe('parseStatusCallback', () => {
    it('reads the job id and dlr OVH calls the service callBack URL with', () => {
      expect(
        adapter.parseStatusCallback({
          method: 'GET',
          url: '/callback/status/ovh_virtual_number/?id=7000001&dlr=2',
          headers: {},
          query: { id: '7000001', dlr: '2' },
          form: {},
          rawBody: '',
        }),
      ).toEqual({ uid: '7000001', status: 'failed' });
    });
  });

  describe('listen', () => {
    it("reports the messages sent to the virtual number and deletes them from the number's inbox", async () => {
      fake.incoming.set(LINE, [
        {
          id: 5,
          creationDatetime: '2026-07-14T23:30:00+02:00',
          message: 'Oui',
          sender: '+33611111111',
        },
      ]);
      const sink = new RecordingSink();

      const stop = listen({ id: 3, id_user: 1, data: DATA }, sink);
      await sink.calls(1);
      await stop();

      expect(sink.messages).toEqual([
        { origin: '+33611111111', text: 'Oui', at: '2026-07-14 21:30:00' },
      ]);
      expect(fake.incoming.get(LINE)).toEqual([]);
      expect(fake.calls.map(({ method, path }) => `${method} ${path}`)).toContain(
        `DELETE ${LINE}/incoming/5`,
      );
    });
  });
});
