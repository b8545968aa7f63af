import { MAY_HAVE_BEEN_SENT } from '../provider-http';
import { FakeOvh, RecordingSink, outgoingSms } from '../../../test/support/adapters.factories';
import {
  describeTheOvhService,
  itRefusesDataBeforeCallingOvh,
  useFakeOvh,
} from '../../../test/support/ovh-service';
import { OvhVirtualNumberAdapter } from './ovh-virtual-number.adapter';

const DATA = FakeOvh.data({ number: '+33612345678' });
const LINE = `/sms/${FakeOvh.SERVICE}/virtualNumbers/0033612345678`;

describe('OvhVirtualNumberAdapter', () => {
  const ovh = useFakeOvh((config) => new OvhVirtualNumberAdapter(config), DATA);

  describeTheOvhService(ovh);

  describe('test', () => {
    it("accepts credentials whose service has the virtual number, signing with OVH's time", async () => {
      expect(await ovh.adapter.test(DATA)).toBeNull();
      expect(ovh.fake.calls.map(({ method, path }) => `${method} ${path}`)).toEqual([
        'GET /auth/time',
        `GET /sms/${FakeOvh.SERVICE}`,
        `GET /sms/${FakeOvh.SERVICE}/virtualNumbers/0033612345678`,
      ]);
    });

    it('reports a virtual number the service does not have', async () => {
      expect(await ovh.adapter.test({ ...DATA, number: '+33700000000' })).toBe(
        `The number +33700000000 is not a virtual number of OVH SMS service ${FakeOvh.SERVICE}: check number.`,
      );
    });

    it('refuses a credential that cannot travel in a header, without calling OVH', async () => {
      expect(await ovh.adapter.test({ ...DATA, consumer_key: 'two words' })).toBe(
        'consumer_key must be made of letters, digits and symbols, without spaces.',
      );
      expect(ovh.fake.calls).toHaveLength(0);
    });

    it('names a missing required field', async () => {
      expect(await ovh.adapter.test({ ...DATA, number: '' })).toBe('number is required.');
    });
  });

  describe('checkStatus', () => {
    it('reports refused credentials as unavailable, logging no secret', async () => {
      expect(await ovh.adapter.checkStatus({ ...DATA, consumer_key: 'wrongKey' })).toBe(
        'unavailable',
      );
      expect(ovh.warnings).toHaveBeenCalled();
      expect(JSON.stringify(ovh.warnings.mock.calls)).not.toMatch(/wrongKey|fakeAppSecret/);
    });
  });

  describe('send', () => {
    it("posts a job on the virtual number's line, its number with the 00 prefix", async () => {
      const result = await ovh.adapter.send(DATA, outgoingSms({ text: 'Rendez-vous à 10h' }));

      expect(result).toEqual({ outcome: 'sent', uid: '7000001' });
      expect(ovh.fake.jobs).toEqual([
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
        await ovh.adapter.send(DATA, outgoingSms({ validitySeconds: seconds }));

        expect(ovh.fake.jobs[0].body).toMatchObject({ validityPeriod: minutes });
      },
    );

    it('sends no validityPeriod for a message without validity', async () => {
      await ovh.adapter.send(DATA, outgoingSms({ validitySeconds: null }));

      expect(ovh.fake.jobs[0].body).not.toHaveProperty('validityPeriod');
    });

    it('asks for a flash SMS with the flash class', async () => {
      await ovh.adapter.send(DATA, outgoingSms({ flash: true }));

      expect(ovh.fake.jobs[0].body).toMatchObject({ class: 'flash' });
      expect(ovh.adapter.capabilities.flash).toBe(true);
    });

    it('fails for good on a number the service does not have, naming service_name and number', async () => {
      expect(await ovh.adapter.send({ ...DATA, number: '+33700000000' }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: `OVH has no virtual number +33700000000 on SMS service ${FakeOvh.SERVICE} for these credentials (HTTP 404): check service_name and number.`,
        cause: 'phone',
      });
    });

    it('does not send again a job whose gateway failed (502): OVH may have it', async () => {
      ovh.fake.jobReply = { status: 502, body: { message: 'Bad gateway' } };

      expect(await ovh.adapter.send(DATA, outgoingSms())).toEqual({
        outcome: 'ambiguous',
        reason: `OVH answered HTTP 502: it is failing on its side, try again later. ${MAY_HAVE_BEEN_SENT}`,
      });
    });

    itRefusesDataBeforeCallingOvh(ovh, [
      ['a missing number', { number: '' }, 'number is required.'],
    ]);
  });

  describe('parseStatusCallback', () => {
    it('reads the job id and dlr OVH calls the service callBack URL with', () => {
      expect(
        ovh.adapter.parseStatusCallback({
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
      ovh.fake.incoming.set(LINE, [
        {
          id: 5,
          creationDatetime: '2026-07-14T23:30:00+02:00',
          message: 'Oui',
          sender: '+33611111111',
        },
      ]);
      const sink = new RecordingSink();

      const stop = ovh.listen({ id: 3, id_user: 1, data: DATA }, sink);
      await sink.calls(1);
      await stop();

      expect(sink.messages).toEqual([
        { origin: '+33611111111', text: 'Oui', at: '2026-07-14 21:30:00' },
      ]);
      expect(ovh.fake.incoming.get(LINE)).toEqual([]);
      expect(ovh.fake.calls.map(({ method, path }) => `${method} ${path}`)).toContain(
        `DELETE ${LINE}/incoming/5`,
      );
    });
  });
});
