import { useLocation, useParams } from 'react-router';
import type { MessageKind } from './list-query';

/** The id of the message a detail route shows; NaN when the path holds none. */
export function useMessageId(): number {
  const { id } = useParams();
  return id !== undefined && /^\d+$/.test(id) ? Number(id) : Number.NaN;
}

/** The list a detail was opened from, with its filters and page, to go back to. */
export function useListPath(kind: MessageKind): string {
  const { state } = useLocation() as { state: { listSearch?: unknown } | null };
  const search = typeof state?.listSearch === 'string' ? state.listSearch : '';
  return `/messages/${kind}${search}`;
}
