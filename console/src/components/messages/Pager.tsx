import { Link, useSearchParams } from 'react-router';
import type { Cursor } from '../../api/entries';
import { searchWithCursor, useCursor } from './list-query';

/**
 * Links to the older and newer pages, with the cursors of the API's `prev` and `next` links
 * (the API lists oldest first, the page newest first). The newest page, where the list opens,
 * has no newer one.
 */
export function Pager({ older, newer }: { older: Cursor | null; newer: Cursor | null }) {
  const [search] = useSearchParams();
  const cursor = useCursor();
  const atNewest = cursor === null;
  if (!older && (atNewest || !newer)) {
    return null;
  }
  return (
    <nav className="pager" aria-label="Pages">
      {!atNewest && <Link to={searchWithCursor(search, null)}>Newest</Link>}
      {!atNewest && newer && <Link to={searchWithCursor(search, newer)}>Newer</Link>}
      {older && <Link to={searchWithCursor(search, older)}>Older</Link>}
    </nav>
  );
}
