import { useQuery, useQueryClient } from '@tanstack/react-query';
import { Link, useNavigate } from 'react-router';
import { isStillScheduled, SCHEDULED_KEY } from '../../api/scheduled';
import { deleteSent, getSent, type Refusal, SENDED_KEY } from '../../api/sended';
import { LoadError } from '../common/LoadError';
import { BackToList } from './BackToList';
import { ConfirmDelete } from '../common/ConfirmDelete';
import { Facts, MediaLinks, MessageText } from './Facts';
import { StatusBadge } from './StatusBadge';
import { useListPath, useMessageId } from './detail-route';
import { usePhoneName } from './phones';

/**
 * One sent message: its status, its provider's error, the phones that refused it first, where it
 * came from, and delete.
 */
export function SentDetail() {
  const id = useMessageId();
  const navigate = useNavigate();
  const listPath = useListPath('sent');
  const queryClient = useQueryClient();
  const phoneName = usePhoneName();
  const message = useQuery({ queryKey: [...SENDED_KEY, id], queryFn: () => getSent(id) });

  if (message.isPending) {
    return <p role="status">Loading…</p>;
  }
  if (message.isError) {
    return (
      <section>
        <BackToList kind="sent" />
        <LoadError error={message.error} retry={message.refetch} />
      </section>
    );
  }
  const sent = message.data;
  return (
    <section aria-labelledby="message-title" className="message-detail">
      <BackToList kind="sent" />
      <h2 id="message-title">Sent message to {sent.destination}</h2>
      <MessageText text={sent.text} />
      <Facts
        facts={[
          ['Status', <StatusBadge key="status" status={sent.status} />],
          [
            'Provider’s error',
            sent.error && (
              <span key="error" className="provider-error">
                {sent.error}
              </span>
            ),
          ],
          ['To', sent.destination],
          ['Sent at', sent.at],
          ['Status updated', sent.updatedAt],
          ['Phone', phoneName(sent.phoneId)],
          [
            'Refused first',
            sent.refusals.length > 0 && (
              <Refusals key="refusals" refusals={sent.refusals} phoneName={phoneName} />
            ),
          ],
          ['Adapter', sent.adapter],
          ['Provider’s id', sent.uid],
          ['Segments', `${sent.segments} (${sent.encoding})`],
          ['Flash', sent.flash ? 'yes' : 'no'],
          ['MMS', sent.mms ? 'yes' : 'no'],
          ['Tag', sent.tag],
          [
            'Scheduled message',
            sent.originatingScheduled !== null && (
              <ScheduledOrigin key="origin" id={sent.originatingScheduled} />
            ),
          ],
        ]}
      />
      <MediaLinks medias={sent.medias} />
      <div className="detail-actions">
        <ConfirmDelete
          what="this sent message"
          remove={() => deleteSent(id)}
          onDeleted={async () => {
            // Dropped rather than marked stale: a stale list would show the deleted message
            // until it is read again.
            queryClient.removeQueries({ queryKey: SENDED_KEY });
            await navigate(listPath);
          }}
        />
      </div>
    </section>
  );
}

/**
 * The phones that refused the message for a reason of their own before the one that sent it, in
 * the order the dispatch tried them (docs/dispatch.md#failover).
 */
function Refusals({
  refusals,
  phoneName,
}: {
  refusals: Refusal[];
  phoneName: (id: number | null) => string;
}) {
  return (
    <ol className="refusals">
      {refusals.map((refusal, index) => (
        <li key={index}>
          {phoneName(refusal.phoneId)} · {refusal.at} · {refusal.reason}
        </li>
      ))}
    </ol>
  );
}

/**
 * The scheduled message a sent one came from: a link while it is still scheduled (a message for
 * several recipients, some not sent yet), and always the other messages sent for it.
 */
function ScheduledOrigin({ id }: { id: number }) {
  const scheduled = useQuery({
    queryKey: [...SCHEDULED_KEY, 'exists', id],
    queryFn: () => isStillScheduled(id),
  });
  return (
    <span className="origin">
      {scheduled.data ? (
        <Link to={`/messages/scheduled/${id}`}>Scheduled message {id}</Link>
      ) : (
        <>
          Scheduled message {id}
          {scheduled.data === false && ' (no longer scheduled)'}
        </>
      )}
      {' · '}
      <Link to={`/messages/sent?originating_scheduled=${id}`}>Every message sent for it</Link>
    </span>
  );
}
