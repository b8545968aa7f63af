import { Link } from 'react-router';
import { useListPath } from './detail-route';
import type { MessageKind } from './list-query';

const NAMES: Record<MessageKind, string> = {
  sent: 'sent messages',
  received: 'received messages',
  scheduled: 'scheduled messages',
};

export function BackToList({ kind }: { kind: MessageKind }) {
  return (
    <p className="back">
      <Link to={useListPath(kind)}>← Back to {NAMES[kind]}</Link>
    </p>
  );
}
