/** The nine entry types, in RaspiSMS's order (the error message lists them so). */
export const ENTRY_TYPES = [
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

export type EntryType = (typeof ENTRY_TYPES)[number];

export function isEntryType(value: unknown): value is EntryType {
  return typeof value === 'string' && (ENTRY_TYPES as readonly string[]).includes(value);
}
