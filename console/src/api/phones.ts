import { answerOf, api, type paths } from './client';
import {
  type Cursor,
  type Entry,
  int,
  listAllEntries,
  listEntries,
  listEntryRows,
  rows,
  text,
} from './entries';

/**
 * What the console shows of a phone to choose it. The API's listing of phones has no schema
 * of its own in the OpenAPI document, so these fields are read and checked one by one.
 */
export interface PhoneChoice {
  id: number;
  name: string;
  status: string;
}

export const PHONES_KEY = ['phones'] as const;

/** A page of the caller's phones, by id, after `afterId`. */
export async function listPhones(afterId?: number): Promise<PhoneChoice[]> {
  const entries = await listEntryRows('phone', { after_id: afterId });
  return entries.flatMap(({ id, name, status }) =>
    typeof id === 'number' && typeof name === 'string'
      ? [{ id, name, status: typeof status === 'string' ? status : '' }]
      : [],
  );
}

/** A phone's status, as the API lists it. */
export type PhoneStatus = 'available' | 'unavailable' | 'no_credit' | 'limit_reached' | 'disabled';

const STATUSES: readonly string[] = [
  'available',
  'unavailable',
  'no_credit',
  'limit_reached',
  'disabled',
] satisfies PhoneStatus[];

/** A phone with its status now, as the dashboard shows it. */
export interface PhoneSummary {
  id: number;
  name: string;
  status: PhoneStatus;
}

/** TanStack Query's key of every phone with its status, below the phones' key. */
export const PHONE_STATUSES_KEY = [...PHONES_KEY, 'all', 'status'] as const;

/** A listed phone's id, name and status, the status checked against those the API has. */
export function readPhoneStatus(row: Entry): PhoneSummary {
  const status = text(row.status);
  if (!STATUSES.includes(status)) {
    throw new Error(`smsgw listed a phone with a status the console does not know: "${status}".`);
  }
  return { id: int(row.id), name: text(row.name), status: status as PhoneStatus };
}

/** Every phone of the caller, by id, with its status. */
export async function listPhoneStatuses(): Promise<PhoneSummary[]> {
  return (await listAllEntries('phone')).map(readPhoneStatus);
}

/** A sending limit: at most `volume` messages since `startpoint` (a relative date). */
export interface PhoneLimit {
  volume: number;
  startpoint: string;
}

/** The URLs a phone's provider calls, null while the server has no PUBLIC_URL. */
export interface CallbackUrls {
  status: string;
  reception: string;
}

/** A phone as the Phones page lists it, read from its get_entries row. */
export interface PhoneDetails extends PhoneSummary {
  adapter: string;
  priority: number;
  rate: number | null;
  limits: PhoneLimit[];
  callbackUrls: CallbackUrls | null;
}

export function readPhoneDetails(row: Entry): PhoneDetails {
  const rate = row.rate === null || row.rate === undefined ? null : Number(row.rate);
  return {
    ...readPhoneStatus(row),
    adapter: text(row.adapter),
    priority: int(row.priority),
    rate: rate !== null && Number.isFinite(rate) ? rate : null,
    limits: rows(row.limits).map((limit) => ({
      volume: int(limit.volume),
      startpoint: text(limit.startpoint),
    })),
    callbackUrls: readCallbackUrls(row.callback_urls),
  };
}

/** A phone as its page shows and edits it: what get_phone answers. */
export interface PhoneSettings extends PhoneDetails {
  /** The stored value of each of the adapter's non-secret fields. */
  adapterData: Record<string, string>;
  /** The secret fields with a stored value, never shown. */
  secretsSet: string[];
  /** The secret fields whose stored value the server can no longer decrypt. */
  unreadableSecrets: string[];
  /** What is wrong with the stored adapter data and what to do, or null. */
  dataError: string | null;
}

function readCallbackUrls(value: unknown): CallbackUrls | null {
  if (typeof value !== 'object' || value === null) {
    return null;
  }
  const urls = value as Record<string, unknown>;
  return { status: text(urls.status), reception: text(urls.reception) };
}

/** One page of the caller's phones, oldest first, with the cursors beside it. */
export async function listPhonePage(cursor: Cursor) {
  const page = await listEntries('phone', cursor);
  return { ...page, phones: page.entries.map(readPhoneDetails) };
}

/** get_phone: the caller's phone `id`; another's or none is an ApiError with status 404. */
export async function readPhone(id: number): Promise<PhoneSettings> {
  const phone = await answerOf(api.GET('/api/phone/{id}', { params: { path: { id } } }));
  return {
    ...readPhoneDetails(phone),
    adapterData: phone.adapter_data,
    secretsSet: phone.secrets_set,
    unreadableSecrets: phone.unreadable_secrets,
    dataError: phone.adapter_data_error,
  };
}

/** What post_phone and post_update_phone take, as the console sends them. */
export interface PhoneWrite {
  name?: string;
  adapter?: string;
  adapter_data?: Record<string, string>;
  priority?: number | string;
  /** Empty or null: no pacing. */
  rate?: number | string | null;
  /** Replaces every limit; empty removes them. */
  limits?: Array<{ volume: number | string; startpoint: string }>;
}

type CreateBody = NonNullable<
  paths['/api/phone']['post']['requestBody']
>['content']['application/json'];
type UpdateBody = NonNullable<
  paths['/api/phone/{id}']['post']['requestBody']
>['content']['application/json'];

/**
 * The generated body names each adapter and its fields as the server had them at build time;
 * the form is built from get_adapters at run time, so that a new provider needs no console change.
 */
export async function createPhone(phone: PhoneWrite): Promise<number> {
  return answerOf(api.POST('/api/phone', { body: phone as CreateBody }));
}

export async function updatePhone(id: number, changes: PhoneWrite): Promise<void> {
  await answerOf(
    api.POST('/api/phone/{id}', { params: { path: { id } }, body: changes as UpdateBody }),
  );
}

export async function deletePhone(id: number): Promise<void> {
  await answerOf(api.DELETE('/api/phone/{id}', { params: { path: { id } } }));
}

/** post_update_phone_status: the status the adapter (or a used-up limit) gives now. */
export async function checkPhoneStatus(id: number): Promise<string> {
  return answerOf(api.POST('/api/phone/{id}/status', { params: { path: { id } } }));
}

/** post_change_phone_status: sets the phone available or disabled. */
export async function forcePhoneStatus(id: number, status: 'available' | 'disabled') {
  return answerOf(
    api.POST('/api/phone/{id}/status/force', { params: { path: { id } }, body: { status } }),
  );
}

/** post_phone_callback_token: new callback URLs; the old ones stop working at once. */
export async function renewCallbackToken(id: number): Promise<void> {
  await answerOf(api.POST('/api/phone/{id}/callback-token', { params: { path: { id } } }));
}
