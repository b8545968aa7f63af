import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { Link, useNavigate } from 'react-router';
import { ApiError } from '../../api/client';
import {
  deleteScheduled,
  getScheduled,
  SCHEDULED_KEY,
  type ScheduledMessage,
} from '../../api/scheduled';
import { LoadError } from '../common/LoadError';
import { BackToList } from './BackToList';
import { ConfirmDelete } from '../common/ConfirmDelete';
import { Facts, MediaLinks } from './Facts';
import { ScheduledEditForm } from './ScheduledEditForm';
import { useListPath, useMessageId } from './detail-route';
import { usePhoneGroupName, usePhoneName } from './phones';

/**
 * One message waiting for the dispatch: whom it goes to and through what, its form to change
 * it, and delete. Once the dispatch takes it the API no longer has it here: its sent messages
 * are linked instead.
 */
export function ScheduledDetail() {
  const id = useMessageId();
  const navigate = useNavigate();
  const listPath = useListPath('scheduled');
  const queryClient = useQueryClient();
  const phoneName = usePhoneName();
  const phoneGroupName = usePhoneGroupName();
  const message = useQuery({ queryKey: [...SCHEDULED_KEY, id], queryFn: () => getScheduled(id) });

  if (message.isPending) {
    return <p role="status">Loading…</p>;
  }
  if (message.isError) {
    const gone = message.error instanceof ApiError && message.error.status === 404;
    return (
      <section>
        <BackToList kind="scheduled" />
        <LoadError error={message.error} retry={message.refetch} />
        {gone && (
          <p>
            A message leaves the scheduled list when the dispatch takes it:{' '}
            <Link to={`/messages/sent?originating_scheduled=${id}`}>the messages sent for it</Link>.
          </p>
        )}
      </section>
    );
  }
  const scheduled = message.data;
  const named = (kind: string, list: Array<{ id: number; name: string }>) =>
    list.length > 0 ? list.map((item) => item.name || `${kind} ${item.id}`).join(', ') : null;
  return (
    <section aria-labelledby="message-title" className="message-detail">
      <BackToList kind="scheduled" />
      <h2 id="message-title">Scheduled message {scheduled.id}</h2>
      <Facts
        facts={[
          ['Send at', scheduled.at],
          ['May go out from', scheduled.sendAfter !== scheduled.at && scheduled.sendAfter],
          [
            'Phone',
            scheduled.phoneId !== null
              ? phoneName(scheduled.phoneId)
              : scheduled.phoneGroupId === null && 'Chosen by the dispatch when it sends',
          ],
          [
            'Phone group',
            scheduled.phoneGroupId !== null && phoneGroupName(scheduled.phoneGroupId),
          ],
          ['Priority', scheduled.priority],
          ['Validity', validityOf(scheduled)],
          ['Send window', windowOf(scheduled)],
          ['Contacts', named('Contact', scheduled.contacts)],
          ['Groups', named('Group', scheduled.groups)],
          ['Conditional groups', named('Conditional group', scheduled.conditionalGroups)],
          ['MMS', scheduled.mms ? 'yes' : 'no'],
          ['Created', scheduled.createdAt],
          ['Changed', scheduled.updatedAt],
        ]}
      />
      <MediaLinks medias={scheduled.medias} />
      <h3>Change this message</h3>
      <ScheduledEditForm
        message={scheduled}
        onSaved={async (saved) => {
          queryClient.setQueryData([...SCHEDULED_KEY, id], saved);
          await queryClient.invalidateQueries({ queryKey: [...SCHEDULED_KEY, 'list'] });
        }}
      />
      <div className="detail-actions">
        <ConfirmDelete
          what="this scheduled message"
          remove={() => deleteScheduled(id)}
          onDeleted={async () => {
            // Dropped rather than marked stale: a stale list would show the deleted message
            // until it is read again.
            queryClient.removeQueries({ queryKey: SCHEDULED_KEY });
            await navigate(listPath);
          }}
        />
      </div>
    </section>
  );
}

/** How long after it is due the message may still be sent. */
function validityOf({ validity }: ScheduledMessage): string {
  if (validity === null) {
    return 'no limit';
  }
  return `${validity} ${validity === 1 ? 'minute' : 'minutes'} after it is due`;
}

/** When the message may go out, as it was given (docs/dispatch.md#send-windows). */
function windowOf({ window }: ScheduledMessage): ReactNode {
  if (window === null) {
    return (
      <>
        your usual window, from <Link to="/settings/preferences">your settings</Link>
      </>
    );
  }
  return window === 'none' ? 'any time' : window;
}
