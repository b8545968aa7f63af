import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { useState } from 'react';
import { ApiError } from '../../api/client';
import { CONDITIONAL_GROUPS_KEY, previewCondition } from '../../api/conditional-groups';
import { LoadError } from '../common/LoadError';
import { contactLabel } from '../send/labels';

/**
 * The contacts a condition selects now, as the dispatch would select them
 * (get_conditional_group_preview), 25 a page. `condition` is the settled text (debounced by the
 * caller): a preview per pause, not per keystroke. A condition the API refuses is reported to
 * the caller, which shows the parser's message at the condition's field.
 */
export function usePreview(condition: string, page: number) {
  return useQuery({
    queryKey: [...CONDITIONAL_GROUPS_KEY, 'preview', condition, page],
    queryFn: () => previewCondition(condition, page),
    enabled: condition.trim() !== '',
    placeholderData: keepPreviousData,
    retry: false,
  });
}

/** Whether the preview's failure is the API refusing the condition (shown at its field). */
export function refusedCondition(error: unknown): error is ApiError {
  return error instanceof ApiError && error.status === 400;
}

export function ConditionPreview({ condition }: { condition: string }) {
  const [pages, setPages] = useState<{ condition: string; page: number }>({ condition, page: 0 });
  // Another condition starts at its first page.
  const page = pages.condition === condition ? pages.page : 0;
  const preview = usePreview(condition, page);
  return (
    <section
      className="condition-preview"
      aria-labelledby="condition-preview-title"
      aria-busy={preview.isFetching}
      aria-live="polite"
    >
      <h3 id="condition-preview-title">Contacts selected now</h3>
      {condition.trim() === '' ? (
        <p className="empty">Write a condition to see the contacts it selects.</p>
      ) : preview.isError ? (
        refusedCondition(preview.error) ? (
          <p className="empty">The condition must be fixed first (see its message above).</p>
        ) : (
          <LoadError error={preview.error} retry={preview.refetch} />
        )
      ) : preview.isPending ? (
        <p role="status">Loading…</p>
      ) : preview.data.contacts.length === 0 ? (
        <p className="empty">
          {page > 0 ? 'No more contacts.' : 'This condition selects no contact now.'}
        </p>
      ) : (
        <ul aria-label="Selected contacts">
          {preview.data.contacts.map((contact) => (
            <li key={contact.id}>{contactLabel(contact)}</li>
          ))}
        </ul>
      )}
      {preview.data && !preview.isError && (page > 0 || preview.data.hasNext) && (
        <nav className="pager" aria-label="Pages of selected contacts">
          <button
            type="button"
            className="secondary"
            disabled={page === 0}
            onClick={() => setPages({ condition, page: page - 1 })}
          >
            Previous
          </button>
          <span>Page {page + 1}</span>
          <button
            type="button"
            className="secondary"
            disabled={!preview.data.hasNext}
            onClick={() => setPages({ condition, page: page + 1 })}
          >
            Next
          </button>
        </nav>
      )}
    </section>
  );
}
