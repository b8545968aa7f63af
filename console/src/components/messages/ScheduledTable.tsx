import { Link, useLocation } from 'react-router';
import type { ScheduledMessage } from '../../api/scheduled';
import { preview } from './SentTable';

/**
 * Messages waiting for the dispatch, newest first: when they go (and, when later, when their
 * send window lets them), to whom, the text, the tag.
 */
export function ScheduledTable({ messages }: { messages: ScheduledMessage[] }) {
  const { search } = useLocation();
  return (
    <div className="table-scroll">
      <table className="message-table">
        <caption className="visually-hidden">Scheduled messages, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Send at</th>
            <th scope="col">To</th>
            <th scope="col">Text</th>
            <th scope="col">Tag</th>
          </tr>
        </thead>
        <tbody>
          {messages.map((message) => (
            <tr key={message.id}>
              <td className="nowrap">
                {message.at}
                {message.sendAfter !== message.at && (
                  <small className="window-wait">
                    waits for its window until {message.sendAfter}
                  </small>
                )}
              </td>
              <td data-label="To">{recipients(message)}</td>
              <td className="message-text">
                <Link to={String(message.id)} state={{ listSearch: search }}>
                  {preview(message.text)}
                </Link>
              </td>
              <td data-label="Tag">{message.tag ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** Who a scheduled message goes to, in short: its first number, and how many others. */
export function recipients(message: ScheduledMessage): string {
  const parts = [
    ...message.numbers.map((number) => number.number),
    ...message.contacts.map((contact) => contact.name),
    ...message.groups.map((group) => `group ${group.name}`),
    ...message.conditionalGroups.map((group) => `group ${group.name}`),
  ];
  if (parts.length === 0) {
    return '—';
  }
  return parts.length === 1 ? parts[0] : `${parts[0]} and ${parts.length - 1} more`;
}
