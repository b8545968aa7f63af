import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { Link, useSearchParams } from 'react-router';
import {
  type Delivery,
  deliveriesKey,
  listDeliveries,
  retryDelivery,
  WEBHOOKS_KEY,
} from '../../api/webhooks';
import { LoadError } from '../common/LoadError';
import { AttemptList } from './AttemptList';
import { DeliveryBadge } from './EnabledBadge';

/** How often the log is read again while one of its deliveries waits for an attempt. */
export const PENDING_POLL_MS = 1000;

/** How often its first page is read again otherwise, for the events that happen meanwhile. */
const NEW_EVENTS_POLL_MS = 5000;

/** The log's page in the address (`?page=`), from 0 as the API counts them. */
function usePage(): number {
  const [search] = useSearchParams();
  const page = Number(search.get('page') ?? 0);
  return Number.isInteger(page) && page > 0 ? page : 0;
}

/** Columns of the log's table: a delivery's attempts take a row across all of them. */
const COLUMNS = 10;

/**
 * A webhook's delivery log, newest first, 25 rows a page as the API pages it: each event with
 * its latest attempt's time, its HTTP status, the excerpt of its answer and why it failed, and
 * on request every attempt (the page's answer holds them: nothing more is read). Read
 * again every second while a delivery waits, so that an attempt shows as soon as it is made,
 * and the first page every 5 seconds otherwise, so that a new event's delivery shows too. A
 * failed delivery can be retried, once the webhook is enabled.
 */
export function DeliveryLog({ webhookId, enabled }: { webhookId: number; enabled: boolean }) {
  const page = usePage();
  const log = useQuery({
    queryKey: deliveriesKey(webhookId, page),
    queryFn: () => listDeliveries(webhookId, page),
    placeholderData: keepPreviousData,
    refetchInterval: (query) =>
      query.state.data?.deliveries.some((row) => row.status === 'pending')
        ? PENDING_POLL_MS
        : page === 0
          ? NEW_EVENTS_POLL_MS
          : false,
  });
  if (log.isPending) {
    return <p role="status">Loading the delivery log…</p>;
  }
  if (log.isError) {
    return <LoadError error={log.error} retry={log.refetch} />;
  }
  const { deliveries, hasOlder } = log.data;
  return (
    <>
      {deliveries.length === 0 ? (
        <p className="empty">
          {page === 0
            ? 'Nothing delivered yet: send a test, or wait for an event.'
            : 'No deliveries on this page.'}
        </p>
      ) : (
        <div className="table-scroll">
          <table className="delivery-table">
            <caption className="visually-hidden">Deliveries of this webhook, newest first</caption>
            <thead>
              <tr>
                <th scope="col">Event</th>
                <th scope="col">Status</th>
                <th scope="col">Queued at</th>
                <th scope="col">Last attempt</th>
                <th scope="col">Attempts</th>
                <th scope="col">HTTP status</th>
                <th scope="col">Answer</th>
                <th scope="col">Failure</th>
                <th scope="col">Next attempt</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {deliveries.map((delivery) => (
                <DeliveryRow
                  key={delivery.id}
                  webhookId={webhookId}
                  delivery={delivery}
                  enabled={enabled}
                />
              ))}
            </tbody>
          </table>
        </div>
      )}
      {(page > 0 || hasOlder) && (
        <nav className="pager" aria-label="Pages of the delivery log">
          {page > 0 && <Link to={page === 1 ? '.' : `?page=${page - 1}`}>Newer</Link>}
          {hasOlder && <Link to={`?page=${page + 1}`}>Older</Link>}
        </nav>
      )}
    </>
  );
}

function DeliveryRow({
  webhookId,
  delivery,
  enabled,
}: {
  webhookId: number;
  delivery: Delivery;
  enabled: boolean;
}) {
  const queryClient = useQueryClient();
  const retry = useMutation({
    mutationFn: () => retryDelivery(webhookId, delivery.id),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: [...WEBHOOKS_KEY, webhookId] }),
  });
  const [open, setOpen] = useState(false);
  const listId = `attempts-${delivery.id}`;
  const listed = delivery.attempt_log_total > 0;
  return (
    <>
      <tr>
        <td className="nowrap">
          {delivery.event_type} <span className="delivery-id">#{delivery.id}</span>
        </td>
        <td className="status-cell">
          <DeliveryBadge status={delivery.status} />
        </td>
        <td className="nowrap" data-label="Queued">
          {delivery.created_at}
        </td>
        <td className="nowrap" data-label="Last attempt">
          {delivery.attempts > 0 ? (delivery.updated_at ?? '') : ''}
        </td>
        {listed ? (
          <td className="nowrap">
            <button
              type="button"
              className="disclosure"
              aria-expanded={open}
              aria-controls={open ? listId : undefined}
              onClick={() => setOpen(!open)}
            >
              {delivery.attempts} attempt{delivery.attempts === 1 ? '' : 's'}
              <span className="visually-hidden"> of delivery {delivery.id}</span>
            </button>
          </td>
        ) : (
          <td data-label="Attempts">{delivery.attempts}</td>
        )}
        <td data-label="HTTP status">{delivery.last_http_status ?? ''}</td>
        <td className="answer" data-label="Answer">
          {delivery.last_answer ?? ''}
        </td>
        <td className="answer failure" data-label="Failure">
          {delivery.status === 'delivered' ? '' : (delivery.last_error ?? '')}
        </td>
        <td className="nowrap" data-label="Next attempt">
          {delivery.status === 'pending' ? (delivery.next_attempt_at ?? '') : ''}
        </td>
        <td className="row-actions">
          {delivery.status === 'failed' && (
            <>
              <button
                type="button"
                className="secondary"
                aria-label={`Retry delivery ${delivery.id}`}
                title={enabled ? undefined : 'Enable the webhook to retry its deliveries'}
                disabled={retry.isPending}
                onClick={() => retry.mutate()}
              >
                {retry.isPending ? 'Retrying…' : 'Retry'}
              </button>
              {retry.isError && (
                <p className="error" role="alert">
                  {retry.error.message}
                </p>
              )}
            </>
          )}
        </td>
      </tr>
      {listed && open && (
        <tr className="attempts-row">
          <td colSpan={COLUMNS}>
            <AttemptList delivery={delivery} id={listId} />
          </td>
        </tr>
      )}
    </>
  );
}
