import './common.css';
import { useInfiniteQuery } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { PAGE_SIZE } from '../../api/entries';
import { LoadError } from '../common/LoadError';
import { useDebounced } from './useDebounced';

/** An entry that can be chosen: its id and what a person recognises it by. */
export interface Choosable {
  id: number;
  name: string;
}

/**
 * Chooses entries (contacts, groups, conditional groups) from the API's pages of 25: searched by
 * the server when `searchLabel` is given, never all loaded at once; "More" reads the next page.
 * The chosen ones are listed with a button to remove each. With `single`, choosing one replaces
 * the one chosen before.
 */
export function EntryPicker<T extends Choosable>({
  label,
  searchLabel,
  queryKey,
  load,
  chosen,
  onChange,
  describe = (entry) => entry.name,
  single = false,
  listChosen = true,
  error,
}: {
  /** What is chosen, plural: "Contacts". */
  label: string;
  searchLabel?: string;
  queryKey: readonly unknown[];
  load: (search: string, afterId?: number) => Promise<T[]>;
  chosen: readonly T[];
  onChange: (chosen: T[]) => void;
  describe?: (entry: T) => string;
  single?: boolean;
  /** Off where the caller lists what is chosen itself (a group's members, paged). */
  listChosen?: boolean;
  error?: string;
}) {
  const id = useId();
  const [search, setSearch] = useState('');
  const searched = useDebounced(search.trim(), 300);
  const pages = useInfiniteQuery({
    queryKey: [...queryKey, 'pick', searched],
    queryFn: ({ pageParam }) => load(searched, pageParam),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (last) => (last.length === PAGE_SIZE ? last[last.length - 1].id : undefined),
  });
  const chosenIds = new Set(chosen.map((entry) => entry.id));
  const found = pages.data?.pages.flat() ?? [];

  function add(entry: T) {
    onChange(single ? [entry] : [...chosen, entry]);
  }

  return (
    <div className="entry-picker" role="group" aria-labelledby={`${id}-label`}>
      <p id={`${id}-label`} className="entry-picker-label">
        {label}
      </p>
      {listChosen && chosen.length > 0 && (
        <ul className="chosen" aria-label={`${label} chosen`}>
          {chosen.map((entry) => (
            <li key={entry.id}>
              <span>{describe(entry)}</span>
              <button
                type="button"
                className="remove"
                aria-label={`Remove ${describe(entry)}`}
                onClick={() => onChange(chosen.filter((other) => other.id !== entry.id))}
              >
                ×
              </button>
            </li>
          ))}
        </ul>
      )}
      {error && (
        <p className="error" role="alert">
          {error}
        </p>
      )}
      {searchLabel && (
        <>
          <label htmlFor={`${id}-search`}>{searchLabel}</label>
          <input
            id={`${id}-search`}
            type="search"
            value={search}
            onChange={(event) => setSearch(event.target.value)}
            autoComplete="off"
          />
        </>
      )}
      {pages.isError ? (
        <LoadError error={pages.error} retry={pages.refetch} />
      ) : pages.isPending ? (
        <p className="muted">Loading…</p>
      ) : found.length === 0 ? (
        <p className="muted">{searched ? `No match for “${searched}”.` : 'None yet.'}</p>
      ) : (
        <ul className="found" aria-label={`${label} found`}>
          {found.map((entry) => (
            <li key={entry.id}>
              <button
                type="button"
                onClick={() => add(entry)}
                disabled={chosenIds.has(entry.id)}
                aria-label={
                  chosenIds.has(entry.id)
                    ? undefined
                    : `${single ? 'Choose' : 'Add'} ${describe(entry)}`
                }
              >
                {describe(entry)}
                {chosenIds.has(entry.id) && (
                  <span className="picked"> ✓ {single ? 'chosen' : 'added'}</span>
                )}
              </button>
            </li>
          ))}
        </ul>
      )}
      {pages.hasNextPage && (
        <button
          type="button"
          className="secondary"
          onClick={() => void pages.fetchNextPage()}
          disabled={pages.isFetchingNextPage}
        >
          {pages.isFetchingNextPage ? 'Loading…' : `More ${label.toLowerCase()}`}
        </button>
      )}
    </div>
  );
}
