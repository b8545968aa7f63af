import { Route, Routes, useParams } from 'react-router';
import { ConversationList } from '../components/conversations/ConversationList';
import { ConversationThread } from '../components/conversations/ConversationThread';
import './Conversations.css';

/**
 * The caller's conversations: the list, and a thread at `/conversations/{number}`. A laptop
 * shows both side by side; a phone shows the list, then the thread on its own.
 */
export default function Conversations() {
  return (
    <Routes>
      <Route index element={<ConversationsLayout number={null} />} />
      <Route path=":number" element={<ThreadRoute />} />
    </Routes>
  );
}

function ThreadRoute() {
  const { number = '' } = useParams();
  return <ConversationsLayout number={number} />;
}

function ConversationsLayout({ number }: { number: string | null }) {
  return (
    <div className={number === null ? 'conversations' : 'conversations with-thread'}>
      <h1>Conversations</h1>
      <nav className="conversations-list" aria-label="Conversations">
        <ConversationList selected={number} />
      </nav>
      {number === null ? (
        <p className="thread-placeholder">Choose a conversation to read it and reply.</p>
      ) : (
        <ConversationThread key={number} number={number} />
      )}
    </div>
  );
}
