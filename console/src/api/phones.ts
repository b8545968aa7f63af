import { answerOf, api } from './client';

/** A phone's status, as the API lists it. */
export type PhoneStatus = 'available' | 'unavailable' | 'no_credit' | 'limit_reached' | 'disabled';

/**
 * What the console shows of a phone. The OpenAPI document describes the listing's entries only
 * as objects (their fields depend on the entry type), so these fields are read and checked one
 * by one rather than trusted.
 */
export interface PhoneSummary {
  id: number;
  name: string;
  status: PhoneStatus;
}

/** TanStack Query's key of the caller's phones. */
export const PHONES_KEY = ['phones'] as const;

const STATUSES: readonly string[] = [
  'available',
  'unavailable',
  'no_credit',
  'limit_reached',
  'disabled',
] satisfies PhoneStatus[];

function summaryOf(entry: Record<string, unknown>): PhoneSummary {
  const { id, name, status } = entry;
  if (typeof id !== 'number' || typeof name !== 'string' || !STATUSES.includes(String(status))) {
    throw new Error('smsgw listed a phone without its id, name or status.');
  }
  return { id, name, status: status as PhoneStatus };
}

/** The listing's page size: a shorter page is the last. */
const PAGE_SIZE = 25;

/** Every phone of the caller, by id: the listing's pages one after another. */
export async function listPhones(): Promise<PhoneSummary[]> {
  const phones: PhoneSummary[] = [];
  for (;;) {
    const after_id = phones.at(-1)?.id;
    const page = await answerOf(
      api.GET('/api/list/{entry_type}', {
        params: {
          path: { entry_type: 'phone' },
          query: after_id === undefined ? {} : { after_id },
        },
      }),
    );
    phones.push(...page.map(summaryOf));
    if (page.length < PAGE_SIZE) {
      return phones;
    }
  }
}
