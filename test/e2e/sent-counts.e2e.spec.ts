import { DataSource } from 'typeorm';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { FakeServer, startFakeServer, kannelAdapterData } from '../support/adapters.factories';
import { describeEachDatabase } from '../support/databases';
import {
  makePhone,
  makePhoneGroup,
  makeQuota,
  makeScheduled,
  makeUser,
} from '../support/factories';
import { waitFor } from '../support/instruments';

/*
 * Usage, statistics and the sent listing count the same entries (docs/api.md#get_usage): after
 * sends that succeed or fail at the provider, refusals before any send, a template that fails for
 * one contact's data, a stored template that does not compile, sends given up after their
 * retries, an expired quota and a STOP-listed number, each phone has as many entries in the
 * listing as usage and statistics give it; the one entry no phone could take is listed with
 * `id_phone: null` and counted by neither.
 */

const LATER = '2999-01-01 00:00:00';

interface SendedEntry {
  id_phone: number | null;
  destination: string;
  status: string;
  error: string | null;
}

interface StatsRow {
  at_ymd: string;
  id_phone: number;
  status: string;
  nb: number;
}

describeEachDatabase('usage, statistics and the sent listing agree', (database) => {
  let t: TestApp;
  let ds: DataSource;
  let kannel: FakeServer;

  beforeAll(async () => {
    t = await startApp(database(), {
      WORKER: 'inline',
      DISPATCH_POLL_MS: '20',
      DISPATCH_RETRY_BASE_MS: '20',
      DISPATCH_MAX_ATTEMPTS: '2',
    });
    ds = t.dataSource;
    // One Kannel refuses every message, the other is always busy.
    kannel = await startFakeServer((incoming, response) => {
      const [status, text] = incoming.url?.startsWith('/busy/')
        ? [503, 'Service unavailable']
        : [400, 'Bad request'];
      response.writeHead(status, { 'Content-Type': 'text/plain' });
      response.end(text);
    });
  });
  afterAll(async () => {
    await t.close();
    await kannel.close();
  });

  const kannelPhone = (userId: number, path: string) =>
    makePhone(ds, userId, {
      adapter: 'kannel',
      adapter_data: kannelAdapterData(`${kannel.url}/${path}`),
    });

  const schedule = async (apiKey: string, body: Record<string, unknown>): Promise<void> => {
    const response = await api(t, apiKey, 'query').post('/api/scheduled/').send(body);
    expect(response.status).toBe(201);
  };

  const get = async <T>(apiKey: string, path: string, query: Record<string, string> = {}) => {
    const response = await api(t, apiKey, 'query').get(path, query);
    expect(response.status).toBe(200);
    return (response.body as { response: T }).response;
  };

  /** Makes a message stored by a factory due, once its recipients are linked. */
  const dueOnceLinked = async ({ id }: { id: number }) => {
    await ds.query('UPDATE scheduled SET at = ?, send_after = ? WHERE id = ?', [
      '2020-01-01 00:00:00',
      '2020-01-01 00:00:00',
      id,
    ]);
  };

  const listed = (apiKey: string) => get<SendedEntry[]>(apiKey, '/api/list/sended/');

  const dispatched = async (apiKey: string, count: number): Promise<SendedEntry[]> => {
    let entries: SendedEntry[] = [];
    await waitFor(async () => {
      entries = await listed(apiKey);
      return entries.length >= count;
    }, `${count} sent entries`);
    return entries;
  };

  it('gives each phone the same count in usage, in statistics and in the listing, whatever became of its messages', async () => {
    const { user, apiKey } = await makeUser(ds);
    const delivering = await makePhone(ds, user.id, { adapter_data: '{"delivery":"delivered"}' });
    const failing = await makePhone(ds, user.id, { adapter_data: '{"delivery":"failed"}' });
    const disabled = await makePhone(ds, user.id, { status: 'disabled' });
    const refusing = await kannelPhone(user.id, 'refuse');
    const busy = await kannelPhone(user.id, 'busy');
    const empty = await makePhoneGroup(ds, user.id, []);
    await ds.query('INSERT INTO smsstop (id_user, number, created_at) VALUES (?, ?, ?)', [
      user.id,
      '+33611111119',
      '2026-01-01 00:00:00',
    ]);

    // Delivered, and failed at the provider.
    await schedule(apiKey, {
      text: 'Hello',
      id_phone: delivering.id,
      numbers: ['+33611111101', '+33611111102'],
    });
    await schedule(apiKey, { text: 'Hello', id_phone: failing.id, numbers: ['+33611111103'] });
    // A render that fails for one contact's data only.
    await schedule(apiKey, {
      text: 'Your code starts with {{ contact.code|slice(0, 2) }}',
      id_phone: delivering.id,
      numbers: [
        { number: '+33611111104', data: '{"code":"AB12"}' },
        { number: '+33611111105', data: '{"code":1234}' },
      ],
    });
    // A template stored while templating was off, which post_scheduled now refuses.
    await dueOnceLinked(
      await makeScheduled(ds, user.id, {
        at: LATER,
        text: 'Hi {{ contact.firstname ',
        id_phone: delivering.id,
        numbers: [{ number: '+33611111106' }],
      }),
    );
    // Refused before any send, refused by the provider, given up after its retries.
    await schedule(apiKey, { text: 'Hello', id_phone: disabled.id, numbers: ['+33611111107'] });
    await schedule(apiKey, { text: 'Hello', id_phone: refusing.id, numbers: ['+33611111108'] });
    await schedule(apiKey, { text: 'Hello', id_phone: busy.id, numbers: ['+33611111109'] });
    // No phone to take it.
    await schedule(apiKey, { text: 'Hello', id_phone_group: empty.id, numbers: ['+33611111110'] });
    // A STOP-listed number has no entry at all.
    await schedule(apiKey, {
      text: 'Promo',
      id_phone: delivering.id,
      numbers: ['+33611111119', '+33611111111'],
    });
    await dispatched(apiKey, 11);
    // A quota that expired without renewal refuses what comes next.
    await makeQuota(ds, user.id, {
      start_date: '2020-01-01 00:00:00',
      expiration_date: '2020-02-01 00:00:00',
    });
    await schedule(apiKey, { text: 'Hello', id_phone: delivering.id, numbers: ['+33611111112'] });
    const entries = await dispatched(apiKey, 12);

    const usage = await get<{ total: number; phones_volumes: Record<string, number> }>(
      apiKey,
      '/api/usage/',
    );
    const stats = await get<StatsRow[]>(apiKey, '/api/stats/sms-status/', {
      start: '2000-01-01 00:00:00',
      end: '2999-12-31 23:59:59',
    });
    const perPhone = (phoneId: number) => ({
      listed: entries.filter((entry) => entry.id_phone === phoneId).length,
      usage: usage.phones_volumes[phoneId],
      stats: stats.filter((row) => row.id_phone === phoneId).reduce((sum, row) => sum + row.nb, 0),
    });

    expect(
      [delivering, failing, disabled, refusing, busy].map((phone) => perPhone(phone.id)),
    ).toEqual([7, 1, 1, 1, 1].map((count) => ({ listed: count, usage: count, stats: count })));
    expect(entries).toHaveLength(12);
    expect(usage.total).toBe(11);
    expect(stats.reduce((sum, row) => sum + row.nb, 0)).toBe(11);
    expect(entries.filter((entry) => entry.id_phone === null)).toEqual([
      expect.objectContaining({
        destination: '+33611111110',
        status: 'failed',
        error: 'No phone to send it: the phone group has no phone.',
      }),
    ]);
    // Each way an entry came to be is among them, on the phone its message named.
    const onPhone = (destination: string) =>
      entries.find((entry) => entry.destination === destination);
    expect(
      [
        '+33611111101',
        '+33611111103',
        '+33611111105',
        '+33611111106',
        '+33611111107',
        '+33611111108',
        '+33611111109',
        '+33611111112',
      ].map((destination) => [onPhone(destination)?.id_phone, onPhone(destination)?.status]),
    ).toEqual([
      [delivering.id, 'delivered'],
      [failing.id, 'failed'],
      [delivering.id, 'failed'],
      [delivering.id, 'failed'],
      [disabled.id, 'failed'],
      [refusing.id, 'failed'],
      [busy.id, 'failed'],
      [delivering.id, 'failed'],
    ]);
    expect(onPhone('+33611111109')?.error).toContain('gave up after 2 attempts');
    expect(onPhone('+33611111112')?.error).toMatch(/^The sending quota expired/);
    expect(onPhone('+33611111119')).toBeUndefined();
  });
});
