import { useQuery } from '@tanstack/react-query';
import { deliveriesKey, listDeliveries } from '../../api/webhooks';
import { PENDING_POLL_MS } from './DeliveryLog';

/**
 * What the test delivery `deliveryId` got: waiting, the endpoint's HTTP status when it took it,
 * or the failure with the excerpt of its answer. Read from the first page of the log, where a
 * delivery just queued is, again every second until it has an answer.
 */
export function TestResult({ webhookId, deliveryId }: { webhookId: number; deliveryId: number }) {
  const log = useQuery({
    queryKey: deliveriesKey(webhookId, 0),
    queryFn: () => listDeliveries(webhookId, 0),
    refetchInterval: (query) => {
      const row = query.state.data?.deliveries.find((delivery) => delivery.id === deliveryId);
      return !row || (row.status === 'pending' && row.attempts === 0) ? PENDING_POLL_MS : false;
    },
  });
  const row = log.data?.deliveries.find((delivery) => delivery.id === deliveryId);
  let said: string;
  let failed = false;
  if (!row || (row.status === 'pending' && row.attempts === 0)) {
    said = `Test delivery #${deliveryId} queued: waiting for the endpoint's answer…`;
  } else if (row.status === 'delivered') {
    said =
      `Test delivery #${deliveryId} delivered: the endpoint answered HTTP ${row.last_http_status ?? ''}` +
      (row.last_answer ? `: ${row.last_answer}.` : ', with no body.');
  } else {
    failed = true;
    said =
      `Test delivery #${deliveryId} ${row.status === 'failed' ? 'failed' : 'not delivered yet'}: ` +
      `${row.last_error ?? 'no answer'}` +
      (row.status === 'pending' && row.next_attempt_at
        ? ` Next attempt at ${row.next_attempt_at}.`
        : '');
  }
  return (
    <p role="status" className={failed ? 'test-result failure' : 'test-result'}>
      {said}
    </p>
  );
}
