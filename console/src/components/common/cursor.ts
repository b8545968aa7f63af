import { useSearchParams } from 'react-router';
import { CURSOR_NAMES, type Cursor } from '../../api/entries';

/** The page's cursor in its query string; none is the newest page. */
export function useCursor(): Cursor | null {
  const [search] = useSearchParams();
  for (const name of CURSOR_NAMES) {
    const value = search.get(name);
    if (value !== null && /^\d+$/.test(value)) {
      return { [name]: Number(value) };
    }
  }
  return null;
}

/** The page's query string with `cursor` in place of the current one. */
export function searchWithCursor(search: URLSearchParams, cursor: Cursor | null): string {
  const next = new URLSearchParams(search);
  for (const name of CURSOR_NAMES) {
    next.delete(name);
  }
  for (const [name, value] of Object.entries(cursor ?? {})) {
    next.set(name, String(value));
  }
  const text = next.toString();
  return text ? `?${text}` : '';
}
