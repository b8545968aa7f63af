import { useInfiniteQuery, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import {
  CONVERSATIONS_KEY,
  contactNameOf,
  type ConversationMessage,
  getThread,
  markConversationRead,
  threadKey,
} from '../../api/conversations';
import { LoadError } from '../common/LoadError';
import { canReplyTo, correspondentName, shortTime } from './format';
import { ReplyBox } from './ReplyBox';

/** How often the open thread is read again: a message received meanwhile shows within it. */
const REFRESH_MS = 2000;

const STATUS_WORDS: Record<string, string> = {
  unknown: 'sent',
  delivered: 'delivered',
  failed: 'failed',
};

/**
 * The messages with one number in time order, the newest at the bottom, older ones on request;
 * messages that were unread are marked New, and marked read as the thread is shown.
 */
export function ConversationThread({ number }: { number: string }) {
  const queryClient = useQueryClient();
  const thread = useInfiniteQuery({
    queryKey: threadKey(number),
    queryFn: ({ pageParam }) => getThread(number, pageParam),
    initialPageParam: null as string | null,
    getNextPageParam: (page) => page.before,
    refetchInterval: REFRESH_MS,
  });
  const contact = useQuery({
    queryKey: ['contacts', 'by-number', number],
    queryFn: () => contactNameOf(number),
    enabled: canReplyTo(number),
  });
  const markRead = useMutation({
    mutationFn: () => markConversationRead(number),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: CONVERSATIONS_KEY }),
  });

  const messages = thread.data
    ? [...thread.data.pages].reverse().flatMap((page) => page.items)
    : [];
  // Messages that were unread when shown keep their mark while the thread is open; each new
  // one is marked read once, not again until the thread has been read anew.
  const [shownUnread, setShownUnread] = useState<ReadonlySet<number>>(new Set());
  const unreadKey = messages
    .filter((message) => message.direction === 'received' && message.status === 'unread')
    .map((message) => message.id)
    .join(',');
  const { mutate } = markRead;
  useEffect(() => {
    if (unreadKey !== '') {
      const ids = unreadKey.split(',').map(Number);
      setShownUnread((known) => new Set([...known, ...ids]));
      mutate();
    }
  }, [unreadKey, mutate]);

  // The newest message in view when it arrives, as in any messaging application.
  const end = useRef<HTMLDivElement>(null);
  const newest = messages.at(-1);
  const newestKey = newest ? `${newest.direction}-${newest.id}` : '';
  useEffect(() => {
    end.current?.scrollIntoView({ block: 'nearest' });
  }, [newestKey]);

  const name = correspondentName(number, contact.data);
  return (
    <section className="conversation-thread" aria-labelledby="thread-title">
      <header className="thread-header">
        <Link to="/conversations" className="thread-back">
          Back to conversations
        </Link>
        <h2 id="thread-title">{name}</h2>
        {name !== number && <p className="conversation-number">{number}</p>}
      </header>
      {thread.isPending && <p>Loading messages…</p>}
      {thread.isError && <LoadError error={thread.error} retry={thread.refetch} />}
      {thread.data && (
        <>
          {thread.hasNextPage && (
            <button
              type="button"
              className="load-more"
              onClick={() => void thread.fetchNextPage()}
              disabled={thread.isFetchingNextPage}
            >
              {thread.isFetchingNextPage ? 'Loading…' : 'Older messages'}
            </button>
          )}
          {messages.length === 0 ? (
            <p>No messages with {name} yet.</p>
          ) : (
            // Focusable: on a laptop the thread scrolls inside its box, also by keyboard.
            <div className="thread" role="log" aria-label={`Messages with ${name}`} tabIndex={0}>
              <ol>
                {messages.map((message) => (
                  <MessageItem
                    key={`${message.direction}-${message.id}`}
                    message={message}
                    isNew={message.direction === 'received' && shownUnread.has(message.id)}
                  />
                ))}
              </ol>
              <div ref={end} />
            </div>
          )}
        </>
      )}
      {canReplyTo(number) ? (
        <ReplyBox
          number={number}
          phoneId={messages.findLast((message) => message.id_phone !== null)?.id_phone ?? null}
        />
      ) : (
        <p className="no-reply">{number} is a sender name: it cannot be answered.</p>
      )}
    </section>
  );
}

function MessageItem({ message, isNew }: { message: ConversationMessage; isNew: boolean }) {
  const sent = message.direction === 'sent';
  const unread = isNew || message.status === 'unread';
  return (
    <li className={`message ${sent ? 'sent' : 'received'}${unread ? ' unread' : ''}`}>
      <p className="message-text">{message.text}</p>
      <p className="message-meta">
        {sent ? `You · ${STATUS_WORDS[message.status] ?? message.status}` : 'Received'} ·{' '}
        <time dateTime={message.at}>{shortTime(message.at)}</time>
        {unread && <span className="unread-mark"> · New</span>}
      </p>
    </li>
  );
}
