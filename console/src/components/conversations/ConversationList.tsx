import { useInfiniteQuery } from '@tanstack/react-query';
import { Link } from 'react-router';
import { CONVERSATION_LIST_KEY, listConversations } from '../../api/conversations';
import { LoadError } from '../common/LoadError';
import { correspondentName, shortTime, threadPath } from './format';

/** How often the list is read again, so that a message received meanwhile shows up. */
const REFRESH_MS = 2000;

/**
 * The caller's conversations, newest first, each with its contact's name (or number), its
 * newest message and how many of its messages are unread; older ones on request.
 */
export function ConversationList({ selected }: { selected: string | null }) {
  const list = useInfiniteQuery({
    queryKey: CONVERSATION_LIST_KEY,
    queryFn: ({ pageParam }) => listConversations(pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.before,
    refetchInterval: REFRESH_MS,
  });

  if (list.isPending) {
    return <p>Loading conversations…</p>;
  }
  if (list.isError) {
    return <LoadError error={list.error} retry={list.refetch} />;
  }
  const conversations = list.data.pages.flatMap((page) => page.items);
  if (conversations.length === 0) {
    return <p className="conversations-empty">No messages sent or received yet.</p>;
  }
  return (
    <>
      <ul className="conversation-list">
        {conversations.map((conversation) => {
          const name = correspondentName(conversation.number, conversation.contact?.name);
          const unread = conversation.unread;
          return (
            <li key={conversation.number}>
              <Link
                to={threadPath(conversation.number)}
                className={unread > 0 ? 'conversation unread' : 'conversation'}
                aria-current={conversation.number === selected ? 'page' : undefined}
              >
                <span className="conversation-head">
                  <span className="conversation-name">{name}</span>
                  <time dateTime={conversation.last_at}>{shortTime(conversation.last_at)}</time>
                </span>
                {conversation.contact && (
                  <span className="conversation-number">{conversation.number}</span>
                )}
                <span className="conversation-last">
                  {conversation.last_direction === 'sent' ? 'You: ' : ''}
                  {conversation.last_text}
                </span>
                {unread > 0 && <span className="unread-count">{unread} unread</span>}
              </Link>
            </li>
          );
        })}
      </ul>
      {list.hasNextPage && (
        <button
          type="button"
          className="load-more"
          onClick={() => void list.fetchNextPage()}
          disabled={list.isFetchingNextPage}
        >
          {list.isFetchingNextPage ? 'Loading…' : 'Older conversations'}
        </button>
      )}
    </>
  );
}
