import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { ApiError } from '../../api/client';
import type { Cursor } from '../../api/entries';
import { LoadError } from '../common/LoadError';
import { MessageFilters } from './MessageFilters';
import { Pager } from '../common/Pager';
import { useCursor } from '../common/cursor';
import { type MessageKind, useFilterValues } from './list-query';

/**
 * A list of the Messages page around its table: the filters, the table or why there is none,
 * and the pages beside this one. A refused filter is shown at that filter, by MessageFilters.
 */
export function MessageListFrame<T>({
  kind,
  title,
  query,
  children,
}: {
  kind: MessageKind;
  title: string;
  query: UseQueryResult<{ messages: T[]; next: Cursor | null; prev: Cursor | null }>;
  children: (messages: T[]) => ReactNode;
}) {
  const cursor = useCursor();
  const filtered = Object.keys(useFilterValues(kind)).length > 0;
  const refusedFilter = query.error instanceof ApiError && query.error.status === 400;
  return (
    <section aria-labelledby={`${kind}-title`} aria-busy={query.isFetching}>
      <h2 id={`${kind}-title`}>{title}</h2>
      <MessageFilters kind={kind} error={refusedFilter ? query.error : null} />
      {query.isPending ? (
        <p role="status">Loading…</p>
      ) : query.isError ? (
        !refusedFilter && <LoadError error={query.error} retry={query.refetch} />
      ) : query.data.messages.length === 0 ? (
        <p className="empty">
          {cursor
            ? 'No messages on this page.'
            : filtered
              ? 'No messages match these filters.'
              : 'No messages yet.'}
        </p>
      ) : (
        children([...query.data.messages].reverse())
      )}
      {query.data && (
        <Pager older={query.data.prev} newer={query.data.next} count={query.data.messages.length} />
      )}
    </section>
  );
}
