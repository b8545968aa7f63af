import { type Entry, int, listAllEntries, listEntryRows, text } from './entries';

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
