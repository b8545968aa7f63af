import './common.css';
import { Link, useSearchParams } from 'react-router';
import { type Cursor, PAGE_SIZE } from '../../api/entries';
import { searchWithCursor, useCursor } from './cursor';

/**
 * Links to the older and newer pages, with the cursors of the API's `prev` and `next` links
 * (the API lists oldest first, the page newest first). The newest page, where the list opens,
 * has no newer one. The API gives a page read before an id a `prev` link whenever it is not
 * empty; one shorter than a full page has nothing older, so the link is left out.
 */
export function Pager({
  older,
  newer,
  count,
}: {
  older: Cursor | null;
  newer: Cursor | null;
  count: number;
}) {
  const [search] = useSearchParams();
  const cursor = useCursor();
  const atNewest = cursor === null;
  const readBefore = atNewest || cursor.before_id !== undefined;
  const olderPage = readBefore && count < PAGE_SIZE ? null : older;
  if (!olderPage && (atNewest || !newer)) {
    return null;
  }
  return (
    <nav className="pager" aria-label="Pages">
      {!atNewest && <Link to={searchWithCursor(search, null)}>Newest</Link>}
      {!atNewest && newer && <Link to={searchWithCursor(search, newer)}>Newer</Link>}
      {olderPage && <Link to={searchWithCursor(search, olderPage)}>Older</Link>}
    </nav>
  );
}
