import request, { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { ScheduledNumber } from '../../src/scheduled/entities/scheduled.entity';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { withQueries } from '../support/instruments';
import {
  makeConditionalGroup,
  makeContact,
  makeGroup,
  makeMedia,
  makePhone,
  makePhoneGroup,
  makePhoneLimit,
  makeReceived,
  makeScheduled,
  makeSended,
  makeUser,
} from '../support/factories';

/*
 * get_entries (docs/api.md#get_entries, docs/api-choices.md) over real HTTP against the real app,
 * on every database engine. Each test makes its own users, so tests never see each other's rows.
 */

type Row = Record<string, unknown>;

const ENTRY_TYPES = [
  'sended',
  'received',
  'scheduled',
  'contact',
  'group',
  'conditional_group',
  'phone',
  'phone_group',
  'media',
] as const;
type EntryType = (typeof ENTRY_TYPES)[number];

const PAGE_SIZE = 25;
const INVALID_PARAMETER = 2;
const INVALID_PREFIX = 'You have specified an invalid parameter : ';

const TIMESTAMPS = ['created_at', 'updated_at'];

/** The stored columns each listing returns, in this order (RaspiSMS's where it has them). */
// prettier-ignore
const COLUMNS = {
  sended: [
    'id', 'id_user', 'id_phone', 'at', 'text', 'destination', 'flash', 'mms', 'status', 'error',
    'uid', 'adapter', 'tag', 'originating_scheduled', 'segments', 'encoding', ...TIMESTAMPS,
  ],
  received: [
    'id', 'id_user', 'id_phone', 'at', 'text', 'origin', 'command', 'status', 'mms', ...TIMESTAMPS,
  ],
  scheduled: [
    'id', 'id_user', 'at', 'text', 'flash', 'id_phone', 'id_phone_group', 'mms', 'tag',
    ...TIMESTAMPS, 'validity', 'priority', 'window', 'send_after',
  ],
  scheduled_number: ['id', 'id_scheduled', 'number', 'data', ...TIMESTAMPS],
  contact: ['id', 'id_user', 'name', 'number', 'data', ...TIMESTAMPS],
  group: ['id', 'id_user', 'name', ...TIMESTAMPS],
  conditional_group: ['id', 'id_user', 'name', 'condition', ...TIMESTAMPS],
  phone: [
    'id',
    'id_user',
    'name',
    'adapter',
    'adapter_data',
    'priority',
    'status',
    ...TIMESTAMPS,
    'rate',
    'callback_urls',
    'limits',
  ],
  phone_group: ['id', 'id_user', 'name', ...TIMESTAMPS],
  media: ['id', 'id_user', 'path', ...TIMESTAMPS],
  media_link: ['id', 'id_user', 'path'],
};
const PHONE_WITHOUT_DATA = COLUMNS.phone.filter((column) => column !== 'adapter_data');

/**
 * A phone as listed: its stored `fields`, no callback URLs (this app has no PUBLIC_URL), and no
 * limits unless given.
 */
function phoneRow(entity: object, fields: readonly string[], limits: Row[] = []): Row {
  return {
    ...pick(
      entity,
      fields.filter((field) => field !== 'callback_urls' && field !== 'limits'),
    ),
    callback_urls: null,
    limits,
  };
}

/** The stored `fields` of a row the factories inserted, in that order. */
function pick(entity: object, fields: readonly string[]): Row {
  const source = entity as Row;
  return Object.fromEntries(fields.map((field) => [field, source[field]]));
}

function idsOf(response: Response): number[] {
  return (response.body.response as Row[]).map((row) => row.id as number);
}

function keysOf(rows: Row[]): string[][] {
  return rows.map((row) => Object.keys(row));
}

/** The absolute link the service is expected to hand out. */
function listLink(base: string, type: EntryType, rest: string, apiKey: string): string {
  return `${base}/api/list/${type}/${rest}?api_key=${apiKey}`;
}

function expectInvalidParameter(response: Response, parameter: string): void {
  expect(response.status).toBe(400);
  expect(response.body).toEqual({
    error: INVALID_PARAMETER,
    message: expect.stringMatching(new RegExp(`^${INVALID_PREFIX}${parameter}\\b`)),
    response: null,
    next: null,
    prev: null,
  });
}

describeEachDatabase('get_entries', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database());
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  const list = (path: string, apiKey: string, query: Record<string, string | number> = {}) =>
    api(t, apiKey, 'query').get(path, query);

  /** Requests a link the service handed out; it must point at this app. */
  const follow = (link: string) => {
    const url = new URL(link);
    expect(url.origin).toBe(t.url);
    return request(t.url).get(url.pathname + url.search);
  };

  /** One entry of every type for a user, linked to each other; returns each type's entry id. */
  async function makeOneOfEach(userId: number): Promise<Record<EntryType, number>> {
    const phone = await makePhone(ds, userId);
    const phoneGroup = await makePhoneGroup(ds, userId, [phone.id]);
    const contact = await makeContact(ds, userId);
    const group = await makeGroup(ds, userId, [contact.id]);
    const conditionalGroup = await makeConditionalGroup(ds, userId);
    const media = await makeMedia(ds, userId);
    const scheduled = await makeScheduled(ds, userId, {
      id_phone: phone.id,
      id_phone_group: phoneGroup.id,
      numbers: [{ number: '+33611111111' }],
      contactIds: [contact.id],
      groupIds: [group.id],
      conditionalGroupIds: [conditionalGroup.id],
      mediaIds: [media.id],
    });
    const sended = await makeSended(ds, userId, {
      id_phone: phone.id,
      originating_scheduled: scheduled.id,
      mediaIds: [media.id],
    });
    const received = await makeReceived(ds, userId, { id_phone: phone.id, mediaIds: [media.id] });
    return {
      sended: sended.id,
      received: received.id,
      scheduled: scheduled.id,
      contact: contact.id,
      group: group.id,
      conditional_group: conditionalGroup.id,
      phone: phone.id,
      phone_group: phoneGroup.id,
      media: media.id,
    };
  }

  describe('rule 1: entry_type', () => {
    it('refuses an unknown entry_type with HTTP 400, INVALID_PARAMETER and the allowed types', async () => {
      const { apiKey } = await makeUser(ds);

      const response = await list('/api/list/sms/', apiKey);

      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: INVALID_PARAMETER,
        message:
          'You have specified an invalid parameter : entry_type must be one of : sended, ' +
          'received, scheduled, contact, group, conditional_group, phone, phone_group, media.',
        response: null,
        next: null,
        prev: null,
      });
      expect(Object.keys(response.body)).toEqual(['error', 'message', 'response', 'next', 'prev']);
    });

    it('checks entry_type before the paging parameters', async () => {
      const { apiKey } = await makeUser(ds);

      const response = await list('/api/list/Phone/abc/', apiKey);

      expectInvalidParameter(response, 'entry_type');
    });

    it.each(ENTRY_TYPES)(
      'accepts %s and answers an empty list for a user without any',
      async (type) => {
        const { apiKey } = await makeUser(ds);

        const response = await list(`/api/list/${type}/`, apiKey);

        expect(response.status).toBe(200);
        expect(response.body).toEqual({
          error: 0,
          message: null,
          response: [],
          next: null,
          prev: null,
        });
      },
    );
  });

  describe('rule 2: the fields of each entry type', () => {
    it('lists sended entries with their columns and their medias as {id, id_user, path}', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const first = await makeMedia(ds, user.id);
      const second = await makeMedia(ds, user.id);
      const scheduled = await makeScheduled(ds, user.id);
      const withMedias = await makeSended(ds, user.id, {
        id_phone: phone.id,
        mms: 1,
        flash: 1,
        status: 'failed',
        error: 'no phone available',
        tag: 'promo',
        originating_scheduled: scheduled.id,
        segments: 3,
        encoding: 'UCS-2',
        updated_at: '2024-05-06 07:08:09',
        mediaIds: [first.id, second.id],
      });
      const withoutMedias = await makeSended(ds, user.id);

      const response = await list('/api/list/sended/', apiKey);

      expect(response.status).toBe(200);
      const rows = response.body.response as Row[];
      expect(keysOf(rows)).toEqual([
        [...COLUMNS.sended, 'refusals', 'medias'],
        [...COLUMNS.sended, 'refusals', 'medias'],
      ]);
      expect(rows).toEqual([
        {
          ...pick(withMedias, COLUMNS.sended),
          refusals: [],
          medias: [pick(first, COLUMNS.media_link), pick(second, COLUMNS.media_link)],
        },
        { ...pick(withoutMedias, COLUMNS.sended), refusals: [], medias: [] },
      ]);
      expect(keysOf(rows[0].medias as Row[])).toEqual([COLUMNS.media_link, COLUMNS.media_link]);
    });

    it('lists received entries with their columns and their medias as {id, id_user, path}', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const media = await makeMedia(ds, user.id);
      const withMedia = await makeReceived(ds, user.id, {
        id_phone: phone.id,
        mms: 1,
        command: 1,
        status: 'read',
        mediaIds: [media.id],
      });
      const withoutMedia = await makeReceived(ds, user.id);

      const response = await list('/api/list/received/', apiKey);

      expect(response.status).toBe(200);
      const rows = response.body.response as Row[];
      expect(keysOf(rows)).toEqual([
        [...COLUMNS.received, 'medias'],
        [...COLUMNS.received, 'medias'],
      ]);
      expect(rows).toEqual([
        { ...pick(withMedia, COLUMNS.received), medias: [pick(media, COLUMNS.media_link)] },
        { ...pick(withoutMedia, COLUMNS.received), medias: [] },
      ]);
    });

    it('lists scheduled entries with their numbers, contacts, groups, conditional groups and medias', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const firstContact = await makeContact(ds, user.id, { data: '{"firstname":"Ada"}' });
      const secondContact = await makeContact(ds, user.id, { number: '+33699999999' });
      const group = await makeGroup(ds, user.id, [firstContact.id]);
      const conditionalGroup = await makeConditionalGroup(ds, user.id);
      const media = await makeMedia(ds, user.id);
      const linked = await makeScheduled(ds, user.id, {
        text: 'Hello {{ contact.firstname }}',
        id_phone: phone.id,
        flash: 1,
        mms: 1,
        tag: 'campaign',
        priority: 1,
        numbers: [
          { number: '+33611111111', data: '{"firstname":"Bob"}' },
          { number: '+33622222222' },
        ],
        contactIds: [firstContact.id, secondContact.id],
        groupIds: [group.id],
        conditionalGroupIds: [conditionalGroup.id],
        mediaIds: [media.id],
      });
      const bare = await makeScheduled(ds, user.id);
      const numbers = await ds
        .getRepository(ScheduledNumber)
        .find({ where: { id_scheduled: linked.id }, order: { id: 'ASC' } });
      expect(numbers).toHaveLength(2);

      const response = await list('/api/list/scheduled/', apiKey);

      expect(response.status).toBe(200);
      const rows = response.body.response as Row[];
      const extras = ['numbers', 'contacts', 'groups', 'conditional_groups', 'medias'];
      expect(keysOf(rows)).toEqual([
        [...COLUMNS.scheduled, ...extras],
        [...COLUMNS.scheduled, ...extras],
      ]);
      expect(rows).toEqual([
        {
          ...pick(linked, COLUMNS.scheduled),
          priority: 'high',
          window: null,
          numbers: numbers.map((number) => pick(number, COLUMNS.scheduled_number)),
          contacts: [pick(firstContact, COLUMNS.contact), pick(secondContact, COLUMNS.contact)],
          groups: [pick(group, COLUMNS.group)],
          conditional_groups: [pick(conditionalGroup, COLUMNS.conditional_group)],
          medias: [pick(media, COLUMNS.media_link)],
        },
        {
          ...pick(bare, COLUMNS.scheduled),
          priority: 'normal',
          window: null,
          numbers: [],
          contacts: [],
          groups: [],
          conditional_groups: [],
          medias: [],
        },
      ]);
      const [first] = rows;
      expect(keysOf(first.numbers as Row[])[0]).toEqual(COLUMNS.scheduled_number);
      expect(keysOf(first.contacts as Row[])[0]).toEqual(COLUMNS.contact);
      expect(keysOf(first.groups as Row[])[0]).toEqual(COLUMNS.group);
      expect(keysOf(first.conditional_groups as Row[])[0]).toEqual(COLUMNS.conditional_group);
      expect(keysOf(first.medias as Row[])[0]).toEqual(COLUMNS.media_link);
    });

    it('lists contacts with exactly their columns, data as the stored JSON string', async () => {
      const { user, apiKey } = await makeUser(ds);
      const contact = await makeContact(ds, user.id, { data: '{"firstname":"Ada","age":"36"}' });

      const response = await list('/api/list/contact/', apiKey);

      expect(response.status).toBe(200);
      const rows = response.body.response as Row[];
      expect(keysOf(rows)).toEqual([COLUMNS.contact]);
      expect(rows).toEqual([pick(contact, COLUMNS.contact)]);
    });

    it('lists groups with their contacts and nb_contact', async () => {
      const { user, apiKey } = await makeUser(ds);
      const first = await makeContact(ds, user.id);
      const second = await makeContact(ds, user.id);
      const withContacts = await makeGroup(ds, user.id, [first.id, second.id]);
      const empty = await makeGroup(ds, user.id);

      const response = await list('/api/list/group/', apiKey);

      expect(response.status).toBe(200);
      const rows = response.body.response as Row[];
      expect(keysOf(rows)).toEqual([
        [...COLUMNS.group, 'nb_contact', 'contacts'],
        [...COLUMNS.group, 'nb_contact', 'contacts'],
      ]);
      expect(rows).toEqual([
        {
          ...pick(withContacts, COLUMNS.group),
          contacts: [pick(first, COLUMNS.contact), pick(second, COLUMNS.contact)],
          nb_contact: 2,
        },
        { ...pick(empty, COLUMNS.group), contacts: [], nb_contact: 0 },
      ]);
    });

    it('lists conditional groups with exactly their columns, condition included', async () => {
      const { user, apiKey } = await makeUser(ds);
      const conditionalGroup = await makeConditionalGroup(ds, user.id, {
        condition: "contact.city == 'Paris'",
      });

      const response = await list('/api/list/conditional_group/', apiKey);

      expect(response.status).toBe(200);
      const rows = response.body.response as Row[];
      expect(keysOf(rows)).toEqual([COLUMNS.conditional_group]);
      expect(rows).toEqual([pick(conditionalGroup, COLUMNS.conditional_group)]);
    });

    it('lists medias with exactly their columns', async () => {
      const { user, apiKey } = await makeUser(ds);
      const media = await makeMedia(ds, user.id);

      const response = await list('/api/list/media/', apiKey);

      expect(response.status).toBe(200);
      const rows = response.body.response as Row[];
      expect(keysOf(rows)).toEqual([COLUMNS.media]);
      expect(rows).toEqual([pick(media, COLUMNS.media)]);
    });

    it('lists phones with adapter_data for test and gammu (without its secret pin), and omits it for adapters that hide it or are unknown', async () => {
      const { user, apiKey } = await makeUser(ds);
      const visible = [
        await makePhone(ds, user.id, {
          adapter: 'test',
          adapter_data: '{"delivery":"delivered"}',
          priority: 3,
          rate: 0.5,
        }),
        await makePhone(ds, user.id, {
          adapter: 'gammu',
          adapter_data: '{"config_file":"/etc/gammurc","pin":"1234"}',
          status: 'unavailable',
        }),
      ];
      const hidden = [
        await makePhone(ds, user.id, {
          adapter: 'twilio',
          adapter_data: '{"account_sid":"AC1","auth_token":"secret","number":"+33611111111"}',
        }),
        await makePhone(ds, user.id, {
          adapter: 'kannel',
          adapter_data: '{"username":"kannel","password":"secret"}',
        }),
        await makePhone(ds, user.id, {
          adapter: 'smpp',
          adapter_data: '{"system_id":"smsgw","password":"secret"}',
        }),
        await makePhone(ds, user.id, {
          adapter: 'carrier_pigeon',
          adapter_data: '{"password":"secret"}',
        }),
      ];

      const response = await list('/api/list/phone/', apiKey);

      expect(response.status).toBe(200);
      const rows = response.body.response as Row[];
      expect(keysOf(rows)).toEqual([
        COLUMNS.phone,
        COLUMNS.phone,
        PHONE_WITHOUT_DATA,
        PHONE_WITHOUT_DATA,
        PHONE_WITHOUT_DATA,
        PHONE_WITHOUT_DATA,
      ]);
      expect(rows).toEqual([
        phoneRow(visible[0], COLUMNS.phone),
        { ...phoneRow(visible[1], COLUMNS.phone), adapter_data: '{"config_file":"/etc/gammurc"}' },
        ...hidden.map((phone) => phoneRow(phone, PHONE_WITHOUT_DATA)),
      ]);
      expect(JSON.stringify(response.body)).not.toContain('secret');
      expect(JSON.stringify(response.body)).not.toContain('1234');
      expect(JSON.stringify(response.body)).not.toContain('enc:v1:');
    });

    it('lists each phone with its limits, in the order they were given, in phone groups too', async () => {
      const { user, apiKey } = await makeUser(ds);
      const limited = await makePhone(ds, user.id);
      const free = await makePhone(ds, user.id);
      await makePhoneLimit(ds, limited.id, { volume: 100, startpoint: 'today' });
      await makePhoneLimit(ds, limited.id, { volume: 5, startpoint: '-1 hour' });
      await makePhoneGroup(ds, user.id, [limited.id, free.id]);
      const limits = [
        { volume: 100, startpoint: 'today' },
        { volume: 5, startpoint: '-1 hour' },
      ];

      const phones = (await list('/api/list/phone/', apiKey)).body.response as Row[];
      const groups = (await list('/api/list/phone_group/', apiKey)).body.response as Row[];

      expect(phones.map((phone) => phone.limits)).toEqual([limits, []]);
      expect((groups[0].phones as Row[]).map((phone) => phone.limits)).toEqual([limits, []]);
    });

    it('lists phone groups with their phones, adapter_data hidden as for phones, and nb_phone', async () => {
      const { user, apiKey } = await makeUser(ds);
      const gammu = await makePhone(ds, user.id, {
        adapter: 'gammu',
        adapter_data: '{"config_file":"/etc/gammurc"}',
      });
      const twilio = await makePhone(ds, user.id, {
        adapter: 'twilio',
        adapter_data: '{"auth_token":"secret"}',
        rate: 12.25,
      });
      const unknown = await makePhone(ds, user.id, {
        adapter: 'carrier_pigeon',
        adapter_data: '{"password":"secret"}',
      });
      const withPhones = await makePhoneGroup(ds, user.id, [gammu.id, twilio.id, unknown.id]);
      const empty = await makePhoneGroup(ds, user.id);

      const response = await list('/api/list/phone_group/', apiKey);

      expect(response.status).toBe(200);
      const rows = response.body.response as Row[];
      expect(keysOf(rows)).toEqual([
        [...COLUMNS.phone_group, 'nb_phone', 'phones'],
        [...COLUMNS.phone_group, 'nb_phone', 'phones'],
      ]);
      expect(rows).toEqual([
        {
          ...pick(withPhones, COLUMNS.phone_group),
          phones: [
            phoneRow(gammu, COLUMNS.phone),
            phoneRow(twilio, PHONE_WITHOUT_DATA),
            phoneRow(unknown, PHONE_WITHOUT_DATA),
          ],
          nb_phone: 3,
        },
        { ...pick(empty, COLUMNS.phone_group), phones: [], nb_phone: 0 },
      ]);
      expect(keysOf(rows[0].phones as Row[])).toEqual([
        COLUMNS.phone,
        PHONE_WITHOUT_DATA,
        PHONE_WITHOUT_DATA,
      ]);
      expect(JSON.stringify(response.body)).not.toContain('secret');
    });

    it('returns integer columns and counts as JSON numbers on every entry type', async () => {
      const { user, apiKey } = await makeUser(ds);
      await makeOneOfEach(user.id);
      const integers: Record<EntryType, string[]> = {
        sended: ['id', 'id_user', 'id_phone', 'flash', 'mms', 'originating_scheduled', 'segments'],
        received: ['id', 'id_user', 'id_phone', 'command', 'mms'],
        scheduled: ['id', 'id_user', 'flash', 'id_phone', 'id_phone_group', 'mms'],
        contact: ['id', 'id_user'],
        group: ['id', 'id_user', 'nb_contact'],
        conditional_group: ['id', 'id_user'],
        phone: ['id', 'id_user', 'priority'],
        phone_group: ['id', 'id_user', 'nb_phone'],
        media: ['id', 'id_user'],
      };

      for (const type of ENTRY_TYPES) {
        const response = await list(`/api/list/${type}/`, apiKey);
        const [row] = response.body.response as Row[];
        const typesOf = (fields: string[], of: Row) =>
          Object.fromEntries(fields.map((field) => [field, typeof of[field]]));
        const allNumbers = (fields: string[]) =>
          Object.fromEntries(fields.map((field) => [field, 'number']));

        expect({ type, ...typesOf(integers[type], row) }).toEqual({
          type,
          ...allNumbers(integers[type]),
        });
        if (type === 'scheduled') {
          const [number] = row.numbers as Row[];
          expect(typesOf(['id', 'id_scheduled'], number)).toEqual(
            allNumbers(['id', 'id_scheduled']),
          );
        }
        if (type === 'phone_group') {
          const [phone] = row.phones as Row[];
          expect(typesOf(['id', 'id_user', 'priority'], phone)).toEqual(
            allNumbers(['id', 'id_user', 'priority']),
          );
        }
      }
    });

    describe('with TZ=Europe/Paris', () => {
      let paris: TestApp;

      beforeAll(async () => {
        paris = await startApp(database(), { TZ: 'Europe/Paris' });
      });
      afterAll(async () => {
        await paris.close();
      });

      it('shows stored UTC datetimes in the service time zone as YYYY-MM-DD HH:MM:SS', async () => {
        const { user, apiKey } = await makeUser(ds);
        await makeSended(ds, user.id, {
          at: '2024-07-01 12:00:00',
          created_at: '2024-01-02 03:04:05',
          updated_at: '2024-12-31 23:30:00',
        });

        const response = await api(paris, apiKey, 'query').get('/api/list/sended/');

        expect(response.status).toBe(200);
        const [row] = response.body.response as Row[];
        expect(pick(row, ['at', 'created_at', 'updated_at'])).toEqual({
          at: '2024-07-01 14:00:00',
          created_at: '2024-01-02 04:04:05',
          updated_at: '2025-01-01 00:30:00',
        });
      });

      it('converts the datetimes of linked rows too and leaves a null updated_at null', async () => {
        const { user, apiKey } = await makeUser(ds);
        const stored = '2024-01-02 03:04:05';
        const contact = await makeContact(ds, user.id, { created_at: stored });
        const scheduled = await makeScheduled(ds, user.id, {
          at: stored,
          created_at: stored,
          numbers: [{ number: '+33611111111' }],
          contactIds: [contact.id],
        });
        const storedNumber = await ds
          .getRepository(ScheduledNumber)
          .findOneByOrFail({ id_scheduled: scheduled.id });
        expect(storedNumber.created_at).toBe(stored);

        const response = await api(paris, apiKey, 'query').get('/api/list/scheduled/');

        expect(response.status).toBe(200);
        const [row] = response.body.response as Row[];
        const [number] = row.numbers as Row[];
        const [linkedContact] = row.contacts as Row[];
        expect({
          at: row.at,
          created_at: row.created_at,
          updated_at: row.updated_at,
          contact_created_at: linkedContact.created_at,
          contact_updated_at: linkedContact.updated_at,
          number_created_at: number.created_at,
          number_updated_at: number.updated_at,
        }).toEqual({
          at: '2024-01-02 04:04:05',
          created_at: '2024-01-02 04:04:05',
          updated_at: null,
          contact_created_at: '2024-01-02 04:04:05',
          contact_updated_at: null,
          number_created_at: '2024-01-02 04:04:05',
          number_updated_at: null,
        });
      });
    });
  });

  describe("only the caller's entries", () => {
    it.each(ENTRY_TYPES)(
      "lists %s entries of the caller and never another user's",
      async (type) => {
        const caller = await makeUser(ds);
        const other = await makeUser(ds);
        const otherIds = await makeOneOfEach(other.user.id);
        const callerIds = await makeOneOfEach(caller.user.id);
        await makeOneOfEach(other.user.id);

        const response = await list(`/api/list/${type}/`, caller.apiKey);

        expect(response.status).toBe(200);
        expect(idsOf(response)).toEqual([callerIds[type]]);
        expect(idsOf(response)).not.toContain(otherIds[type]);
        expect((response.body.response as Row[]).map((row) => row.id_user)).toEqual([
          caller.user.id,
        ]);
      },
    );

    it("does not reach another user's entries through after_id or before_id", async () => {
      const caller = await makeUser(ds);
      const other = await makeUser(ds);
      const before = await makeSended(ds, other.user.id);
      const own = await makeSended(ds, caller.user.id);
      const after = await makeSended(ds, other.user.id);

      const afterResponse = await list(`/api/list/sended/after/${before.id - 1}/`, caller.apiKey);
      const beforeResponse = await list(`/api/list/sended/before/${after.id + 1}/`, caller.apiKey);

      expect(idsOf(afterResponse)).toEqual([own.id]);
      expect(idsOf(beforeResponse)).toEqual([own.id]);
    });
  });

  describe('paging: 25 entries per page, ordered by id', () => {
    /** 60 sended entries of one user: pages of 25, 25 and 10. Read-only for these tests. */
    let apiKey: string;
    let ids: number[];
    const link = (rest: string) => listLink(t.url, 'sended', rest, apiKey);

    beforeAll(async () => {
      const made = await makeUser(ds);
      apiKey = made.apiKey;
      ids = [];
      for (let index = 0; index < 60; index += 1) {
        ids.push((await makeSended(ds, made.user.id)).id);
      }
    });

    describe('page mode', () => {
      it('lists the first 25 entries by default', async () => {
        const response = await list('/api/list/sended/', apiKey);

        expect(response.status).toBe(200);
        expect(idsOf(response)).toEqual(ids.slice(0, PAGE_SIZE));
      });

      it.each([
        ['/api/list/sended/1/', {}],
        ['/api/list/sended/', { page: 1 }],
      ])('lists the second page of 25 at %s %j', async (path, query) => {
        const response = await list(path, apiKey, query);

        expect(response.status).toBe(200);
        expect(idsOf(response)).toEqual(ids.slice(25, 50));
      });

      it('lists the remaining entries on the last page', async () => {
        const response = await list('/api/list/sended/2/', apiKey);

        expect(idsOf(response)).toEqual(ids.slice(50));
      });
    });

    describe('after mode', () => {
      it.each([
        ['path', (id: number) => [`/api/list/sended/after/${id}/`, {}] as const],
        ['query', (id: number) => ['/api/list/sended/', { after_id: id }] as const],
      ])('lists the 25 entries with an id greater than after_id (%s)', async (_how, at) => {
        const [path, query] = at(ids[9]);

        const response = await list(path, apiKey, query);

        expect(response.status).toBe(200);
        expect(idsOf(response)).toEqual(ids.slice(10, 35));
      });
    });

    describe('before mode', () => {
      it.each([
        ['path', (id: number) => [`/api/list/sended/before/${id}/`, {}] as const],
        ['query', (id: number) => ['/api/list/sended/', { before_id: id }] as const],
      ])(
        'lists the 25 entries just below before_id, still in ascending order (%s)',
        async (_how, at) => {
          const [path, query] = at(ids[40]);

          const response = await list(path, apiKey, query);

          expect(response.status).toBe(200);
          expect(idsOf(response)).toEqual(ids.slice(15, 40));
        },
      );

      it('lists fewer entries when fewer lie below before_id', async () => {
        const response = await list(`/api/list/sended/before/${ids[3]}/`, apiKey);

        expect(idsOf(response)).toEqual(ids.slice(0, 3));
      });
    });

    describe('rule 3: next', () => {
      it('is the after link of the last entry when a page has exactly 25 entries', async () => {
        const response = await list('/api/list/sended/', apiKey);

        expect(response.body.next).toBe(link(`after/${ids[24]}/`));
      });

      it('is set on a full page even when no entry follows it', async () => {
        const { user, apiKey: key } = await makeUser(ds);
        const made: number[] = [];
        for (let index = 0; index < PAGE_SIZE; index += 1) {
          made.push((await makeSended(ds, user.id)).id);
        }

        const response = await list('/api/list/sended/', key);
        const following = await follow(response.body.next as string);

        expect(response.body.next).toBe(listLink(t.url, 'sended', `after/${made[24]}/`, key));
        expect(following.status).toBe(200);
        expect(following.body).toMatchObject({ response: [], next: null, prev: null });
      });

      it('is null on a page of fewer than 25 entries, in page and after mode', async () => {
        const lastPage = await list('/api/list/sended/2/', apiKey);
        const afterMode = await list(`/api/list/sended/after/${ids[49]}/`, apiKey);

        expect(lastPage.body.next).toBeNull();
        expect(afterMode.body.next).toBeNull();
        expect(idsOf(afterMode)).toEqual(ids.slice(50));
      });

      it('is the after link of the last entry whenever before mode returned entries', async () => {
        const response = await list(`/api/list/sended/before/${ids[3]}/`, apiKey);

        expect(response.body.next).toBe(link(`after/${ids[2]}/`));
      });

      it('is null when before mode returned no entry', async () => {
        const response = await list(`/api/list/sended/before/${ids[0]}/`, apiKey);

        expect(response.body).toMatchObject({ response: [], next: null, prev: null });
      });
    });

    describe('rule 4: prev', () => {
      it('is null on page 0', async () => {
        const response = await list('/api/list/sended/0/', apiKey);

        expect(idsOf(response)).toHaveLength(PAGE_SIZE);
        expect(response.body.prev).toBeNull();
      });

      it('is the before link of the first entry on a page > 0', async () => {
        const response = await list('/api/list/sended/', apiKey, { page: 2 });

        expect(response.body.prev).toBe(link(`before/${ids[50]}/`));
      });

      it('is the before link of the first entry when after mode returned entries', async () => {
        const response = await list('/api/list/sended/', apiKey, { after_id: ids[9] });

        expect(response.body.prev).toBe(link(`before/${ids[10]}/`));
      });

      it('is the before link of the first entry when before mode returned entries', async () => {
        const response = await list(`/api/list/sended/before/${ids[40]}/`, apiKey);

        expect(response.body.prev).toBe(link(`before/${ids[15]}/`));
      });

      it('is null when after mode returned no entry', async () => {
        const response = await list(`/api/list/sended/after/${ids[59]}/`, apiKey);

        expect(response.body).toMatchObject({ response: [], next: null, prev: null });
      });

      it('leads from an empty page past the end back to the page before it', async () => {
        const response = await list('/api/list/sended/5/', apiKey);

        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({
          response: [],
          next: null,
          prev: link('4/'),
        });
      });

      it('answers the largest page number with an empty page, not an error', async () => {
        const response = await list('/api/list/sended/2147483647/', apiKey);

        expect(response.status).toBe(200);
        expect(response.body).toMatchObject({ response: [], prev: link('2147483646/') });
      });
    });

    describe('following the links', () => {
      it('walks the whole listing forwards through next', async () => {
        const seen: number[] = [];
        let response = await list('/api/list/sended/', apiKey);
        let requests = 1;
        seen.push(...idsOf(response));
        while (response.body.next !== null) {
          response = await follow(response.body.next as string);
          expect(response.status).toBe(200);
          seen.push(...idsOf(response));
          requests += 1;
        }

        expect(seen).toEqual(ids);
        expect(requests).toBe(3);
      });

      it('walks the whole listing backwards through prev from the last page', async () => {
        let response = await list('/api/list/sended/2/', apiKey);
        const pages: number[][] = [idsOf(response)];
        while (response.body.prev !== null) {
          response = await follow(response.body.prev as string);
          expect(response.status).toBe(200);
          pages.unshift(idsOf(response));
        }

        expect(pages.flat()).toEqual(ids);
        expect(pages.map((page) => page.length)).toEqual([0, 25, 25, 10]);
      });

      it('walks back from an empty page past the end to the last entries', async () => {
        const empty = await list('/api/list/sended/3/', apiKey);
        const lastPage = await follow(empty.body.prev as string);

        expect(idsOf(empty)).toEqual([]);
        expect(idsOf(lastPage)).toEqual(ids.slice(50));
      });
    });

    describe('link base and key', () => {
      it('puts the key presented in the X-Api-Key header into the links', async () => {
        const response = await api(t, apiKey).get('/api/list/sended/1/');

        expect(response.status).toBe(200);
        expect(response.body.next).toBe(link(`after/${ids[49]}/`));
        expect(response.body.prev).toBe(link(`before/${ids[25]}/`));
      });

      it('builds the links from the host the request came to when PUBLIC_URL is not set', async () => {
        const response = await list('/api/list/sended/1/', apiKey).set(
          'Host',
          'gateway.example:8080',
        );

        expect(response.body.next).toBe(
          listLink('http://gateway.example:8080', 'sended', `after/${ids[49]}/`, apiKey),
        );
        expect(response.body.prev).toBe(
          listLink('http://gateway.example:8080', 'sended', `before/${ids[25]}/`, apiKey),
        );
      });

      describe('with PUBLIC_URL', () => {
        let publicApp: TestApp;

        beforeAll(async () => {
          publicApp = await startApp(database(), { PUBLIC_URL: 'https://sms.example.com' });
        });
        afterAll(async () => {
          await publicApp.close();
        });

        it('builds the links on PUBLIC_URL, whatever host the request came to', async () => {
          const response = await api(publicApp, apiKey, 'query')
            .get('/api/list/sended/1/')
            .set('Host', 'internal:3000');

          expect(response.status).toBe(200);
          expect(response.body.next).toBe(
            listLink('https://sms.example.com', 'sended', `after/${ids[49]}/`, apiKey),
          );
          expect(response.body.prev).toBe(
            listLink('https://sms.example.com', 'sended', `before/${ids[25]}/`, apiKey),
          );
        });
      });

      describe('with BASE_PATH', () => {
        let mounted: TestApp;

        beforeAll(async () => {
          mounted = await startApp(database(), { BASE_PATH: '/raspisms' });
        });
        afterAll(async () => {
          await mounted.close();
        });

        it('serves the listing under BASE_PATH and puts BASE_PATH into the links', async () => {
          const response = await api(mounted, apiKey, 'query').get('/raspisms/api/list/sended/');

          expect(response.status).toBe(200);
          expect(idsOf(response)).toEqual(ids.slice(0, PAGE_SIZE));
          const next = listLink(`${mounted.url}/raspisms`, 'sended', `after/${ids[24]}/`, apiKey);
          expect(response.body.next).toBe(next);

          const url = new URL(next);
          const following = await request(mounted.url).get(url.pathname + url.search);
          expect(idsOf(following)).toEqual(ids.slice(25, 50));
          expect(following.body.prev).toBe(
            listLink(`${mounted.url}/raspisms`, 'sended', `before/${ids[25]}/`, apiKey),
          );
        });

        it('serves nothing outside BASE_PATH', async () => {
          const response = await api(mounted, apiKey, 'query').get('/api/list/sended/');

          expect(response.status).toBe(404);
          expect(response.body).toMatchObject({ error: INVALID_PARAMETER, response: null });
        });
      });
    });

    describe('precedence of after_id and before_id over page', () => {
      it.each([
        ['/api/list/sended/1/', {}],
        ['/api/list/sended/', { page: 1 }],
      ])('lets after_id win over page (%s %j)', async (path, query) => {
        const response = await list(path, apiKey, { ...query, after_id: ids[4] });

        expect(response.status).toBe(200);
        expect(idsOf(response)).toEqual(ids.slice(5, 30));
      });

      it.each([
        ['/api/list/sended/2/', {}],
        ['/api/list/sended/', { page: 2 }],
      ])('lets before_id win over page (%s %j)', async (path, query) => {
        const response = await list(path, apiKey, { ...query, before_id: ids[30] });

        expect(response.status).toBe(200);
        expect(idsOf(response)).toEqual(ids.slice(5, 30));
      });

      it.each([
        [
          'both in the query',
          '/api/list/sended/',
          () => ({ after_id: ids[4], before_id: ids[30] }),
        ],
        ['after in the path', `/api/list/sended/after/ID/`, () => ({ before_id: ids[30] })],
        ['before in the path', `/api/list/sended/before/ID/`, () => ({ after_id: ids[4] })],
      ])(
        'refuses after_id with before_id with INVALID_PARAMETER (%s)',
        async (_how, path, query) => {
          const response = await list(path.replace('ID', String(ids[10])), apiKey, query());

          expect(response.status).toBe(400);
          expect(response.body).toMatchObject({ error: INVALID_PARAMETER, response: null });
          expect(response.body.message).toMatch(new RegExp(`^${INVALID_PREFIX}.*after_id`));
          expect(response.body.message).toContain('before_id');
        },
      );
    });
  });

  describe('invalid paging parameters', () => {
    it.each([
      ['/api/list/sended/?page=abc', 'page'],
      ['/api/list/sended/?page=-1', 'page'],
      ['/api/list/sended/?page=1.5', 'page'],
      ['/api/list/sended/?page[]=1', 'page'],
      ['/api/list/sended/?page=2147483648', 'page'],
      ['/api/list/sended/abc/', 'page'],
      ['/api/list/sended/-1/', 'page'],
      ['/api/list/sended/1.5/', 'page'],
      ['/api/list/sended/after/', 'page'],
      ['/api/list/sended/before', 'page'],
      ['/api/list/sended/?after_id=abc', 'after_id'],
      ['/api/list/sended/?after_id=-1', 'after_id'],
      ['/api/list/sended/?after_id=1.5', 'after_id'],
      ['/api/list/sended/?after_id[a]=1', 'after_id'],
      ['/api/list/sended/after/abc/', 'after_id'],
      ['/api/list/sended/after/-1/', 'after_id'],
      ['/api/list/sended/after/1.5/', 'after_id'],
      ['/api/list/sended/?before_id=abc', 'before_id'],
      ['/api/list/sended/?before_id=-1', 'before_id'],
      ['/api/list/sended/?before_id=1.5', 'before_id'],
      ['/api/list/sended/before/abc/', 'before_id'],
      ['/api/list/sended/before/-1/', 'before_id'],
      ['/api/list/sended/before/1.5/', 'before_id'],
    ])('refuses %s with HTTP 400 INVALID_PARAMETER naming %s', async (path, parameter) => {
      const { apiKey } = await makeUser(ds);

      const response = await list(path, apiKey);

      expectInvalidParameter(response, parameter);
    });
  });

  describe('trailing slash', () => {
    it.each([
      ['/api/list/phone', '/api/list/phone/'],
      ['/api/list/phone/1', '/api/list/phone/1/'],
      ['/api/list/phone/after/ID', '/api/list/phone/after/ID/'],
      ['/api/list/phone/before/ID', '/api/list/phone/before/ID/'],
    ])('serves %s as %s', async (bare, slashed) => {
      const { user, apiKey } = await makeUser(ds);
      const phones: number[] = [];
      for (let index = 0; index < 30; index += 1) {
        phones.push((await makePhone(ds, user.id)).id);
      }
      const at = (path: string) => path.replace('ID', String(phones[27]));

      const withoutSlash = await list(at(bare), apiKey);
      const withSlash = await list(at(slashed), apiKey);

      expect(withSlash.status).toBe(200);
      expect(idsOf(withSlash).length).toBeGreaterThan(0);
      expect(withoutSlash.status).toBe(200);
      expect(withoutSlash.body).toEqual(withSlash.body);
    });
  });

  describe('a page costs a fixed number of queries, whatever its size', () => {
    /** Fills a user's listing of `type` with `count` entries, each with every extra it can have. */
    const fillers: Partial<Record<EntryType, (userId: number, count: number) => Promise<void>>> = {
      scheduled: async (userId, count) => {
        for (let index = 0; index < count; index += 1) {
          const contact = await makeContact(ds, userId);
          const group = await makeGroup(ds, userId, [contact.id]);
          const conditionalGroup = await makeConditionalGroup(ds, userId);
          const media = await makeMedia(ds, userId);
          await makeScheduled(ds, userId, {
            numbers: [{ number: '+33611111111' }, { number: '+33622222222' }],
            contactIds: [contact.id],
            groupIds: [group.id],
            conditionalGroupIds: [conditionalGroup.id],
            mediaIds: [media.id],
          });
        }
      },
      group: async (userId, count) => {
        for (let index = 0; index < count; index += 1) {
          const first = await makeContact(ds, userId);
          const second = await makeContact(ds, userId);
          await makeGroup(ds, userId, [first.id, second.id]);
        }
      },
      phone_group: async (userId, count) => {
        for (let index = 0; index < count; index += 1) {
          const first = await makePhone(ds, userId);
          const second = await makePhone(ds, userId, { adapter: 'twilio' });
          await makePhoneGroup(ds, userId, [first.id, second.id]);
        }
      },
      sended: async (userId, count) => {
        for (let index = 0; index < count; index += 1) {
          await makeSended(ds, userId, { mediaIds: [(await makeMedia(ds, userId)).id] });
        }
      },
      received: async (userId, count) => {
        for (let index = 0; index < count; index += 1) {
          await makeReceived(ds, userId, { mediaIds: [(await makeMedia(ds, userId)).id] });
        }
      },
    };
    /** A table only the extras' queries read. */
    const linkTable: Partial<Record<EntryType, string>> = {
      scheduled: 'scheduled_number',
      group: 'group_contact',
      phone_group: 'phone_group_phone',
      sended: 'media_sended',
      received: 'media_received',
    };
    const extrasOf: Partial<Record<EntryType, string[]>> = {
      scheduled: ['numbers', 'contacts', 'groups', 'conditional_groups', 'medias'],
      group: ['contacts'],
      phone_group: ['phones'],
      sended: ['medias'],
      received: ['medias'],
    };

    it.each(['scheduled', 'group', 'phone_group', 'sended', 'received'] as const)(
      'lists a page of 25 %s entries with as many queries as a page of 1',
      async (type) => {
        const fill = fillers[type] as (userId: number, count: number) => Promise<void>;
        const small = await makeUser(ds);
        const full = await makeUser(ds);
        await fill(small.user.id, 1);
        await fill(full.user.id, PAGE_SIZE);

        const smallPage = await withQueries(ds, () => list(`/api/list/${type}/`, small.apiKey));
        const fullPage = await withQueries(ds, () => list(`/api/list/${type}/`, full.apiKey));

        for (const [page, size] of [
          [smallPage, 1],
          [fullPage, PAGE_SIZE],
        ] as const) {
          expect(page.result.status).toBe(200);
          const rows = page.result.body.response as Row[];
          expect(rows).toHaveLength(size);
          for (const row of rows) {
            for (const extra of extrasOf[type] ?? []) {
              expect((row[extra] as Row[]).length).toBeGreaterThan(0);
            }
          }
        }
        // The counter sees the requests' SQL, the extras' queries included.
        expect(smallPage.queries.length).toBeGreaterThan(0);
        expect(fullPage.queries.some((sql) => sql.includes(linkTable[type] as string))).toBe(true);
        expect(fullPage.queries).toHaveLength(smallPage.queries.length);
      },
    );
  });
});
