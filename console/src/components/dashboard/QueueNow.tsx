import { useQuery } from '@tanstack/react-query';
import { getQueueStats, STATS_KEYS } from '../../api/stats';
import { LoadError } from '../common/LoadError';
import { count } from './period';

/** How often the queue is read again while the dashboard is open: it is "now". */
const REFRESH_MS = 30_000;

/** The scheduled messages waiting now, whatever the period: due, to come, being sent. */
export function QueueNow() {
  const queue = useQuery({
    queryKey: STATS_KEYS.queue,
    queryFn: getQueueStats,
    refetchInterval: REFRESH_MS,
  });
  if (queue.isPending) {
    return <p>Loading…</p>;
  }
  if (queue.isError) {
    return <LoadError error={queue.error} retry={queue.refetch} />;
  }
  const tiles = [
    { term: 'Due', value: queue.data.due },
    { term: 'To come', value: queue.data.to_come },
    { term: 'Being sent', value: queue.data.sending },
  ];
  return (
    <>
      <dl className="queue-now">
        {tiles.map((tile) => (
          <div key={tile.term}>
            <dt>{tile.term}</dt>
            <dd className="figure">{count(tile.value)}</dd>
          </div>
        ))}
      </dl>
      <p className="hint">
        Scheduled messages whose time has come and that wait for the dispatch, those scheduled for
        later, and those the dispatch is sending.
      </p>
    </>
  );
}
