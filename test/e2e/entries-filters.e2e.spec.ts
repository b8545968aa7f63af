import request, { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { withQueries } from '../support/instruments';
import {
  insertRows,
  makeConditionalGroup,
  makeContact,
  makeGroup,
  makePhone,
  makePhoneGroup,
  makeReceived,
  makeScheduled,
  makeSended,
  makeUser,
} from '../support/factories';

/*
 * The filters of get_entries (docs/api.md#get_entries-filters) over real HTTP against the real
 * app, on every database engine: each filter, their combination, every paging mode with the
 * filters kept in next / prev, the refusals, and that no filter ever reaches another user's rows.
 */

type Row = Record<string, unknown>;

const INVALID_PARAMETER = 2;
const INVALID = 'You have specified an invalid parameter : ';

function idsOf(response: Response): number[] {
  expect(response.status).toBe(200);
  return (response.body as { response: Row[] }).response.map((row) => Number(row.id));
}

/** A `next` / `prev` link's path and query. */
function linkOf(link: unknown): { path: string; query: Record<string, string> } {
  const url = new URL(String(link));
  return { path: url.pathname, query: Object.fromEntries(url.searchParams) };
}

describeEachDatabase('get_entries filters', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database());
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  const list = (type: string, apiKey: string, query: Record<string, unknown> = {}) =>
    api(t, apiKey, 'query').get(`/api/list/${type}/`, query);

  const expectInvalid = (response: Response, message: string | RegExp) => {
    expect({ status: response.status, body: response.body as unknown }).toEqual({
      status: 400,
      body: {
        error: INVALID_PARAMETER,
        message: typeof message === 'string' ? INVALID + message : expect.stringMatching(message),
        response: null,
        next: null,
        prev: null,
      },
    });
  };

  it('answers 401 without an API key, filters or not', async () => {
    const response = await request(t.url).get('/api/list/sended/').query({ status: 'failed' });

    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ error: 1, response: null });
  });

  describe('sended', () => {
    it('filters by status, phone, destination, tag and originating message, never listing another user’s', async () => {
      const { user, apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const otherPhone = await makePhone(ds, other.user.id);
      const scheduled = await makeScheduled(ds, user.id);
      const failed = await makeSended(ds, user.id, { status: 'failed', id_phone: phone.id });
      const delivered = await makeSended(ds, user.id, {
        status: 'delivered',
        destination: '+33612345679',
        tag: 'campaign',
        originating_scheduled: scheduled.id,
      });
      const unknown = await makeSended(ds, user.id, { status: 'unknown', tag: 'campaign 2' });
      await makeSended(ds, other.user.id, {
        status: 'failed',
        id_phone: otherPhone.id,
        destination: '+33612345679',
        tag: 'campaign',
        originating_scheduled: scheduled.id,
      });

      expect(idsOf(await list('sended', apiKey, { status: 'failed' }))).toEqual([failed.id]);
      expect(idsOf(await list('sended', apiKey, { status: 'delivered' }))).toEqual([delivered.id]);
      expect(idsOf(await list('sended', apiKey, { status: 'unknown' }))).toEqual([unknown.id]);
      expect(idsOf(await list('sended', apiKey, { id_phone: phone.id }))).toEqual([failed.id]);
      expect(idsOf(await list('sended', apiKey, { id_phone: otherPhone.id }))).toEqual([]);
      expect(idsOf(await list('sended', apiKey, { destination: '+33 6 12 34 56 79' }))).toEqual([
        delivered.id,
      ]);
      expect(idsOf(await list('sended', apiKey, { tag: 'campaign' }))).toEqual([delivered.id]);
      expect(idsOf(await list('sended', apiKey, { tag: 'Campaign' }))).toEqual([]);
      expect(idsOf(await list('sended', apiKey, { originating_scheduled: scheduled.id }))).toEqual([
        delivered.id,
      ]);
    });

    it('reads a national destination in the caller’s default_phone_country', async () => {
      const { user, apiKey } = await makeUser(ds, { settings: { default_phone_country: 'fr' } });
      const sended = await makeSended(ds, user.id, { destination: '+33612345678' });

      expect(idsOf(await list('sended', apiKey, { destination: '06 12 34 56 78' }))).toEqual([
        sended.id,
      ]);
    });

    it('combines filters with AND', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const both = await makeSended(ds, user.id, { status: 'failed', id_phone: phone.id });
      await makeSended(ds, user.id, { status: 'failed' });
      await makeSended(ds, user.id, { status: 'delivered', id_phone: phone.id });

      expect(idsOf(await list('sended', apiKey, { status: 'failed', id_phone: phone.id }))).toEqual(
        [both.id],
      );
    });

    it('takes at_from and at_to inclusively, as dates of the service time zone', async () => {
      const zoned = await startApp(database(), { TZ: 'Europe/Paris' });
      try {
        const { user, apiKey } = await makeUser(ds);
        const before = await makeSended(ds, user.id, { at: '2024-06-30 21:59:59' });
        const first = await makeSended(ds, user.id, { at: '2024-06-30 22:00:00' });
        const last = await makeSended(ds, user.id, { at: '2024-07-01 21:59:59' });
        const after = await makeSended(ds, user.id, { at: '2024-07-01 22:00:00' });
        const listZoned = (query: Record<string, string>) =>
          api(zoned, apiKey, 'query').get('/api/list/sended/', query);

        expect(
          idsOf(await listZoned({ at_from: '2024-07-01 00:00:00', at_to: '2024-07-01 23:59:59' })),
        ).toEqual([first.id, last.id]);
        expect(idsOf(await listZoned({ at_to: '2024-07-01 00:00:00' }))).toEqual([
          before.id,
          first.id,
        ]);
        expect(idsOf(await listZoned({ at_from: '2024-07-02 00:00:00' }))).toEqual([after.id]);
      } finally {
        await zoned.close();
      }
    });

    it('keeps the filters in next and prev through every paging mode', async () => {
      const { user, apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const failed: number[] = [];
      for (let index = 0; index < 60; index++) {
        const status = index % 2 === 0 ? 'failed' : 'delivered';
        const sended = await makeSended(ds, user.id, { status });
        if (status === 'failed') {
          failed.push(sended.id);
        }
        await makeSended(ds, other.user.id, { status: 'failed' });
      }

      const first = await list('sended', apiKey, { status: 'failed' });
      expect(idsOf(first)).toEqual(failed.slice(0, 25));
      const next = linkOf((first.body as { next: unknown }).next);
      expect(next).toEqual({
        path: `/api/list/sended/after/${failed[24]}/`,
        query: { status: 'failed', api_key: apiKey },
      });
      const second = await request(t.url).get(next.path).query(next.query);
      expect(idsOf(second)).toEqual(failed.slice(25));
      expect((second.body as { next: unknown }).next).toBeNull();
      const prev = linkOf((second.body as { prev: unknown }).prev);
      expect(prev).toEqual({
        path: `/api/list/sended/before/${failed[25]}/`,
        query: { status: 'failed', api_key: apiKey },
      });
      expect(idsOf(await request(t.url).get(prev.path).query(prev.query))).toEqual(
        failed.slice(0, 25),
      );

      const page = await list('sended', apiKey, { status: 'failed', page: 1 });
      expect(idsOf(page)).toEqual(failed.slice(25));
      expect(linkOf((page.body as { prev: unknown }).prev).query).toEqual({
        status: 'failed',
        api_key: apiKey,
      });
      const pathPage = await api(t, apiKey, 'query').get('/api/list/sended/1/', {
        status: 'failed',
      });
      expect(idsOf(pathPage)).toEqual(failed.slice(25));
      expect(
        idsOf(await list('sended', apiKey, { status: 'failed', after_id: failed[9] })),
      ).toEqual(failed.slice(10, 30));
      expect(
        idsOf(await list('sended', apiKey, { status: 'failed', before_id: failed[3] })),
      ).toEqual(failed.slice(0, 3));
    });

    it('reads a failed after_id page through the (id_user, status) index on the engine', async () => {
      const { user, apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const columns = ['id_user', 'at', 'text', 'destination', 'flash', 'mms', 'status'];
      const stamp = '2024-01-01 00:00:00';
      await insertRows(
        ds,
        'sended',
        [...columns, 'adapter', 'segments', 'encoding', 'created_at'],
        Array.from({ length: 20_000 }, (_, index) => [
          index % 3 === 0 ? other.user.id : user.id,
          stamp,
          'x',
          '+33612345678',
          0,
          0,
          index % 7 === 0 ? 'failed' : index % 2 === 0 ? 'delivered' : 'unknown',
          'test',
          1,
          'GSM-7',
          stamp,
        ]),
      );
      const mysql = ds.options.type === 'mysql';
      await ds.query(mysql ? 'ANALYZE TABLE sended' : 'ANALYZE');

      const { queries, result } = await withQueries(ds, () =>
        list('sended', apiKey, { status: 'failed', after_id: 5000 }),
      );

      expect(result.status).toBe(200);
      const listing = queries.find((sql) => /WHERE .*status. = \?/.test(sql)) ?? '';
      // SQLite's driver writes numbers into the statement; MySQL's binds them.
      const parameters = mysql ? [user.id, 'failed', 5000] : ['failed'];
      const plan = JSON.stringify(
        await ds.query(`${mysql ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN'} ${listing}`, parameters),
      );
      expect(plan).toContain('ix_sended_id_user_status');
      await ds.query('DELETE FROM sended WHERE id_user IN (?, ?)', [user.id, other.user.id]);
    });
  });

  describe('received', () => {
    it('filters by status, phone, origin and dates, never listing another user’s', async () => {
      const { user, apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const read = await makeReceived(ds, user.id, {
        status: 'read',
        id_phone: phone.id,
        at: '2024-03-01 10:00:00',
      });
      const unread = await makeReceived(ds, user.id, {
        origin: '+33612345679',
        at: '2024-03-02 10:00:00',
      });
      await makeReceived(ds, other.user.id, {
        status: 'read',
        origin: '+33612345679',
        at: '2024-03-01 10:00:00',
      });

      expect(idsOf(await list('received', apiKey, { status: 'read' }))).toEqual([read.id]);
      expect(idsOf(await list('received', apiKey, { status: 'unread' }))).toEqual([unread.id]);
      expect(idsOf(await list('received', apiKey, { id_phone: phone.id }))).toEqual([read.id]);
      expect(idsOf(await list('received', apiKey, { origin: '+33612345679' }))).toEqual([
        unread.id,
      ]);
      expect(
        idsOf(
          await list('received', apiKey, {
            at_from: '2024-03-01 10:00:00',
            at_to: '2024-03-01 10:00:00',
          }),
        ),
      ).toEqual([read.id]);
    });
  });

  describe('scheduled', () => {
    it('filters by tag, phone and dates, never listing another user’s', async () => {
      const { user, apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const tagged = await makeScheduled(ds, user.id, { tag: 'news', at: '2030-01-01 00:00:00' });
      const viaPhone = await makeScheduled(ds, user.id, {
        id_phone: phone.id,
        at: '2030-02-01 00:00:00',
      });
      await makeScheduled(ds, other.user.id, { tag: 'news', at: '2030-01-01 00:00:00' });

      expect(idsOf(await list('scheduled', apiKey, { tag: 'news' }))).toEqual([tagged.id]);
      expect(idsOf(await list('scheduled', apiKey, { id_phone: phone.id }))).toEqual([viaPhone.id]);
      expect(idsOf(await list('scheduled', apiKey, { at_from: '2030-01-15 00:00:00' }))).toEqual([
        viaPhone.id,
      ]);
      expect(idsOf(await list('scheduled', apiKey, { at_to: '2030-01-01 00:00:00' }))).toEqual([
        tagged.id,
      ]);
    });
  });

  describe('contact', () => {
    it('finds a part of the name whatever its case, accents included, and by number', async () => {
      const { user, apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const eloise = await makeContact(ds, user.id, { name: 'Éloïse Martin' });
      const martine = await makeContact(ds, user.id, {
        name: 'martine',
        number: '+33612345670',
      });
      await makeContact(ds, user.id, { name: 'Bob' });
      await makeContact(ds, other.user.id, { name: 'Martin Other', number: '+33612345670' });

      expect(idsOf(await list('contact', apiKey, { name: 'MARTIN' }))).toEqual([
        eloise.id,
        martine.id,
      ]);
      expect(idsOf(await list('contact', apiKey, { name: 'éLOÏ' }))).toEqual([eloise.id]);
      expect(idsOf(await list('contact', apiKey, { number: '+33612345670' }))).toEqual([
        martine.id,
      ]);
    });

    it('finds groups, conditional groups and phone groups by a part of their name, whatever its case', async () => {
      const { user, apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const customers = await makeGroup(ds, user.id, [], { name: 'Customers Lyon' });
      await makeGroup(ds, user.id, [], { name: 'Staff' });
      await makeGroup(ds, other.user.id, [], { name: 'Customers Other' });
      const vip = await makeConditionalGroup(ds, user.id, { name: 'VIP customers' });
      await makeConditionalGroup(ds, user.id, { name: 'Birthdays' });
      const night = await makePhoneGroup(ds, user.id, [], { name: 'Night shift' });
      await makePhoneGroup(ds, user.id, [], { name: 'Day shift' });

      expect(idsOf(await list('group', apiKey, { name: 'CUSTOMER' }))).toEqual([customers.id]);
      expect(idsOf(await list('conditional_group', apiKey, { name: 'customer' }))).toEqual([
        vip.id,
      ]);
      expect(idsOf(await list('phone_group', apiKey, { name: 'NIGHT' }))).toEqual([night.id]);
    });

    it('takes % and _ in a name as themselves', async () => {
      const { user, apiKey } = await makeUser(ds);
      const percent = await makeContact(ds, user.id, { name: '100% sure' });
      const underscore = await makeContact(ds, user.id, { name: 'a_b' });
      const bang = await makeContact(ds, user.id, { name: 'wow!' });
      await makeContact(ds, user.id, { name: 'axb 100 sure' });

      expect(idsOf(await list('contact', apiKey, { name: '%' }))).toEqual([percent.id]);
      expect(idsOf(await list('contact', apiKey, { name: '_' }))).toEqual([underscore.id]);
      expect(idsOf(await list('contact', apiKey, { name: 'a_b' }))).toEqual([underscore.id]);
      expect(idsOf(await list('contact', apiKey, { name: '!' }))).toEqual([bang.id]);
    });
  });

  describe('refusals', () => {
    it.each<[string, Record<string, unknown>, string | RegExp]>([
      [
        'a filter of another type',
        { entry_type: 'contact', status: 'failed' },
        'status : not a filter of contact entries; their filters are name, number.',
      ],
      [
        'name on sended',
        { entry_type: 'sended', name: 'x' },
        /^You have specified an invalid parameter : name : not a filter of sended entries; their filters are status, id_phone, destination, tag, originating_scheduled, at_from, at_to\.$/,
      ],
      [
        'origin on sended',
        { entry_type: 'sended', origin: '+33612345678' },
        /: origin : not a filter of sended entries/,
      ],
      [
        'destination on received',
        { entry_type: 'received', destination: '+33612345678' },
        /: destination : not a filter of received entries/,
      ],
      [
        'status on scheduled',
        { entry_type: 'scheduled', status: 'failed' },
        /: status : not a filter of scheduled entries/,
      ],
      [
        'any filter on phone',
        { entry_type: 'phone', tag: 'x', id_phone: 1 },
        'id_phone, tag : not a filter of phone entries; they have none.',
      ],
      [
        'an unknown sended status',
        { entry_type: 'sended', status: 'read' },
        'status must be one of : unknown, delivered, failed, got "read".',
      ],
      [
        'an unknown received status',
        { entry_type: 'received', status: 'failed' },
        'status must be one of : read, unread, got "failed".',
      ],
      [
        'a status in another case',
        { entry_type: 'sended', status: 'FAILED' },
        /: status must be one of/,
      ],
      [
        'a status list',
        { entry_type: 'sended', 'status[]': 'failed' },
        'status must be a single value, not a list or an object.',
      ],
      [
        'a status object',
        { entry_type: 'sended', 'status[a]': 'failed' },
        'status must be a single value, not a list or an object.',
      ],
      [
        'a malformed at_from',
        { entry_type: 'sended', at_from: '2024-02-30 00:00:00' },
        /: at_from must be a date of format "YYYY-MM-DD HH:MM:SS" in the UTC time zone, got "2024-02-30 00:00:00"\.$/,
      ],
      [
        'a date without time',
        { entry_type: 'received', at_to: '2024-02-03' },
        /: at_to must be a date of format/,
      ],
      [
        'a 10,000-character date',
        { entry_type: 'scheduled', at_to: '2'.repeat(10_000) },
        /: at_to must be a date of format/,
      ],
      [
        'a malformed destination',
        { entry_type: 'sended', destination: '12' },
        'destination must be a valid phone number, got "12".',
      ],
      [
        'a national number without a default country',
        { entry_type: 'sended', destination: '0612345678' },
        /: destination must be a valid phone number/,
      ],
      [
        'a malformed origin',
        { entry_type: 'received', origin: 'abc' },
        /: origin must be a valid phone number/,
      ],
      [
        'a malformed contact number',
        { entry_type: 'contact', number: '+1' },
        /: number must be a valid phone number/,
      ],
      [
        'a negative id_phone',
        { entry_type: 'sended', id_phone: '-1' },
        'id_phone must be a non-negative integer, got "-1".',
      ],
      [
        'a float originating_scheduled',
        { entry_type: 'sended', originating_scheduled: '1.5' },
        /: originating_scheduled must be a non-negative integer/,
      ],
      [
        'a huge id_phone',
        { entry_type: 'scheduled', id_phone: '99999999999' },
        /: id_phone must be a non-negative integer/,
      ],
      [
        'a 10,000-character tag',
        { entry_type: 'sended', tag: 't'.repeat(10_000) },
        'tag must be at most 1000 characters long.',
      ],
      [
        'a 10,000-character name',
        { entry_type: 'contact', name: 'n'.repeat(10_000) },
        'name must be at most 100 characters long.',
      ],
    ])('refuses %s with 400 INVALID_PARAMETER naming it', async (_, query, message) => {
      const { apiKey } = await makeUser(ds);
      const { entry_type: type, ...filters } = query;

      expectInvalid(await list(String(type), apiKey, filters), message);
    });

    const SENDED_FILTERS =
      'their filters are status, id_phone, destination, tag, originating_scheduled, at_from, at_to.';

    it.each<[string, string, string]>([
      ['state=failed', 'sended', `state : not a filter of sended entries; ${SENDED_FILTERS}`],
      [
        'destinaton=%2B33612345678',
        'sended',
        `destinaton : not a filter of sended entries; ${SENDED_FILTERS}`,
      ],
      ['statuss=failed', 'sended', `statuss : not a filter of sended entries; ${SENDED_FILTERS}`],
      [
        'foo=bar',
        'received',
        'foo : not a filter of received entries; their filters are status, id_phone, origin, at_from, at_to.',
      ],
      [
        'constructor=x&toString=y',
        'contact',
        'constructor, toString : not a filter of contact entries; their filters are name, number.',
      ],
      [
        'foo[a]=1&tag=x&Status=failed',
        'phone',
        'tag, foo, Status : not a filter of phone entries; they have none.',
      ],
    ])(
      'refuses ?%s on %s, which would list every entry, with INVALID_PARAMETER naming it and listing the filters',
      async (query, type, message) => {
        const { user, apiKey } = await makeUser(ds);
        await makeSended(ds, user.id);

        expectInvalid(
          await request(t.url).get(`/api/list/${type}/?api_key=${apiKey}&${query}`),
          message,
        );
      },
    );

    it('names ten refused parameters at most, and counts the others', async () => {
      const { apiKey } = await makeUser(ds);
      const names = Array.from({ length: 12 }, (_, index) => `x${index}`);

      expectInvalid(
        await list('sended', apiKey, Object.fromEntries(names.map((name) => [name, '1']))),
        `${names.slice(0, 10).join(', ')} (and 2 more) : not a filter of sended entries; ${SENDED_FILTERS}`,
      );
    });

    it('takes the paging parameters and the key beside the filters, in every path form', async () => {
      const { user, apiKey } = await makeUser(ds);
      const first = await makeSended(ds, user.id, { status: 'failed' });
      const second = await makeSended(ds, user.id, { status: 'failed' });
      const key = `api_key=${apiKey}&status=failed`;

      const lists = [
        `/api/list/sended/?${key}&page=0`,
        `/api/list/sended/?${key}&after_id=${first.id - 1}`,
        `/api/list/sended/?${key}&before_id=${second.id + 1}`,
        `/api/list/sended/0/?${key}`,
        `/api/list/sended/after/${first.id - 1}/?${key}`,
        `/api/list/sended/before/${second.id + 1}/?${key}`,
      ];
      for (const path of lists) {
        expect(idsOf(await request(t.url).get(path))).toEqual([first.id, second.id]);
      }
      const header = await api(t, apiKey).get('/api/list/sended/?page=0&status=failed');
      expect(idsOf(header)).toEqual([first.id, second.id]);
    });

    it('takes an empty filter as absent', async () => {
      const { user, apiKey } = await makeUser(ds);
      const sended = await makeSended(ds, user.id);

      expect(idsOf(await list('sended', apiKey, { status: '', tag: '', id_phone: '' }))).toEqual([
        sended.id,
      ]);
    });
  });
});
