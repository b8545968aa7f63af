import { answerOf, api, type paths } from './client';
import { listEntryRows } from './entries';

/** A contact as get_contact answers it, which is also how get_entries lists contacts. */
export type Contact = NonNullable<
  paths['/api/contact/{id}']['get']['responses'][200]['content']['application/json']['response']
>;

export const CONTACTS_KEY = ['contacts'] as const;

/**
 * A page of the caller's contacts whose name holds `name` (all of them when it is empty), searched
 * by the API: the console never loads every contact.
 */
export async function searchContacts(name: string, afterId?: number): Promise<Contact[]> {
  const entries = await listEntryRows('contact', { name: name || undefined, after_id: afterId });
  return entries as Contact[];
}

export function getContact(id: number): Promise<Contact> {
  return answerOf(api.GET('/api/contact/{id}', { params: { path: { id } } }));
}
