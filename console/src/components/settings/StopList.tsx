import { keepPreviousData, useQuery, useQueryClient } from '@tanstack/react-query';
import { NEWEST } from '../../api/entries';
import { getSession, SESSION_KEY } from '../../api/session';
import { listStop, removeStop, STOP_LIST_KEY } from '../../api/stop-list';
import { ConfirmDelete, type ConfirmWords } from '../common/ConfirmDelete';
import { LoadError } from '../common/LoadError';
import { Pager } from '../common/Pager';
import { useCursor } from '../common/cursor';
import { StopNumberForm } from './StopNumberForm';

/** Taking a number off the list lets messages reach it again; it can be added back. */
const REMOVE: ConfirmWords = {
  verb: 'Remove',
  pending: 'Removing…',
  confirm: 'Yes, remove it',
  consequence: 'Messages will reach it again.',
};

/**
 * The numbers messages are not sent to while the setting smsstop is on: a page of 25 from the
 * API, the newest first, with its cursor in the address as the Messages lists keep theirs.
 */
export function StopList() {
  const queryClient = useQueryClient();
  const cursor = useCursor() ?? NEWEST;
  const page = useQuery({
    queryKey: [...STOP_LIST_KEY, cursor],
    queryFn: () => listStop(cursor),
    placeholderData: keepPreviousData,
  });
  // The layout has read the session already: this is its cached answer.
  const session = useQuery({ queryKey: SESSION_KEY, queryFn: getSession });
  const changed = () => queryClient.invalidateQueries({ queryKey: STOP_LIST_KEY });
  return (
    <section aria-labelledby="stop-list-title" aria-busy={page.isFetching}>
      <h2 id="stop-list-title">STOP list</h2>
      <p className="intro">
        Numbers that answered STOP, or that you added: no message is sent to them while the setting
        “Respect the STOP list” is on, except messages tagged SMS_STOP.
        {session.data && ` Dates are in smsgw's time zone, ${session.data.time_zone}.`}
      </p>
      <StopNumberForm onAdded={changed} />
      {page.isPending ? (
        <p role="status">Loading…</p>
      ) : page.isError ? (
        <LoadError error={page.error} retry={page.refetch} />
      ) : page.data.numbers.length === 0 ? (
        <p className="empty">No numbers on this page.</p>
      ) : (
        <ul className="stop-numbers" aria-label="Numbers of the STOP list">
          {[...page.data.numbers].reverse().map((entry) => (
            <li key={entry.id}>
              <span className="entry">
                <span className="number">{entry.number}</span>{' '}
                <span className="added">added {entry.createdAt}</span>
              </span>
              <ConfirmDelete
                what={`${entry.number} from the STOP list`}
                words={REMOVE}
                label={`Remove ${entry.number}`}
                quiet
                className="confirm-remove"
                remove={() => removeStop(entry.id)}
                onDeleted={changed}
              />
            </li>
          ))}
        </ul>
      )}
      {page.data && (
        <Pager older={page.data.prev} newer={page.data.next} count={page.data.numbers.length} />
      )}
    </section>
  );
}
