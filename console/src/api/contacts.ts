import { answerOf, api, ApiError, type paths } from './client';
import { type Cursor, listEntries, listEntryRows, type ListQuery } from './entries';
import { csrfHeader } from './session';

/** A contact as get_contact answers it, which is also how get_entries lists contacts. */
export type Contact = NonNullable<
  paths['/api/contact/{id}']['get']['responses'][200]['content']['application/json']['response']
>;

/** A contact's fields as the console writes them: `data` is the JSON object of its template data. */
export interface ContactFields {
  name: string;
  number: string;
  data: Record<string, string | number | boolean>;
}

/** What post_import_contacts did. */
export type ImportCounts = NonNullable<
  paths['/api/contact/import']['post']['responses'][200]['content']['application/json']['response']
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

/** One page of contacts, filtered by get_entries' `name` and `number`, with its cursors. */
export async function listContacts(
  query: ListQuery,
): Promise<{ contacts: Contact[]; next: Cursor | null; prev: Cursor | null }> {
  const page = await listEntries('contact', query);
  return { contacts: page.entries as Contact[], next: page.next, prev: page.prev };
}

export function getContact(id: number): Promise<Contact> {
  return answerOf(api.GET('/api/contact/{id}', { params: { path: { id } } }));
}

export function createContact(contact: ContactFields): Promise<number> {
  return answerOf(api.POST('/api/contact', { body: contact }));
}

export function updateContact(id: number, contact: Partial<ContactFields>): Promise<Contact> {
  return answerOf(api.POST('/api/contact/{id}', { params: { path: { id } }, body: contact }));
}

export async function deleteContact(id: number): Promise<void> {
  await answerOf(api.DELETE('/api/contact/{id}', { params: { path: { id } } }));
}

/** How far an upload has gone: bytes sent of the total. */
export interface UploadProgress {
  loaded: number;
  total: number;
}

/**
 * post_import_contacts with a CSV file. Sent through XMLHttpRequest rather than `api`, whose
 * fetch reports no upload progress; it carries the session's CSRF header as `api` does, and its
 * answer is read as answerOf reads any other.
 */
export function importContacts(
  file: File,
  onProgress: (progress: UploadProgress) => void,
): Promise<ImportCounts> {
  const form = new FormData();
  form.append('contacts_csv', file);
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open('POST', new URL('api/contact/import', document.baseURI).href);
    request.setRequestHeader('Accept', 'application/json');
    for (const [name, value] of Object.entries(csrfHeader())) {
      request.setRequestHeader(name, value);
    }
    for (const type of ['progress', 'load'] as const) {
      request.upload.addEventListener(type, (event) => {
        if (event.lengthComputable) {
          onProgress({ loaded: event.loaded, total: event.total });
        }
      });
    }
    request.addEventListener('error', () =>
      reject(new ApiError(0, 0, 'smsgw cannot be reached: check the connection and try again.')),
    );
    request.addEventListener('load', () => {
      const response = new Response(request.responseText, {
        status: request.status,
        headers: { 'Content-Type': 'application/json' },
      });
      let data: unknown;
      try {
        data = JSON.parse(request.responseText);
      } catch {
        data = undefined;
      }
      const answer = response.ok ? { data, response } : { error: data, response };
      resolve(
        answerOf<ImportCounts>(
          Promise.resolve(answer) as Parameters<typeof answerOf<ImportCounts>>[0],
        ),
      );
    });
    request.send(form);
  });
}
