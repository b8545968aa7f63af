import { DateTime } from 'luxon';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { MESSAGE_EXPIRED } from '../../src/dispatch/validity';
import { FakeServer, startFakeServer } from '../support/adapters.factories';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { expectError, INVALID } from '../support/envelope';
import { makePhone, makeQuota, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';

/*
 * A message's validity (docs/dispatch.md#validity) through the HTTP API and the inline worker,
 * on every engine: time is set by writing `at` in the past, never by waiting.
 */

interface Entry {
  id: number;
  destination: string;
  status: string;
  error: string | null;
  adapter: string;
}

/** `minutes` from now in the service time zone (UTC here), as `at` takes it. */
const atFromNow = (minutes: number) =>
  DateTime.utc().plus({ minutes }).toFormat('yyyy-MM-dd HH:mm:ss');

const BAD_VALIDITY =
  `${INVALID}validity must be a whole number of minutes from 1 to 10080 (7 days), counted ` +
  "from the message's at, or left out for no limit; got ";

describeEachDatabase('validity (inline worker)', (database) => {
  let t: TestApp;
  let ds: DataSource;
  let kannel: FakeServer;
  /** The query of each sendsms request the Kannel fake received. */
  let kannelRequests: URLSearchParams[];
  /** What the Kannel fake answers to every send. */
  let kannelAnswer: [number, string];

  beforeAll(async () => {
    t = await startApp(database(), {
      WORKER: 'inline',
      DISPATCH_POLL_MS: '20',
      // A retry comes 10 minutes after a transient failure: after a 5-minute validity.
      DISPATCH_RETRY_BASE_MS: '600000',
      DISPATCH_MAX_ATTEMPTS: '5',
      TZ: 'UTC',
    });
    ds = t.dataSource;
    kannel = await startFakeServer((incoming, response) => {
      kannelRequests.push(new URL(incoming.url ?? '/', 'http://kannel').searchParams);
      response.writeHead(kannelAnswer[0], { 'Content-Type': 'text/plain' });
      response.end(kannelAnswer[1]);
    });
  });
  afterAll(async () => {
    await t.close();
    await kannel.close();
  });
  beforeEach(() => {
    kannelRequests = [];
    kannelAnswer = [202, '0: Accepted for delivery'];
  });

  const kannelPhone = (userId: number) =>
    makePhone(ds, userId, {
      adapter: 'kannel',
      adapter_data: JSON.stringify({
        kannel_sendsms_url: `${kannel.url}/cgi-bin/sendsms`,
        username: 'smsgw',
        password: 'secret',
        from: 'smsgw',
      }),
    });

  const schedule = async (apiKey: string, body: Record<string, unknown>): Promise<number> => {
    const response = await api(t, apiKey).json('/api/scheduled/', body);
    expect(response.status).toBe(201);
    return (response.body as { response: number }).response;
  };

  /** smsgw_sends_expired_total of recipients no phone was chosen for, as /metrics shows it now. */
  const expiredCount = async (): Promise<number> => {
    const { text } = await request(t.url).get('/metrics').expect(200);
    const match = /^smsgw_sends_expired_total\{adapter="none"\} (\d+)$/m.exec(text);
    return match ? Number(match[1]) : 0;
  };

  /** The user's entries once there are `count`, in id order. */
  const dispatched = async (userId: number, count: number): Promise<Entry[]> => {
    let entries: Entry[] = [];
    await waitFor(async () => {
      entries = await ds.query<Entry[]>(
        'SELECT id, destination, status, error, adapter FROM sended WHERE id_user = ? ORDER BY id',
        [userId],
      );
      return entries.length >= count;
    }, `${count} sent entries`);
    return entries;
  };

  describe('the parameter', () => {
    it('is listed with the scheduled message, null when absent, and changed or removed by an update', async () => {
      const { apiKey } = await makeUser(ds);
      const later = atFromNow(60 * 24);
      const withValidity = await schedule(apiKey, {
        text: 'Hi',
        numbers: ['+33612345678'],
        at: later,
        validity: 30,
      });
      const without = await schedule(apiKey, { text: 'Hi', numbers: ['+33612345678'], at: later });

      const listed = await api(t, apiKey).list<{ id: number; validity: number | null }>(
        'scheduled',
      );
      expect(listed.map(({ id, validity }) => [id, validity])).toEqual([
        [withValidity, 30],
        [without, null],
      ]);
      const updated = await api(t, apiKey)
        .form(`/api/scheduled/${without}/`)
        .send({ validity: '90' });
      expect(updated.body.response).toMatchObject({ id: without, validity: 90 });
      const removed = await api(t, apiKey)
        .form(`/api/scheduled/${withValidity}/`)
        .send({ validity: '' });
      expect(removed.body.response).toMatchObject({ id: withValidity, validity: null });
    });

    it("is read from get_send_sms' query string, and the message sent with what is left of it", async () => {
      const { user, apiKey } = await makeUser(ds);
      await kannelPhone(user.id);

      await api(t, apiKey)
        .get('/api/send-sms/', { to: '+33612345678', text: 'Hi', validity: '1' })
        .expect(200);
      const [entry] = await dispatched(user.id, 1);

      expect(entry.status).toBe('unknown');
      // Less than a minute left: Kannel's least, one minute.
      expect(kannelRequests[0].get('validity')).toBe('1');
    });

    it("is refused from get_send_sms' query string out of 1 to 10080", async () => {
      const { apiKey } = await makeUser(ds);

      const response = await api(t, apiKey).get('/api/send-sms/', {
        to: '+33612345678',
        text: 'Hi',
        validity: '0',
      });

      expectError(response, 400, 2, `${BAD_VALIDITY}"0".`);
    });

    it.each([
      ['a form', 'form' as const, { validity: 'soon' }, '"soon".'],
      ['JSON', 'json' as const, { validity: 10081 }, '10081.'],
    ])(
      'is refused from %s out of 1 to 10080 with INVALID_PARAMETER naming it',
      async (_, kind, extra, got) => {
        const { apiKey } = await makeUser(ds);
        const body = { text: 'Hi', numbers: ['+33612345678'], ...extra };

        const response =
          kind === 'json'
            ? await api(t, apiKey).json('/api/scheduled/', body)
            : await api(t, apiKey).form('/api/scheduled/').send(body);

        expectError(response, 400, 2, `${BAD_VALIDITY}${got}`);
        expect(await api(t, apiKey).list('scheduled')).toEqual([]);
      },
    );
  });

  describe('the dispatch', () => {
    it('records a recipient whose message expired as failed, with its send_sms event, consuming no quota', async () => {
      const { user, apiKey } = await makeUser(ds);
      await kannelPhone(user.id);
      await makeQuota(ds, user.id, { credit: 10 });
      await api(t, apiKey)
        .json('/api/webhook/', { url: 'http://127.0.0.1:9/hook', type: 'send_sms' })
        .expect(201);
      const expiredBefore = await expiredCount();

      await schedule(apiKey, {
        text: 'Your code is 1234',
        numbers: ['+33612345678', '+33612345679'],
        at: atFromNow(-10),
        validity: 5,
      });
      const entries = await dispatched(user.id, 2);

      const expiredAt = DateTime.utc().minus({ minutes: 5 });
      expect(entries.map((entry) => [entry.destination, entry.status])).toEqual([
        ['+33612345678', 'failed'],
        ['+33612345679', 'failed'],
      ]);
      expect(entries[0].error).toMatch(
        new RegExp(
          `^${MESSAGE_EXPIRED}: its validity ended at \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d\\.$`,
        ),
      );
      const ended = DateTime.fromFormat(
        entries[0].error?.slice(-20, -1) ?? '',
        'yyyy-MM-dd HH:mm:ss',
        {
          zone: 'UTC',
        },
      );
      expect(Math.abs(ended.diff(expiredAt, 'minutes').minutes)).toBeLessThan(1);
      expect(kannelRequests).toEqual([]);
      await waitFor(
        async () => (await expiredCount()) === expiredBefore + 2,
        'smsgw_sends_expired_total to count both',
      );
      const [quota] = await ds.query<
        Array<{ consumed: number | string; reserved: number | string }>
      >('SELECT consumed, reserved FROM quota WHERE id_user = ?', [user.id]);
      expect([Number(quota.consumed), Number(quota.reserved)]).toEqual([0, 0]);
      const events = await ds.query<Array<{ payload: string }>>(
        "SELECT payload FROM webhook_delivery WHERE id_user = ? AND event_type = 'send_sms' ORDER BY id",
        [user.id],
      );
      expect(events.map((event) => JSON.parse(event.payload) as Record<string, unknown>)).toEqual(
        entries.map((entry) =>
          expect.objectContaining({ id: entry.id, status: 'failed', error: entry.error }),
        ),
      );
    });

    it('sends a message due in the past whose validity has not ended, passing the time left to the provider', async () => {
      const { user, apiKey } = await makeUser(ds);
      await kannelPhone(user.id);

      await schedule(apiKey, {
        text: 'Hello',
        numbers: ['+33612345678'],
        at: atFromNow(-10),
        validity: 30,
      });
      const [entry] = await dispatched(user.id, 1);

      expect(entry).toMatchObject({ status: 'unknown', error: null, adapter: 'kannel' });
      // About 20 minutes left, rounded down to whole minutes.
      expect(['19', '20']).toContain(kannelRequests[0].get('validity'));
    });

    it('passes no validity to the provider for a message without one', async () => {
      const { user, apiKey } = await makeUser(ds);
      await kannelPhone(user.id);

      await schedule(apiKey, { text: 'Hello', numbers: ['+33612345678'], at: atFromNow(-10) });
      const [entry] = await dispatched(user.id, 1);

      expect(entry.status).toBe('unknown');
      expect(kannelRequests[0].has('validity')).toBe(false);
    });

    it("refuses a recipient whose paced phone's next sending slot comes after the message expires", async () => {
      const { user, apiKey } = await makeUser(ds);
      // One message every 103 seconds: the second recipient's slot is well past the validity.
      const phone = await makePhone(ds, user.id, {
        rate: 0.01,
        adapter_data: '{"delivery":"delivered"}',
      });
      await makeQuota(ds, user.id, { credit: 10 });

      await schedule(apiKey, {
        text: 'Hello',
        numbers: ['+33612345678', '+33612345679'],
        at: DateTime.utc().minus({ seconds: 30 }).toFormat('yyyy-MM-dd HH:mm:ss'),
        validity: 1,
      });
      // The refusal is recorded at the claim, before the first recipient's send is.
      const entries = (await dispatched(user.id, 2)).sort((a, b) =>
        a.destination.localeCompare(b.destination),
      );

      expect(entries.map((entry) => [entry.destination, entry.status])).toEqual([
        ['+33612345678', 'delivered'],
        ['+33612345679', 'failed'],
      ]);
      expect(entries[1].error).toMatch(
        new RegExp(
          `^${MESSAGE_EXPIRED}: its validity ends at .+, before the phone's sending slot at .+\\.$`,
        ),
      );
      const [quota] = await ds.query<
        Array<{ consumed: number | string; reserved: number | string }>
      >('SELECT consumed, reserved FROM quota WHERE id_user = ?', [user.id]);
      expect([Number(quota.consumed), Number(quota.reserved)]).toEqual([1, 0]);
      const [booked] = await ds.query<Array<{ n: number | string }>>(
        'SELECT COUNT(*) AS n FROM outbox WHERE via_phone = ?',
        [phone.id],
      );
      expect(Number(booked.n)).toBe(0);
    });

    it('stops retrying when the next attempt would come after the message expires', async () => {
      const { user, apiKey } = await makeUser(ds);
      await kannelPhone(user.id);
      await makeQuota(ds, user.id, { credit: 10 });
      kannelAnswer = [503, 'Service unavailable'];

      await schedule(apiKey, { text: 'Hello', numbers: ['+33612345678'], validity: 5 });
      const [entry] = await dispatched(user.id, 1);

      expect(kannelRequests).toHaveLength(1);
      expect(entry.status).toBe('failed');
      expect(entry.error).toMatch(
        new RegExp(
          `^${MESSAGE_EXPIRED}: its validity ends at .+, before its next attempt at .+ \\(attempt 1 failed: .*503.*\\)\\.$`,
        ),
      );
      const [quota] = await ds.query<
        Array<{ consumed: number | string; reserved: number | string }>
      >('SELECT consumed, reserved FROM quota WHERE id_user = ?', [user.id]);
      expect([Number(quota.consumed), Number(quota.reserved)]).toEqual([0, 0]);
    });
  });

  describe('a send whose turn comes after the expiry, though claimed before it', () => {
    let slow: TestApp;
    let provider: FakeServer;
    /** When the message expires (epoch ms): the fake answers no send before. */
    let expiresMs = 0;
    let taken: string[];

    beforeAll(async () => {
      slow = await startApp(database(), {
        WORKER: 'inline',
        DISPATCH_POLL_MS: '20',
        PROVIDER_TIMEOUT_MS: '10000',
        TZ: 'UTC',
      });
      provider = await startFakeServer(async (incoming, response) => {
        taken.push(new URL(incoming.url ?? '/', 'http://kannel').searchParams.get('to') ?? '');
        while (Date.now() <= expiresMs + 50) {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        response.writeHead(202, { 'Content-Type': 'text/plain' });
        response.end('0: Accepted for delivery');
      });
    });
    afterAll(async () => {
      await slow.close();
      await provider.close();
    });

    it('is never handed to the provider: the 33rd of a batch waits for one of 32 sends in flight', async () => {
      taken = [];
      const sds = slow.dataSource;
      const { user, apiKey } = await makeUser(sds);
      await makeQuota(sds, user.id, { credit: 100 });
      await makePhone(sds, user.id, {
        adapter: 'kannel',
        adapter_data: JSON.stringify({
          kannel_sendsms_url: `${provider.url}/cgi-bin/sendsms`,
          username: 'smsgw',
          password: 'secret',
          from: 'smsgw',
        }),
      });
      // Expires 5 to 6 seconds from now: time enough to claim the batch, on a loaded machine too.
      const at = DateTime.utc().minus({ seconds: 55 }).startOf('second');
      expiresMs = at.plus({ minutes: 1 }).toMillis();
      const to = Array.from(
        { length: 33 },
        (_, index) => `+336123456${String(index).padStart(2, '0')}`,
      );

      const response = await api(slow, apiKey).json('/api/scheduled/', {
        text: 'Hello',
        numbers: to,
        at: at.toFormat('yyyy-MM-dd HH:mm:ss'),
        validity: 1,
      });
      expect(response.status).toBe(201);
      let entries: Entry[] = [];
      await waitFor(async () => {
        entries = await sds.query<Entry[]>(
          'SELECT id, destination, status, error, adapter FROM sended WHERE id_user = ? ORDER BY id',
          [user.id],
        );
        return entries.length === 33;
      }, '33 sent entries');

      expect(taken).toHaveLength(32);
      const expired = entries.filter((entry) => entry.status === 'failed');
      expect(expired).toHaveLength(1);
      expect(taken).not.toContain(expired[0].destination);
      expect(expired[0]).toMatchObject({
        adapter: 'kannel',
        error: expect.stringMatching(new RegExp(`^${MESSAGE_EXPIRED}: its validity ended at `)),
      });
      const [quota] = await sds.query<
        Array<{ consumed: number | string; reserved: number | string }>
      >('SELECT consumed, reserved FROM quota WHERE id_user = ?', [user.id]);
      expect([Number(quota.consumed), Number(quota.reserved)]).toEqual([32, 0]);
    });
  });
});
