import { Injectable } from '@nestjs/common';
import { Paged } from '../common/http/envelope';
import { buildLink } from '../common/http/links';
import { PAGE_SIZE } from '../common/paging/cursor';
import { utcToZone } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import {
  conversationCursor,
  ConversationsInput,
  CorrespondentInput,
  Direction,
  messageCursor,
  notACorrespondent,
  ThreadInput,
} from './conversations.params';
import { ConversationsRepository, ThreadMessage } from './conversations.repository';

/** One conversation as get_conversations lists it (docs/api.md#get_conversations). */
export interface Conversation {
  number: string;
  contact: { id: number; name: string } | null;
  last_at: string;
  last_text: string;
  last_direction: Direction;
  unread: number;
}

/** One message of a thread (docs/api.md#get_conversation), `at` in the service's time zone. */
export type ConversationMessage = ThreadMessage;

/** get_conversations, get_conversation and post_conversation_read (docs/api.md#conversations). */
@Injectable()
export class ConversationsService {
  constructor(
    private readonly conversations: ConversationsRepository,
    private readonly config: AppConfig,
  ) {}

  async list(
    userId: number,
    apiKey: string | undefined,
    { before }: ConversationsInput,
    linkBase: string,
  ): Promise<Paged<Conversation>> {
    // Rule 1 was checked at the edge (conversations.params.ts).
    // Rule 2.
    const heads = await this.conversations.page(userId, before);
    const shown = heads.slice(0, PAGE_SIZE);
    const numbers = shown.map((head) => head.number);
    const [last, unread, contacts] = await Promise.all([
      this.conversations.lastMessages(userId, numbers),
      this.conversations.unreadCounts(userId, numbers),
      this.conversations.contacts(userId, numbers),
    ]);
    const items = shown.map((head): Conversation => {
      const message = last.get(head.number);
      return {
        number: head.number,
        contact: contacts.get(head.number) ?? null,
        last_at: this.zoned(head.lastAt),
        last_text: message?.text ?? '',
        last_direction: message?.direction ?? 'received',
        unread: unread.get(head.number) ?? 0,
      };
    });
    // Rule 3.
    const end = shown.at(-1);
    const next =
      heads.length > PAGE_SIZE && end !== undefined
        ? buildLink(linkBase, '/api/conversation/', {
            before: conversationCursor({ at: end.lastAt, number: end.number }),
            api_key: apiKey,
          })
        : null;
    return new Paged(items, next, null);
  }

  async thread(
    userId: number,
    apiKey: string | undefined,
    input: ThreadInput,
    linkBase: string,
  ): Promise<Paged<ConversationMessage>> {
    // Rule 1.
    await this.checkCorrespondent(userId, input);
    // Rule 2.
    const messages = await this.conversations.thread(userId, input.number, input.before);
    const shown = messages.slice(0, PAGE_SIZE);
    // Rule 3.
    const oldest = shown.at(-1);
    const next =
      messages.length > PAGE_SIZE && oldest !== undefined
        ? buildLink(linkBase, `/api/conversation/${encodeURIComponent(input.number)}/`, {
            before: messageCursor(oldest),
            api_key: apiKey,
          })
        : null;
    const items = shown.reverse().map((message) => ({ ...message, at: this.zoned(message.at) }));
    return new Paged(items, next, null);
  }

  async markRead(userId: number, input: CorrespondentInput): Promise<number> {
    // Rule 1.
    await this.checkCorrespondent(userId, input);
    // Rule 2.
    return this.conversations.markRead(userId, input.number);
  }

  /** A sender that is not a phone number is only known from the messages it sent the caller. */
  private async checkCorrespondent(userId: number, input: CorrespondentInput): Promise<void> {
    if (input.asReceived && !(await this.conversations.hasReceivedFrom(userId, input.number))) {
      throw notACorrespondent(input.number);
    }
  }

  private zoned(utc: string): string {
    return utcToZone(utc, this.config.timeZone) ?? utc;
  }
}
