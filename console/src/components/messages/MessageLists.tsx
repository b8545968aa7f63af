import { keepPreviousData, useQuery } from '@tanstack/react-query';
import { listReceived, RECEIVED_KEY } from '../../api/received';
import { listScheduled, SCHEDULED_KEY } from '../../api/scheduled';
import { listSent, SENDED_KEY } from '../../api/sended';
import { MessageListFrame } from './MessageListFrame';
import { ReceivedTable } from './ReceivedTable';
import { ScheduledTable } from './ScheduledTable';
import { SentTable } from './SentTable';
import { useListQuery } from './list-query';

// The previous page stays on screen while the next one loads, rather than a flash of "Loading…".

export function SentList() {
  const query = useListQuery('sent');
  const result = useQuery({
    queryKey: [...SENDED_KEY, 'list', query],
    queryFn: () => listSent(query),
    placeholderData: keepPreviousData,
  });
  return (
    <MessageListFrame kind="sent" title="Sent messages" query={result}>
      {(messages) => <SentTable messages={messages} />}
    </MessageListFrame>
  );
}

export function ReceivedList() {
  const query = useListQuery('received');
  const result = useQuery({
    queryKey: [...RECEIVED_KEY, 'list', query],
    queryFn: () => listReceived(query),
    placeholderData: keepPreviousData,
  });
  return (
    <MessageListFrame kind="received" title="Received messages" query={result}>
      {(messages) => <ReceivedTable messages={messages} />}
    </MessageListFrame>
  );
}

export function ScheduledList() {
  const query = useListQuery('scheduled');
  const result = useQuery({
    queryKey: [...SCHEDULED_KEY, 'list', query],
    queryFn: () => listScheduled(query),
    placeholderData: keepPreviousData,
  });
  return (
    <MessageListFrame kind="scheduled" title="Scheduled messages" query={result}>
      {(messages) => <ScheduledTable messages={messages} />}
    </MessageListFrame>
  );
}
