import type { Contact } from '../../api/contacts';

/** A contact as a person recognises it: its name and number. */
export function contactLabel(contact: Contact): string {
  return `${contact.name} (${contact.number})`;
}
