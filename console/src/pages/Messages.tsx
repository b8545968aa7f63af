import { Link, Navigate, Route, Routes } from 'react-router';
import { MessageTabs } from '../components/messages/MessageTabs';
import { ReceivedList, ScheduledList, SentList } from '../components/messages/MessageLists';
import { ReceivedDetail } from '../components/messages/ReceivedDetail';
import { ScheduledDetail } from '../components/messages/ScheduledDetail';
import { SentDetail } from '../components/messages/SentDetail';
import './Messages.css';

/**
 * Sent, received and scheduled messages: each list with the API's filters in the page's
 * query string, one message's detail, and changing or deleting a message not sent yet.
 */
export default function Messages() {
  return (
    <section className="messages" aria-labelledby="messages-title">
      <h1 id="messages-title">Messages</h1>
      <MessageTabs />
      <Routes>
        <Route index element={<Navigate to="sent" replace />} />
        <Route path="sent" element={<SentList />} />
        <Route path="sent/:id" element={<SentDetail />} />
        <Route path="received" element={<ReceivedList />} />
        <Route path="received/:id" element={<ReceivedDetail />} />
        <Route path="scheduled" element={<ScheduledList />} />
        <Route path="scheduled/:id" element={<ScheduledDetail />} />
        <Route
          path="*"
          element={
            <p>
              No such list of messages. <Link to="/messages/sent">See the sent messages</Link>.
            </p>
          }
        />
      </Routes>
    </section>
  );
}
