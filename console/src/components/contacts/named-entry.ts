import type { ReactNode } from 'react';
import type { Cursor, ListQuery } from '../../api/entries';

/** An entry of a list of groups: its id, its name, and what the table says of it. */
export interface NamedEntry {
  id: number;
  name: string;
}

/** What an entry's form is given: the entry when it exists, and what saving does. */
export interface EntryFormProps<T, F> {
  entry?: T;
  save: (fields: F) => Promise<unknown>;
  onSaved: (saved: unknown) => unknown;
  submitLabel: string;
}

/**
 * A kind of named entry with its own pages under /contacts (groups, conditional groups): how the
 * pages name it, where it is, its API and its form. The list, new and detail pages are the same
 * for every kind.
 */
export interface NamedEntryKind<T extends NamedEntry, F> {
  /** The list's title: "Groups". */
  title: string;
  /** One entry, for the headings, the buttons and the empty list: "group". */
  noun: string;
  /** Where the list is: its entries are at `${path}/{id}`, a new one at `${path}/new`. */
  path: string;
  queryKey: readonly unknown[];
  list: (query: ListQuery) => Promise<{ groups: T[]; next: Cursor | null; prev: Cursor | null }>;
  /** The list's second column, and what it says of an entry. */
  column: string;
  describe: (entry: T) => string;
  get: (id: number) => Promise<T>;
  create: (fields: F) => Promise<unknown>;
  update: (id: number, fields: F) => Promise<unknown>;
  remove: (id: number) => Promise<void>;
  /** Said after the name when asking to delete, e.g. what stays. */
  deleteNote?: string;
  Form: (props: EntryFormProps<T, F>) => ReactNode;
}

/** The noun as a piece of an element's id: "conditional-group". */
export function slugOf(noun: string): string {
  return noun.replace(/\W/g, '-');
}
