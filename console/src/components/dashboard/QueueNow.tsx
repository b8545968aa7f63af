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
    { term: 'Due', value: queue.data.due, hint: 'their time has come, waiting to be sent' },
    { term: 'To come', value: queue.data.to_come, hint: 'scheduled for later' },
    { term: 'Being sent', value: queue.data.sending, hint: 'taken by the dispatch' },
  ];
  return (
    <dl className="queue-now">
      {tiles.map((tile) => (
        <div key={tile.term}>
          <dt>{tile.term}</dt>
          <dd className="figure">{count(tile.value)}</dd>
          <dd className="hint">{tile.hint}</dd>
        </div>
      ))}
    </dl>
  );
}
