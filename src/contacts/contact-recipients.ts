import { select, Sql } from '../database/driver/sql';
import { RecipientInput } from '../text/recipient-text';

/**
 * A contact's row as conditions and templates are fed from it: its columns as the driver returns
 * them (datetimes as the stored UTC text). The dispatch and the conditional-group previews both
 * read contacts this way, so that a condition sees the same values in both.
 */
export interface ContactRow {
  id: number;
  name: string;
  number: string;
  data: string | null;
  created_at: string;
  updated_at: string | null;
}

/** A contact as a recipient: its number, and what conditions and templates see of it. */
export interface ContactRecipient extends RecipientInput {
  number: string;
}

/** The columns of a ContactRow, for queries that join other tables (prefixed with `c.`). */
export const CONTACT_ROW_COLUMNS = ['id', 'name', 'number', 'data', 'created_at', 'updated_at'];

/**
 * The user's contacts after `afterId`, in id order, up to `limit`: the scan of the contacts a
 * conditional group's condition is tested against.
 */
export function userContactsAfter(
  userId: number,
  afterId: number,
  limit: number,
): Sql<ContactRow[]> {
  return select<ContactRow>(
    `SELECT ${CONTACT_ROW_COLUMNS.join(', ')} FROM contact ` +
      'WHERE id_user = ? AND id > ? ORDER BY id LIMIT ?',
    [userId, afterId, limit],
  );
}

/** The user's contact `id`, read as the dispatch reads contacts; no row when it is not theirs. */
export function userContact(userId: number, id: number): Sql<ContactRow[]> {
  return select<ContactRow>(
    `SELECT ${CONTACT_ROW_COLUMNS.join(', ')} FROM contact WHERE id_user = ? AND id = ?`,
    [userId, id],
  );
}

/** `contact` is the contact's data; `contact_metas` its id, name, number and timestamps. */
export function contactRecipient(contact: ContactRow): ContactRecipient {
  return {
    number: contact.number,
    data: contact.data,
    metas: {
      id: Number(contact.id),
      name: contact.name,
      number: contact.number,
      created_at: contact.created_at,
      updated_at: contact.updated_at,
    },
  };
}
