import { useQuery } from '@tanstack/react-query';
import { useEffect, useRef } from 'react';
import { ApiError } from '../../api/client';
import {
  getScheduled,
  type ScheduledMessage,
  SCHEDULED_KEY,
  type Sended,
  sentFor,
} from '../../api/scheduled';
import { LoadError } from '../common/LoadError';
import { usePhoneChoices } from './PhoneSelect';
import { SENDED_KEY } from '../../api/sended';

/**
 * How often, and how many times at most, a message due now is read again until the dispatch takes
 * it, and its sent entries while the dispatch is still sending or their delivery is not yet known:
 * a minute, after which "Refresh" reads them.
 */
const SENDING_POLL_MS = 1500;
const SENDING_POLLS = 40;

/**
 * The scheduled message just created, as get_scheduled answers it. A message due now is read
 * again until the dispatch takes it (get_scheduled then answers 404); its sent entries are shown
 * instead, read again while their number grows (the message's recipients are no longer known, and
 * the dispatch records them batch by batch) or a delivery is not yet known.
 */
export function ScheduledResult({ id, dueNow }: { id: number; dueNow: boolean }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const entriesRead = useRef(0);
  const scheduled = useQuery({
    queryKey: [...SCHEDULED_KEY, id],
    queryFn: () => getScheduled(id),
    refetchInterval: (query) =>
      dueNow && query.state.status === 'success' && query.state.dataUpdateCount < SENDING_POLLS
        ? SENDING_POLL_MS
        : false,
  });
  const taken = scheduled.error instanceof ApiError && scheduled.error.status === 404;
  const sent = useQuery({
    queryKey: [...SENDED_KEY, 'for', id],
    queryFn: async () => {
      const entries = await sentFor(id);
      const grew = entries.length > entriesRead.current;
      entriesRead.current = entries.length;
      return { entries, grew };
    },
    enabled: taken,
    refetchInterval: (query) => {
      const read = query.state.data;
      const pending =
        read?.grew ||
        read?.entries.length === 0 ||
        read?.entries.some((entry) => entry.status === 'unknown');
      return pending && query.state.dataUpdateCount < SENDING_POLLS ? SENDING_POLL_MS : false;
    },
  });

  useEffect(() => {
    heading.current?.focus();
  }, [id]);

  return (
    <section className="scheduled-result" aria-labelledby="scheduled-result-heading">
      <h2 id="scheduled-result-heading" ref={heading} tabIndex={-1}>
        Scheduled message {id}
      </h2>
      {scheduled.isPending ? (
        <p className="muted">Loading…</p>
      ) : scheduled.isSuccess ? (
        <ScheduledDetails message={scheduled.data} />
      ) : !taken ? (
        <LoadError error={scheduled.error} retry={scheduled.refetch} />
      ) : sent.isError ? (
        <LoadError error={sent.error} retry={sent.refetch} />
      ) : (
        <>
          <p>smsgw has taken it for sending.</p>
          <SentEntries entries={sent.data?.entries} />
          <button
            type="button"
            className="secondary"
            onClick={() => void sent.refetch()}
            disabled={sent.isFetching}
          >
            Refresh
          </button>
        </>
      )}
    </section>
  );
}

function ScheduledDetails({ message }: { message: ScheduledMessage }) {
  const { phones, groups } = usePhoneChoices();
  const phone = phones.data?.find((candidate) => candidate.id === message.phoneId);
  const group = groups.data?.find((candidate) => candidate.id === message.phoneGroupId);
  const recipients = [
    ...message.numbers.map((number) => number.number),
    ...message.contacts.map((contact) => contact.name),
    ...message.groups.map((group) => `group ${group.name}`),
    ...message.conditionalGroups.map((group) => `conditional group ${group.name}`),
  ];
  return (
    <dl className="details">
      <dt>Sends at</dt>
      <dd>{message.at}</dd>
      <dt>To</dt>
      <dd>{recipients.join(', ')}</dd>
      <dt>Text</dt>
      <dd className="text">{message.text}</dd>
      <dt>Through</dt>
      <dd>
        {message.phoneId !== null
          ? `the phone ${phone?.name ?? message.phoneId}`
          : message.phoneGroupId !== null
            ? `the phone group ${group?.name ?? message.phoneGroupId}`
            : 'the phone smsgw chooses'}
      </dd>
      <dt>Kind</dt>
      <dd>
        {[message.mms ? 'MMS' : 'SMS', message.flash ? 'flash' : ''].filter(Boolean).join(', ')}
        {message.medias.length > 0 && `, ${message.medias.length} media`}
      </dd>
      <dt>Delivery</dt>
      <dd>
        {message.priority === 'high' ? 'High priority' : 'Normal priority'},{' '}
        {message.validity === null
          ? 'no time limit'
          : `expires ${message.validity} ${message.validity === 1 ? 'minute' : 'minutes'} after it is due`}
      </dd>
      {message.tag !== null && (
        <>
          <dt>Tag</dt>
          <dd>{message.tag}</dd>
        </>
      )}
    </dl>
  );
}

function SentEntries({ entries }: { entries: Sended[] | undefined }) {
  if (!entries || entries.length === 0) {
    return <p className="muted">Sending…</p>;
  }
  return (
    <div className="table-scroll">
      <table>
        <caption>Sent messages</caption>
        <thead>
          <tr>
            <th scope="col">To</th>
            <th scope="col">Text</th>
            <th scope="col">Status</th>
            <th scope="col">Segments</th>
            <th scope="col">Encoding</th>
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <tr key={entry.id}>
              <td>{entry.destination}</td>
              <td className="text">{entry.text}</td>
              <td>{entry.error ? `${entry.status}: ${entry.error}` : entry.status}</td>
              <td>{entry.segments}</td>
              <td>{entry.encoding}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
