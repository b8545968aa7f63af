import { DataSource, ObjectLiteral } from 'typeorm';
import { AdapterRegistry } from '../../src/adapters/adapter.registry';
import { ADAPTERS } from '../../src/adapters/adapters.module';
import { generateApiKey, hashApiKey } from '../../src/common/auth/api-key';
import { nameKey } from '../../src/common/params/entry-name';
import { parseTextRecord, sealFields } from '../../src/common/secrets/sealed-fields';
import { chunks, rowMarks } from '../../src/database/driver/placeholders';
import { secretCipherOf } from '../../src/database/secrets-key.check';
import { ConditionalGroup } from '../../src/conditional-groups/entities/conditional-group.entity';
import { Contact } from '../../src/contacts/entities/contact.entity';
import { Group, GroupContact } from '../../src/groups/entities/group.entity';
import {
  Media,
  MediaReceived,
  MediaScheduled,
  MediaSended,
} from '../../src/media/entities/media.entity';
import { Received } from '../../src/received/entities/received.entity';
import { Sended } from '../../src/sended/entities/sended.entity';
import { PhoneGroup, PhoneGroupPhone } from '../../src/phone-groups/entities/phone-group.entity';
import { PhoneLimit } from '../../src/phones/entities/phone-limit.entity';
import { adapterDataScope } from '../../src/common/secrets/adapter-data-scope';
import { Phone } from '../../src/phones/entities/phone.entity';
import {
  Scheduled,
  ScheduledConditionalGroup,
  ScheduledContact,
  ScheduledGroup,
  ScheduledNumber,
} from '../../src/scheduled/entities/scheduled.entity';
import { Quota } from '../../src/users/entities/quota.entity';
import { Setting } from '../../src/users/entities/setting.entity';
import { User } from '../../src/users/entities/user.entity';
import { DEFAULT_SETTINGS } from '../../src/users/settings';
import { adapterConfig } from './adapters.factories';

/*
 * Small factories: each inserts one row with sensible defaults, overridable field by field,
 * and returns it with its id. Datetimes are UTC `YYYY-MM-DD HH:MM:SS` strings, as stored.
 */

const STAMP = '2024-01-02 03:04:05';
let sequence = 0;
const next = () => ++sequence;

async function insert<T extends ObjectLiteral>(
  dataSource: DataSource,
  entity: new () => T,
  values: Partial<T>,
): Promise<T> {
  const row = Object.assign(new entity(), { created_at: STAMP, updated_at: null }, values);
  return dataSource.getRepository(entity).save(row);
}

export async function makeUser(
  dataSource: DataSource,
  overrides: Partial<User> & { apiKey?: string; settings?: Record<string, string> } = {},
): Promise<{ user: User; apiKey: string }> {
  const { apiKey = generateApiKey(), settings = {}, ...fields } = overrides;
  const user = await insert(dataSource, User, {
    email: `user${next()}@example.test`,
    api_key_hash: hashApiKey(apiKey),
    admin: 0,
    status: 'active',
    ...fields,
  });
  for (const [name, value] of Object.entries({ ...DEFAULT_SETTINGS, ...settings })) {
    await insert(dataSource, Setting, { id_user: user.id, name, value });
  }
  return { user, apiKey };
}

/** The real adapters, for the secret fields of their descriptors. */
const adapters = new AdapterRegistry(ADAPTERS.map((Adapter) => new Adapter(adapterConfig())));

/**
 * A phone; `adapter_data` is given in clear and stored as the app stores it, its adapter's
 * secret fields encrypted with the data source's key.
 */
export async function makePhone(
  ds: DataSource,
  id_user: number,
  o: Partial<Phone> = {},
): Promise<Phone> {
  const phone = await insert(ds, Phone, {
    id_user,
    name: `phone ${next()}`,
    adapter: 'test',
    adapter_data: '{}',
    priority: 0,
    status: 'available',
    rate: null,
    ...o,
  });
  const secrets = adapters.secretFields(phone.adapter);
  const data = parseTextRecord(phone.adapter_data);
  if (secrets.some((field) => field in data)) {
    phone.adapter_data = JSON.stringify(
      sealFields(secretCipherOf(ds), secrets, data, adapterDataScope(phone)),
    );
    await ds.getRepository(Phone).update({ id: phone.id }, { adapter_data: phone.adapter_data });
  }
  return phone;
}

export const makePhoneLimit = (ds: DataSource, id_phone: number, o: Partial<PhoneLimit> = {}) =>
  insert(ds, PhoneLimit, { id_phone, volume: 10, startpoint: 'today', ...o });

/** A named entry's row with the key its name is unique by, as the API writes it. */
function named<T extends { name?: string }>(row: T): T & { name_key: string | null } {
  return { ...row, name_key: row.name === undefined ? null : nameKey(row.name) };
}

export async function makePhoneGroup(
  ds: DataSource,
  id_user: number,
  phoneIds: number[] = [],
  o: Partial<PhoneGroup> = {},
): Promise<PhoneGroup> {
  const group = await insert(
    ds,
    PhoneGroup,
    named({ id_user, name: `phone group ${next()}`, ...o }),
  );
  for (const id_phone of phoneIds) {
    await insert(ds, PhoneGroupPhone, { id_phone_group: group.id, id_phone });
  }
  return group;
}

