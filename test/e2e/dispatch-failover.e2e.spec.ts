import request from 'supertest';
import { DataSource } from 'typeorm';
import { FakeServer, kannelAdapterData, startFakeServer } from '../support/adapters.factories';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makePhone, makePhoneGroup, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';

/*
 * Failover (docs/dispatch.md#failover) through the HTTP API and the inline worker, on every
 * engine: `test` phones refusing as their `refusal` says, and a Kannel fake answering as Kannel
 * does when it refuses the phone's credentials, refuses the recipient, fails, or cannot say
 * whether it took the message.
 */

interface Entry {
  id: number;
  id_phone: number | null;
  status: string;
  error: string | null;
  refusals: Array<{ id_phone: number; adapter: string; at: string; reason: string }>;
}

const PHONE_REFUSAL =
  'The test adapter refused the message for a reason of the phone, as its refusal setting says.';

describeEachDatabase('failover (inline worker)', (database) => {
  let t: TestApp;
  let ds: DataSource;
  let kannel: FakeServer;
  /** What the Kannel fake answers to every send. */
  let kannelAnswer: [number, string];
  let kannelCalls: number;
  let receiver: FakeServer;
  /** The bodies of the send_sms events the receiver got. */
  const events: Array<Record<string, unknown>> = [];

  beforeAll(async () => {
    t = await startApp(database(), {
      WORKER: 'inline',
      DISPATCH_POLL_MS: '20',
      DISPATCH_MAX_ATTEMPTS: '2',
      DISPATCH_RETRY_BASE_MS: '20',
      PROVIDER_TIMEOUT_MS: '2000',
      TZ: 'UTC',
    });
    ds = t.dataSource;
    receiver = await startFakeServer((_incoming, response, body) => {
      events.push(
        JSON.parse(new URLSearchParams(body).get('body') ?? '{}') as Record<string, unknown>,
      );
      response.writeHead(200);
      response.end();
    });
    kannel = await startFakeServer((_incoming, response) => {
      kannelCalls += 1;
      response.writeHead(kannelAnswer[0], { 'Content-Type': 'text/plain' });
      response.end(kannelAnswer[1]);
    });
  });
  afterAll(async () => {
    await t.close();
    await kannel.close();
    await receiver.close();
  });
  beforeEach(() => {
    kannelCalls = 0;
    kannelAnswer = [202, '0: Accepted for delivery'];
  });

  /** A user whose phones are chosen by priority, highest first. */
  const prioritised = () => makeUser(ds, { settings: { phone_priority: '1' } });

  /** A `test` phone of `priority`, refusing as `refusal` says when given. */
  const testPhone = (userId: number, priority: number, refusal?: 'phone' | 'recipient') =>
    makePhone(ds, userId, {
      priority,
      adapter_data: JSON.stringify(refusal ? { refusal } : {}),
    });

  const sendNow = async (apiKey: string, query: Record<string, string> = {}) => {
    const response = await api(t, apiKey, 'query').get('/api/send-sms/', {
      to: '+33612345678',
      text: 'Hi',
      ...query,
    });
    expect(response.status).toBe(200);
  };

  /** The user's sent entries as get_entries lists them, once there are `count`. */
  const entries = async (apiKey: string, userId: number, count: number): Promise<Entry[]> => {
    await waitFor(async () => {
      const rows = await ds.query<unknown[]>('SELECT id FROM sended WHERE id_user = ?', [userId]);
      return rows.length >= count;
    }, `${count} sent entries`);
    return api(t, apiKey).list<Entry>('sended');
  };

  const refusalsOf = async (userId: number) =>
    (
      await ds.query<Array<{ id_phone: number }>>(
        'SELECT id_phone FROM send_refusal WHERE id_user = ? ORDER BY id',
        [userId],
      )
    ).map((row) => Number(row.id_phone));

  const failedOverCount = async (): Promise<number> => {
    const { text } = await request(t.url).get('/metrics').expect(200);
    const match = /^smsgw_sends_failed_over_total\{adapter="test"\} (\d+)$/m.exec(text);
    return match ? Number(match[1]) : 0;
  };

  it('goes through the next phone when its phone refuses it for a reason of the phone: one entry, the refusal in its detail', async () => {
    const { user, apiKey } = await prioritised();
    const refusing = await testPhone(user.id, 5, 'phone');
    const next = await testPhone(user.id, 1);
    const before = await failedOverCount();

    await sendNow(apiKey);

    const [entry, ...others] = await entries(apiKey, user.id, 1);
    expect(others).toEqual([]);
    expect(entry).toMatchObject({ id_phone: next.id, status: 'unknown', error: null });
    expect(entry.refusals).toEqual([
      {
        id_phone: refusing.id,
        adapter: 'test',
        at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        reason: PHONE_REFUSAL,
      },
    ]);
    expect(await refusalsOf(user.id)).toEqual([refusing.id]);
    expect(await failedOverCount()).toBe(before + 1);
  });

  it('tells the refusals in the send_sms event', async () => {
    const { user, apiKey } = await prioritised();
    const refusing = await testPhone(user.id, 5, 'phone');
    const next = await testPhone(user.id, 1);
    await api(t, apiKey)
      .json('/api/webhook/', { url: `${receiver.url}/events`, type: 'send_sms' })
      .expect(201);

    await sendNow(apiKey, { to: '+33699999999' });

    const [entry] = await entries(apiKey, user.id, 1);
    let event: Record<string, unknown> | undefined;
    await waitFor(() => {
      event = events.find((body) => body.id === entry.id);
      return Promise.resolve(event !== undefined);
    }, 'the send_sms event');
    expect(event).toMatchObject({ id_phone: next.id, refusals: entry.refusals });
    expect(entry.refusals.map((refusal) => refusal.id_phone)).toEqual([refusing.id]);
  });

  it('stops at a refusal for a reason of the recipient', async () => {
    const { user, apiKey } = await prioritised();
    const refusing = await testPhone(user.id, 5, 'recipient');
    await testPhone(user.id, 1);

    await sendNow(apiKey);

    const [entry, ...others] = await entries(apiKey, user.id, 1);
    expect(others).toEqual([]);
    expect(entry).toMatchObject({ id_phone: refusing.id, status: 'failed', refusals: [] });
    expect(entry.error).toMatch(/for a reason of the recipient/);
    expect(await refusalsOf(user.id)).toEqual([]);
  });

  it('never moves a message that names its phone', async () => {
    const { user, apiKey } = await prioritised();
    const named = await testPhone(user.id, 1, 'phone');
    await testPhone(user.id, 5);

    await sendNow(apiKey, { id_phone: String(named.id) });

    const [entry] = await entries(apiKey, user.id, 1);
    expect(entry).toMatchObject({ id_phone: named.id, status: 'failed', error: PHONE_REFUSAL });
    expect(entry.refusals).toEqual([]);
  });

  it('tries FAILOVER_PHONES phones at most: the last refusal is the entry, the earlier ones its detail', async () => {
    const { user, apiKey } = await prioritised();
    const first = await testPhone(user.id, 4, 'phone');
    const second = await testPhone(user.id, 3, 'phone');
    const third = await testPhone(user.id, 2, 'phone');
    await testPhone(user.id, 1);

    await sendNow(apiKey);

    const [entry, ...others] = await entries(apiKey, user.id, 1);
    expect(others).toEqual([]);
    expect(entry).toMatchObject({ id_phone: third.id, status: 'failed', error: PHONE_REFUSAL });
    expect(entry.refusals.map((refusal) => refusal.id_phone)).toEqual([first.id, second.id]);
    expect(await refusalsOf(user.id)).toEqual([first.id, second.id]);
  });

  it("stays within the message's phone group", async () => {
    const { user, apiKey } = await prioritised();
    const refusing = await testPhone(user.id, 3, 'phone');
    const member = await testPhone(user.id, 1);
    await testPhone(user.id, 5);
    const group = await makePhoneGroup(ds, user.id, [refusing.id, member.id]);

    const response = await api(t, apiKey).json('/api/scheduled/', {
      text: 'Hi',
      numbers: ['+33612345678'],
      id_phone_group: group.id,
    });
    expect(response.status).toBe(201);

    const [entry] = await entries(apiKey, user.id, 1);
    expect(entry).toMatchObject({ id_phone: member.id, status: 'unknown' });
    expect(entry.refusals.map((refusal) => refusal.id_phone)).toEqual([refusing.id]);
  });

  it('ends with the refusal when no other phone is available', async () => {
    const { user, apiKey } = await prioritised();
    const refusing = await testPhone(user.id, 5, 'phone');
    await makePhone(ds, user.id, { status: 'disabled' });

    await sendNow(apiKey);

    const [entry] = await entries(apiKey, user.id, 1);
    expect(entry).toMatchObject({ id_phone: refusing.id, status: 'failed', refusals: [] });
    expect(await refusalsOf(user.id)).toEqual([]);
  });

  describe('through a provider (the Kannel fake)', () => {
    const kannelFirst = async () => {
      const { user, apiKey } = await prioritised();
      const provider = await makePhone(ds, user.id, {
        adapter: 'kannel',
        adapter_data: kannelAdapterData(kannel.url),
        priority: 5,
      });
      const next = await testPhone(user.id, 1);
      return { user, apiKey, provider, next };
    };

    it('fails over when Kannel refuses the credentials (HTTP 403)', async () => {
      kannelAnswer = [403, 'Authorization failed for sendsms'];
      const { user, apiKey, provider, next } = await kannelFirst();

      await sendNow(apiKey);

      const [entry] = await entries(apiKey, user.id, 1);
      expect(entry).toMatchObject({ id_phone: next.id, status: 'unknown' });
      expect(entry.refusals).toEqual([
        expect.objectContaining({ id_phone: provider.id, adapter: 'kannel' }),
      ]);
      expect(entry.refusals[0].reason).toMatch(/HTTP 403/);
    });

    it('does not when Kannel refuses the recipient', async () => {
      kannelAnswer = [400, 'Number(s) has/have been denied by white- and/or black-lists.'];
      const { user, apiKey, provider } = await kannelFirst();

      await sendNow(apiKey);

      const [entry] = await entries(apiKey, user.id, 1);
      expect(entry).toMatchObject({ id_phone: provider.id, status: 'failed', refusals: [] });
    });

    it('fails over once transient failures used up their attempts', async () => {
      kannelAnswer = [503, 'Service Unavailable'];
      const { user, apiKey, provider, next } = await kannelFirst();

      await sendNow(apiKey);

      const [entry] = await entries(apiKey, user.id, 1);
      expect(kannelCalls).toBe(2);
      expect(entry).toMatchObject({ id_phone: next.id, status: 'unknown' });
      expect(entry.refusals).toEqual([
        expect.objectContaining({ id_phone: provider.id, adapter: 'kannel' }),
      ]);
      expect(entry.refusals[0].reason).toMatch(/\(gave up after 2 attempts\)$/);
    });

    it('never sends again what Kannel may have taken', async () => {
      kannelAnswer = [502, 'Bad Gateway'];
      const { user, apiKey, provider } = await kannelFirst();

      await sendNow(apiKey);

      const [entry] = await entries(apiKey, user.id, 1);
      expect(kannelCalls).toBe(1);
      expect(entry).toMatchObject({ id_phone: provider.id, status: 'unknown', refusals: [] });
    });
  });
});
