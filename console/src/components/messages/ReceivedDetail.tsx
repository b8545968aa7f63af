import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useNavigate } from 'react-router';
import { deleteReceived, getReceived, markReceived, RECEIVED_KEY } from '../../api/received';
import { LoadError } from '../common/LoadError';
import { BackToList } from './BackToList';
import { ConfirmDelete } from '../common/ConfirmDelete';
import { Facts, MediaLinks, MessageText } from './Facts';
import { StatusBadge } from './StatusBadge';
import { useListPath, useMessageId } from './detail-route';
import { usePhoneName } from './phones';

/** One received message: who sent it, through which phone, read or unread, and delete. */
export function ReceivedDetail() {
  const id = useMessageId();
  const navigate = useNavigate();
  const listPath = useListPath('received');
  const queryClient = useQueryClient();
  const phoneName = usePhoneName();
  const message = useQuery({ queryKey: [...RECEIVED_KEY, id], queryFn: () => getReceived(id) });
  const mark = useMutation({
    mutationFn: (status: 'read' | 'unread') => markReceived(id, status),
    onSuccess: async (updated) => {
      queryClient.setQueryData([...RECEIVED_KEY, id], updated);
      await queryClient.invalidateQueries({ queryKey: [...RECEIVED_KEY, 'list'] });
    },
  });

  if (message.isPending) {
    return <p role="status">Loading…</p>;
  }
  if (message.isError) {
    return (
      <section>
        <BackToList kind="received" />
        <LoadError error={message.error} retry={message.refetch} />
      </section>
    );
  }
  const received = message.data;
  const other = received.status === 'read' ? 'unread' : 'read';
  return (
    <section aria-labelledby="message-title" className="message-detail">
      <BackToList kind="received" />
      <h2 id="message-title">Received message from {received.origin}</h2>
      <MessageText text={received.text} />
      <Facts
        facts={[
          ['Status', <StatusBadge key="status" status={received.status} />],
          ['From', received.origin],
          ['Received at', received.at],
          ['Phone', phoneName(received.phoneId)],
          ['Command', received.command ? 'yes' : null],
          ['MMS', received.mms ? 'yes' : 'no'],
        ]}
      />
      <MediaLinks medias={received.medias} />
      <div className="detail-actions">
        <button type="button" onClick={() => mark.mutate(other)} disabled={mark.isPending}>
          Mark as {other}
        </button>
        <ConfirmDelete
          what="this received message"
          remove={() => deleteReceived(id)}
          onDeleted={async () => {
            // Dropped rather than marked stale: a stale list would show the deleted message
            // until it is read again.
            queryClient.removeQueries({ queryKey: RECEIVED_KEY });
            await navigate(listPath);
          }}
        />
      </div>
      {mark.isError && (
        <p className="error" role="alert">
          {mark.error.message}
        </p>
      )}
    </section>
  );
}
