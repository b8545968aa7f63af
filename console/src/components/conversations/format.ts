/** A correspondent as a person reads it: the contact's name, else the number. */
export function correspondentName(number: string, contactName: string | null | undefined): string {
  return contactName ?? number;
}

/** Whether a reply can go to `number`: senders that are names or short codes take none. */
export function canReplyTo(number: string): boolean {
  return /^\+\d+$/.test(number);
}

/** `YYYY-MM-DD HH:MM:SS` of the service's time zone, without its seconds. */
export function shortTime(at: string): string {
  return at.slice(0, 16);
}

/** The path of a conversation's thread, under the page's own route. */
export function threadPath(number: string): string {
  return `/conversations/${encodeURIComponent(number)}`;
}
