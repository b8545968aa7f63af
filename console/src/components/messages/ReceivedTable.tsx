import { Link, useLocation } from 'react-router';
import type { ReceivedMessage } from '../../api/received';
import { StatusBadge } from './StatusBadge';
import { usePhoneName } from './phones';
import { preview } from './SentTable';

/** Received messages, newest first; an unread one stands out. */
export function ReceivedTable({ messages }: { messages: ReceivedMessage[] }) {
  const { search } = useLocation();
  const phoneName = usePhoneName();
  return (
    <div className="table-scroll">
      <table className="message-table">
        <caption className="visually-hidden">Received messages, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Received at</th>
            <th scope="col">From</th>
            <th scope="col">Text</th>
            <th scope="col">Status</th>
            <th scope="col">Phone</th>
          </tr>
        </thead>
        <tbody>
          {messages.map((message) => (
            <tr key={message.id} className={message.status === 'unread' ? 'unread' : undefined}>
              <td className="nowrap">{message.at}</td>
              <td className="nowrap" data-label="From">
                {message.origin}
              </td>
              <td className="message-text">
                <Link to={String(message.id)} state={{ listSearch: search }}>
                  {preview(message.text)}
                </Link>
              </td>
              <td className="status-cell">
                <StatusBadge status={message.status} />
              </td>
              <td data-label="Phone">{phoneName(message.phoneId)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
