import { MAY_HAVE_BEEN_SENT } from '../provider-http';
import { Logger } from '@nestjs/common';
import {
  DLR_TYPE_STATUSES,
  FakeOvh,
  RecordingSink,
  adapterConfig,
  closedPort,
  expectStopToAwaitHeldRound,
  outgoingSms,
  startFakeServer,
} from '../../../test/support/adapters.factories';
import {
  describeTheOvhService,
  itRefusesDataBeforeCallingOvh,
  useFakeOvh,
} from '../../../test/support/ovh-service';
import { CallbackRequest } from '../adapter';
import { MAX_EXCERPT_CHARS } from '../../common/net/http-answers';
import { OvhShortcodeAdapter } from './ovh-shortcode.adapter';

const DATA = FakeOvh.data();
const INBOX = `/sms/${FakeOvh.SERVICE}`;
const PHONE = { id: 7, id_user: 1, data: DATA };

/** A receipt as OVH calls the service's callBack URL. */
const receipt = (query: Record<string, string>): CallbackRequest => ({
  method: 'GET',
  url: `/callback/status/ovh_shortcode/?${new URLSearchParams(query).toString()}`,
  headers: {},
  query,
  form: {},
  rawBody: '',
});

describe('OvhShortcodeAdapter', () => {
  const ovh = useFakeOvh((config) => new OvhShortcodeAdapter(config), DATA);
  let errors: jest.SpyInstance;

  beforeEach(() => {
    errors = jest.spyOn(Logger.prototype, 'error').mockImplementation(() => undefined);
  });

  afterEach(() => {
    errors.mockRestore();
  });

  const paths = () => ovh.fake.calls.map(({ method, path }) => `${method} ${path}`);

  describeTheOvhService(ovh);

  describe('test', () => {
    it('accepts credentials that reach the service when no sender is given', async () => {
      expect(await ovh.adapter.test(DATA)).toBeNull();
      expect(paths()).toEqual(['GET /auth/time', `GET /sms/${FakeOvh.SERVICE}`]);
    });

    it('accepts a sender registered on the service', async () => {
      expect(await ovh.adapter.test({ ...DATA, sender: 'SMSGW' })).toBeNull();
      expect(paths()).toEqual([
        'GET /auth/time',
        `GET /sms/${FakeOvh.SERVICE}`,
        `GET /sms/${FakeOvh.SERVICE}/senders/SMSGW`,
      ]);
    });

    it('reports a sender the service does not have', async () => {
      expect(await ovh.adapter.test({ ...DATA, sender: 'OTHER' })).toBe(
        `OTHER is not a sender of OVH SMS service ${FakeOvh.SERVICE}: check sender.`,
      );
    });

    it.each(['AB', 'TWELVE_CHARS'])(
      'refuses sender %p, outside 3 to 11 characters, without calling OVH',
      async (sender) => {
        expect(await ovh.adapter.test({ ...DATA, sender })).toBe(
          'sender must be 3 to 11 characters long.',
        );
        expect(ovh.fake.calls).toHaveLength(0);
      },
    );

    it('names a missing required field', async () => {
      expect(await ovh.adapter.test({ ...DATA, service_name: '' })).toBe(
        'service_name is required.',
      );
    });
  });

  describe('send', () => {
    it('posts a job from a short code that can be answered when no sender is given', async () => {
      const result = await ovh.adapter.send(DATA, outgoingSms({ text: 'Hello there' }));

      expect(result).toEqual({ outcome: 'sent', uid: '7000001' });
      expect(ovh.fake.jobs).toEqual([
        {
          path: `${INBOX}/jobs`,
          body: {
            message: 'Hello there',
            receivers: ['+33687654321'],
            coding: '7bit',
            senderForResponse: true,
          },
        },
      ]);
    });

    it('posts a job from the sender name when one is given', async () => {
      await ovh.adapter.send({ ...DATA, sender: 'SMSGW' }, outgoingSms());

      expect(ovh.fake.jobs[0].body).toEqual({
        message: 'Hello',
        receivers: ['+33687654321'],
        coding: '7bit',
        senderForResponse: false,
        sender: 'SMSGW',
      });
    });

    it("asks OVH to leave out its STOP clause when no_stop_clause is set, as RaspiSMS's field did", async () => {
      await ovh.adapter.send({ ...DATA, no_stop_clause: '1' }, outgoingSms());
      await ovh.adapter.send({ ...DATA, no_stop_clause: '0' }, outgoingSms());

      expect(
        ovh.fake.jobs.map((job) => (job.body as { noStopClause?: boolean }).noStopClause),
      ).toEqual([true, undefined]);
    });

    it('asks for a flash SMS with the flash class, and lets OVH pick Unicode for other texts', async () => {
      await ovh.adapter.send(DATA, outgoingSms({ text: 'Ça marche 🎉', flash: true }));

      expect(ovh.fake.jobs[0].body).toEqual({
        message: 'Ça marche 🎉',
        receivers: ['+33687654321'],
        class: 'flash',
        senderForResponse: true,
      });
    });

    it('says that it can send flash SMS', () => {
      expect(ovh.adapter.capabilities).toEqual({ flash: true, mms: false });
    });

    it('fails for good on a receiver OVH reports invalid', async () => {
      expect(await ovh.adapter.send(DATA, outgoingSms({ destination: '+1234' }))).toEqual({
        outcome: 'permanent',
        reason: 'OVH refused the receiver +1234 as invalid: check the number.',
        cause: 'recipient',
      });
    });

    it.each(['app_key', 'consumer_key'])(
      'fails for good, naming the credentials, when OVH refuses the %s',
      async (name) => {
        expect(await ovh.adapter.send({ ...DATA, [name]: 'wrongKey' }, outgoingSms())).toEqual({
          outcome: 'permanent',
          reason:
            'OVH refused the credentials (HTTP 403): check app_key, app_secret and consumer_key, and that the consumer key is granted POST on /sms/*.',
          cause: 'phone',
        });
      },
    );

    it('fails for good on a refused signature, naming app_secret', async () => {
      expect(await ovh.adapter.send({ ...DATA, app_secret: 'wrongSecret' }, outgoingSms())).toEqual(
        {
          outcome: 'permanent',
          reason: 'OVH refused the request signature (HTTP 400): check app_secret.',
          cause: 'phone',
        },
      );
    });

    it('fails for good on a service OVH does not have, naming service_name', async () => {
      expect(
        await ovh.adapter.send({ ...DATA, service_name: 'sms-zz99999-1' }, outgoingSms()),
      ).toEqual({
        outcome: 'permanent',
        reason:
          'OVH has no SMS service sms-zz99999-1 for these credentials (HTTP 404): check service_name.',
        cause: 'phone',
      });
    });

    it("fails for good on a job OVH refuses, with OVH's reason", async () => {
      ovh.fake.jobReply = { status: 400, body: { message: 'Sender SMSGW is not validated.' } };

      expect(await ovh.adapter.send({ ...DATA, sender: 'SMSGW' }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason:
          'OVH refused the message (HTTP 400: Sender SMSGW is not validated): check the message and the adapter data.',
        cause: 'phone',
      });
    });

    it("quotes at most an excerpt of OVH's reason, on one line", async () => {
      ovh.fake.jobReply = {
        status: 400,
        body: { message: `Sender\tSMSGW\u001b[2J is\nnot validated ${'z'.repeat(5000)}` },
      };
      const said = 'Sender SMSGW [2J is not validated ';

      expect(await ovh.adapter.send({ ...DATA, sender: 'SMSGW' }, outgoingSms())).toEqual({
        outcome: 'permanent',
        reason: `OVH refused the message (HTTP 400: ${said}${'z'.repeat(MAX_EXCERPT_CHARS - 1 - said.length)}…): check the message and the adapter data.`,
        cause: 'phone',
      });
    });

    // Each refusal OVH answers a sending job, and whose it is (docs/adapters.md#refusals).
    it.each<[number, string, 'recipient' | 'phone']>([
      [400, 'Invalid signature', 'phone'],
      [400, 'Sender SMSGW is not validated.', 'phone'],
      [400, 'Not enough credits', 'phone'],
      [400, 'Message is too long', 'recipient'],
      [400, 'Invalid receivers', 'recipient'],
      [401, 'You must login first', 'phone'],
      [402, 'Payment required', 'phone'],
      [403, 'This call has not been granted', 'phone'],
      [409, 'Conflict', 'recipient'],
    ])('classifies HTTP %i "%s" as the %s refusing', async (status, message, cause) => {
      ovh.fake.jobReply = { status, body: { message } };

      expect(await ovh.adapter.send(DATA, outgoingSms())).toMatchObject({
        outcome: 'permanent',
        cause,
      });
    });

    it.each([429, 503])('tries again later when OVH answers HTTP %p', async (status) => {
      ovh.fake.jobReply = { status, body: { message: 'Try later' } };

      expect((await ovh.adapter.send(DATA, outgoingSms())).outcome).toBe('transient');
    });

    it('does not send again a job OVH accepted without an id, which cannot be followed', async () => {
      ovh.fake.jobReply = { status: 200, body: { ids: [], invalidReceivers: [] } };

      expect(await ovh.adapter.send(DATA, outgoingSms())).toEqual({
        outcome: 'ambiguous',
        reason:
          'OVH accepted the message without giving its id, so smsgw cannot follow it: check the outgoing messages in the OVH control panel.',
      });
    });

    it('tries again later when OVH refuses the connection', async () => {
      const port = await closedPort();
      const offline = new OvhShortcodeAdapter(
        adapterConfig({ OVH_API_URL: `http://127.0.0.1:${port}/1.0` }),
      );

      expect(await offline.send(DATA, outgoingSms())).toEqual({
        outcome: 'transient',
        reason: `Could not reach OVH at http://127.0.0.1:${port}/1.0 (connection refused).`,
      });
    });

    it('does not send again a job OVH did not answer within the provider timeout: it may have it', async () => {
      let origin = '';
      const signing = new FakeOvh(() => origin);
      const unanswered: string[] = [];
      const silentOnJobs = await startFakeServer((request, response, body) => {
        if (request.method === 'POST') {
          unanswered.push(request.url ?? '');
          return;
        }
        return signing.handle(request, response, body);
      });
      origin = silentOnJobs.url;
      const impatient = new OvhShortcodeAdapter(
        adapterConfig({ OVH_API_URL: `${origin}/1.0`, PROVIDER_TIMEOUT_MS: '300' }),
      );

      try {
        expect(await impatient.send(DATA, outgoingSms())).toEqual({
          outcome: 'ambiguous',
          reason: `Could not reach OVH at ${origin}/1.0 within 300 ms. ${MAY_HAVE_BEEN_SENT}`,
        });
        expect(unanswered).toEqual([`/1.0${INBOX}/jobs`]);
      } finally {
        await silentOnJobs.close();
      }
    });

    itRefusesDataBeforeCallingOvh(ovh, [
      ['a sender too short', { sender: 'AB' }, 'sender must be 3 to 11 characters long.'],
    ]);
  });

  describe('parseStatusCallback', () => {
    it.each(DLR_TYPE_STATUSES)('reads dlr=%p as %p', (dlr, status) => {
      expect(ovh.adapter.parseStatusCallback(receipt({ id: '7000001', dlr }))).toEqual({
        uid: '7000001',
        status,
      });
    });

    it('reads a receipt without dlr as unknown', () => {
      expect(ovh.adapter.parseStatusCallback(receipt({ id: '7000001' }))).toEqual({
        uid: '7000001',
        status: 'unknown',
      });
    });

    it('ignores a request without the job id', () => {
      expect(ovh.adapter.parseStatusCallback(receipt({ dlr: '1' }))).toBeNull();
    });
  });

  describe('listen', () => {
    const message = (id: number, text: string, sender = '+33611111111') => ({
      id,
      creationDatetime: '2026-03-01T10:15:00+01:00',
      message: text,
      sender,
    });
    const paths = () => ovh.fake.calls.map(({ method, path }) => `${method} ${path}`);

    it('reports received messages in id order, in E.164 and UTC, then deletes them at OVH', async () => {
      ovh.fake.incoming.set(INBOX, [message(12, 'second'), message(11, 'first', '0033622222222')]);
      const sink = new RecordingSink();

      const stop = ovh.listen(PHONE, sink);
      await sink.calls(2);
      await stop();

      expect(sink.messages).toEqual([
        { origin: '+33622222222', text: 'first', at: '2026-03-01 09:15:00' },
        { origin: '+33611111111', text: 'second', at: '2026-03-01 09:15:00' },
      ]);
      expect(ovh.fake.incoming.get(INBOX)).toEqual([]);
      expect(
        paths()
          .filter((path) => !path.endsWith('/auth/time'))
          .slice(0, 5),
      ).toEqual([
        `GET ${INBOX}/incoming`,
        `GET ${INBOX}/incoming/11`,
        `DELETE ${INBOX}/incoming/11`,
        `GET ${INBOX}/incoming/12`,
        `DELETE ${INBOX}/incoming/12`,
      ]);
    });

    it('deletes a message at OVH only once the sink has stored it', async () => {
      ovh.fake.incoming.set(INBOX, [message(11, 'hello')]);
      const sink = new RecordingSink();
      sink.hold();

      const stop = ovh.listen(PHONE, sink);
      await sink.calls(1);
      expect(paths()).not.toContain(`DELETE ${INBOX}/incoming/11`);

      sink.release();
      await stop();
      expect(paths()).toContain(`DELETE ${INBOX}/incoming/11`);
    });

    it('keeps a message the sink failed to store at OVH, and reports it again next round', async () => {
      ovh.fake.incoming.set(INBOX, [message(11, 'hello')]);
      const sink = new RecordingSink();
      sink.failures = 1;

      const stop = ovh.listen(PHONE, sink);
      await sink.calls(2);
      await stop();

      expect(sink.messages.map(({ text }) => text)).toEqual(['hello', 'hello']);
      expect(paths().filter((path) => path.startsWith('DELETE'))).toEqual([
        `DELETE ${INBOX}/incoming/11`,
      ]);
      expect(errors).toHaveBeenCalledWith(
        expect.stringContaining('storing message 11 failed, it stays at OVH for the next round'),
      );
    });

    it('deletes again a stored message whose deletion failed, without reporting it twice', async () => {
      ovh.fake.incoming.set(INBOX, [message(11, 'hello')]);
      let deletions = 0;
      let secondDeletion!: () => void;
      const deletedTwice = new Promise<void>((resolve) => (secondDeletion = resolve));
      ovh.fake.failWhen = ({ method }) => {
        if (method !== 'DELETE') {
          return null;
        }
        deletions += 1;
        if (deletions === 2) {
          secondDeletion();
        }
        return deletions === 1 ? 503 : null;
      };
      const sink = new RecordingSink();

      const stop = ovh.listen(PHONE, sink);
      await deletedTwice;
      await stop();

      expect(sink.messages).toHaveLength(1);
      expect(ovh.fake.incoming.get(INBOX)).toEqual([]);
      expect(paths().filter((path) => path === `GET ${INBOX}/incoming/11`)).toHaveLength(1);
    });

    it('lets the round in progress store and delete its message before stopping', async () => {
      ovh.fake.incoming.set(INBOX, [message(11, 'hello')]);
      const sink = new RecordingSink();
      sink.hold();
      const stop = ovh.listen(PHONE, sink);
      await sink.calls(1);

      await expectStopToAwaitHeldRound(stop, sink);
      expect(ovh.fake.incoming.get(INBOX)).toEqual([]);
    });

    it('logs an OVH it cannot list, and reports nothing', async () => {
      ovh.fake.failWith = 500;
      let warned!: () => void;
      const warning = new Promise<void>((resolve) => (warned = resolve));
      ovh.warnings.mockImplementation(() => warned());
      const sink = new RecordingSink();

      const stop = ovh.listen(PHONE, sink);
      await warning;
      await stop();

      expect(ovh.warnings).toHaveBeenCalledWith(
        'OVH reception for phone 7: listing failed: OVH answered HTTP 500: it is failing on its side, try again later.',
      );
      expect(sink.messages).toEqual([]);
    });

    it('does not start without the data it needs, saying why', async () => {
      const stop = ovh.listen(
        { ...PHONE, data: { ...DATA, consumer_key: '' } },
        new RecordingSink(),
      );
      await stop();

      expect(ovh.warnings).toHaveBeenCalledWith(
        'OVH reception for phone 7 not started: consumer_key is required.',
      );
      expect(ovh.fake.calls).toHaveLength(0);
    });
  });
});
