import { Link, useLocation } from 'react-router';
import type { SentMessage } from '../../api/sended';
import { StatusBadge } from './StatusBadge';
import { usePhoneName } from './phones';

/** Sent messages, newest first: when, to whom, the text (a link to the message), status, tag. */
export function SentTable({ messages }: { messages: SentMessage[] }) {
  const { search } = useLocation();
  const phoneName = usePhoneName();
  return (
    <div className="table-scroll">
      <table className="message-table">
        <caption className="visually-hidden">Sent messages, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Sent at</th>
            <th scope="col">To</th>
            <th scope="col">Text</th>
            <th scope="col">Status</th>
            <th scope="col">Phone</th>
            <th scope="col">Tag</th>
          </tr>
        </thead>
        <tbody>
          {messages.map((message) => (
            <tr key={message.id}>
              <td className="nowrap">{message.at}</td>
              <td className="nowrap" data-label="To">
                {message.destination}
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
              <td data-label="Tag">{message.tag ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** The start of a text, enough to recognise it in a list. */
export function preview(text: string): string {
  const line = text.replace(/\s+/g, ' ').trim();
  if (!line) {
    return '(no text)';
  }
  return line.length > 80 ? `${line.slice(0, 79)}…` : line;
}