export const makeContact = (ds: DataSource, id_user: number, o: Partial<Contact> = {}) =>
  insert(
    ds,
    Contact,
    named({
      id_user,
      name: `contact ${next()}`,
      number: '+33612345678',
      data: '{"firstname":"John"}',
      ...o,
    }),
  );

export async function makeGroup(
  ds: DataSource,
  id_user: number,
  contactIds: number[] = [],
  o: Partial<Group> = {},
): Promise<Group> {
  const group = await insert(ds, Group, named({ id_user, name: `group ${next()}`, ...o }));
  for (const id_contact of contactIds) {
    await insert(ds, GroupContact, { id_group: group.id, id_contact });
  }
  return group;
}

export const makeConditionalGroup = (
  ds: DataSource,
  id_user: number,
  o: Partial<ConditionalGroup> = {},
) =>
  insert(
    ds,
    ConditionalGroup,
    named({
      id_user,
      name: `conditional group ${next()}`,
      condition: "contact.gender == 'female'",
      ...o,
    }),
  );

export const makeMedia = (ds: DataSource, id_user: number, o: Partial<Media> = {}) =>
  insert(ds, Media, { id_user, path: `${id_user}/${next()}.png`, ...o });

export async function makeScheduled(
  ds: DataSource,
  id_user: number,
  o: Partial<Scheduled> & {
    numbers?: Array<{ number: string; data?: string }>;
    contactIds?: number[];
    groupIds?: number[];
    conditionalGroupIds?: number[];
    mediaIds?: number[];
  } = {},
): Promise<Scheduled> {
  const {
    numbers = [],
    contactIds = [],
    groupIds = [],
    conditionalGroupIds = [],
    mediaIds = [],
    ...fields
  } = o;
  const scheduled = await insert(ds, Scheduled, {
    id_user,
    at: STAMP,
    text: 'Hello',
    flash: 0,
    mms: 0,
    id_phone: null,
    id_phone_group: null,
    tag: null,
    ...fields,
    // Due when it is, as a message without a send window.
    send_after: fields.send_after ?? fields.at ?? STAMP,
  });
  const id_scheduled = scheduled.id;
  for (const n of numbers) {
    await insert(ds, ScheduledNumber, { id_scheduled, number: n.number, data: n.data ?? '[]' });
  }
  for (const id_contact of contactIds) {
    await insert(ds, ScheduledContact, { id_scheduled, id_contact });
  }
  for (const id_group of groupIds) {
    await insert(ds, ScheduledGroup, { id_scheduled, id_group });
  }
  for (const id_conditional_group of conditionalGroupIds) {
    await insert(ds, ScheduledConditionalGroup, { id_scheduled, id_conditional_group });
  }
  for (const id_media of mediaIds) {
    await insert(ds, MediaScheduled, { id_scheduled, id_media });
  }
  return scheduled;
}

export async function makeSended(
  ds: DataSource,
  id_user: number,
  o: Partial<Sended> & { mediaIds?: number[] } = {},
): Promise<Sended> {
  const { mediaIds = [], ...fields } = o;
  const sended = await insert(ds, Sended, {
    id_user,
    id_phone: null,
    at: STAMP,
    text: 'Hello',
    destination: '+33612345678',
    flash: 0,
    mms: 0,
    status: 'unknown',
    error: null,
    uid: `uid-${next()}`,
    adapter: 'test',
    tag: null,
    originating_scheduled: null,
    segments: 1,
    encoding: 'GSM-7',
    ...fields,
  });
  for (const id_media of mediaIds) {
    await insert(ds, MediaSended, { id_sended: sended.id, id_media });
  }
  return sended;
}

export async function makeReceived(
  ds: DataSource,
  id_user: number,
  o: Partial<Received> & { mediaIds?: number[] } = {},
): Promise<Received> {
  const { mediaIds = [], ...fields } = o;
  const received = await insert(ds, Received, {
    id_user,
    id_phone: null,
    at: STAMP,
    text: 'Hi there',
    origin: '+33612345678',
    command: 0,
    status: 'unread',
    mms: 0,
    ...fields,
  });
  for (const id_media of mediaIds) {
    await insert(ds, MediaReceived, { id_received: received.id, id_media });
  }
  return received;
}

/** A quota of 10 segments whose period runs from 2020 to 2100: current whatever the clock. */
export const makeQuota = (ds: DataSource, id_user: number, o: Partial<Quota> = {}) =>
  insert(ds, Quota, {
    id_user,
    credit: 10,
    additional: 0,
    consumed: 0,
    reserved: 0,
    start_date: '2020-01-01 00:00:00',
    expiration_date: '2100-01-01 00:00:00',
    renew_interval: 'P1M',
    auto_renew: 0,
    report_unused: 0,
    report_unused_additional: 0,
    alerted_close: 0,
    alerted_reached: 0,
    ...o,
  });

/** Multi-row INSERTs of `rows` into `table`. */
export async function insertRows(
  ds: DataSource,
  table: string,
  columns: string[],
  rows: unknown[][],
): Promise<void> {
  for (const chunk of chunks(rows, 200)) {
    await ds.query(
      `INSERT INTO ${table} (${columns.join(', ')}) VALUES ${rowMarks(chunk.length, columns.length)}`,
      chunk.flat(),
    );
  }
}
