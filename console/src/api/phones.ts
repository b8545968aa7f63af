import { listEntryRows } from './entries';

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
