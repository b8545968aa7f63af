import { Injectable, Logger } from '@nestjs/common';
import { EntityManager } from 'typeorm';
import { nowUtc } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { isSettingOn } from '../users/settings';
import {
  ContactRecipient,
  DispatchRepository,
  DueScheduled,
  NewOutboxRow,
} from './dispatch.repository';
import { RecipientInput, transliterated } from './text/recipient-text';
import { TextPool } from './text/text-pool';
import type { RenderInput } from './text/text.worker';

/** Recipients are read and queued this many at a time: a campaign's size never sits in memory. */
const PAGE = 500;

const STOP_EXEMPT_TAG = 'SMS_STOP';

/** Per condition of a message, the ids of the user's contacts that satisfy it, in id order. */
type Matches = ReadonlyMap<string, readonly number[]>;

interface Recipient extends RecipientInput {
  number: string;
}

/**
 * Turns due scheduled messages into outbox rows, one per recipient, in this order: numbers,
 * then contacts, the contacts of groups, the contacts matching conditional groups, each
 * destination once, the STOP list applied. One transaction per message: it locks the message,
 * queues every recipient and deletes the message, so a worker that dies half-way leaves the
 * message due and nothing queued, and two workers never expand it twice.
 *
 * No template is rendered and no condition evaluated in that transaction, since on SQLite every
 * other query waits for it: conditions are evaluated before it, in the text pool's threads,
 * against the user's contacts read a page at a time; templated texts are queued `unrendered`,
 * with what their render needs, for the RenderingService.
 */
@Injectable()
export class ExpansionService {
  private readonly logger = new Logger(ExpansionService.name);

  constructor(
    private readonly repository: DispatchRepository,
    private readonly pool: TextPool,
    private readonly config: AppConfig,
  ) {}

  /** Expands one due message; false when none is due (or `signal` stopped the work). */
  async expandNext(signal?: AbortSignal): Promise<boolean> {
    const found = await this.repository.transaction(async (manager) => {
      const now = nowUtc();
      const scheduled = await this.repository.lockNextDue(manager, now);
      if (!scheduled) {
        return null;
      }
      const conditions = await this.repository.conditionsOf(manager, scheduled.id);
      if (conditions.length === 0) {
        await this.expand(manager, scheduled, now, [], new Map());
        return true;
      }
      // Released: its conditions are evaluated outside of any transaction.
      return { scheduled, conditions };
    });
    if (found === null || found === true) {
      return found === true;
    }
    let matches: Matches;
    try {
      matches = await this.match(found.scheduled, found.conditions, signal);
    } catch (error) {
      if (signal?.aborted) {
        return false;
      }
      throw error;
    }
    return this.repository.transaction(async (manager) => {
      const now = nowUtc();
      const scheduled = await this.repository.lockDue(manager, found.scheduled.id, now);
      // Another worker took it, or it was deleted or postponed meanwhile; or its conditional
      // groups changed, and the next turn evaluates them again.
      if (
        scheduled &&
        sameList(await this.repository.conditionsOf(manager, scheduled.id), found.conditions)
      ) {
        await this.expand(manager, scheduled, now, found.conditions, matches);
      }
      return true;
    });
  }

  /** Queues the message's recipients and deletes it. */
  private async expand(
    manager: EntityManager,
    scheduled: DueScheduled,
    now: string,
    conditions: readonly string[],
    matches: Matches,
  ): Promise<void> {
    const settings = await this.repository.settingsOf(manager, scheduled.id_user);
    const stopped =
      isSettingOn(settings, 'smsstop') && scheduled.tag !== STOP_EXEMPT_TAG
        ? await this.repository.stopListOf(manager, scheduled.id_user)
        : new Set<string>();
    const gsm = isSettingOn(settings, 'force_gsm_alphabet');
    // A text without Twig delimiters renders as itself: it is never rendered per recipient.
    const templated = isSettingOn(settings, 'templating') && /\{[{%#]/.test(scheduled.text);
    const plain = templated ? null : transliterated(scheduled.text, gsm, 'The text');
    const mediaIds = await this.repository.mediaIdsOf(manager, scheduled.id);
    const base = {
      id_user: scheduled.id_user,
      originating_scheduled: scheduled.id,
      id_phone: scheduled.id_phone,
      id_phone_group: scheduled.id_phone_group,
      text: scheduled.text,
      flash: Number(scheduled.flash),
      mms: Number(scheduled.mms),
      tag: scheduled.tag,
      media_ids: mediaIds.length > 0 ? JSON.stringify(mediaIds) : null,
    };
    let queued = 0;
    for await (const page of this.recipients(manager, scheduled, conditions, matches)) {
      const rows = page
        .filter((recipient) => !stopped.has(recipient.number))
        .map((recipient): NewOutboxRow => {
          const destination = recipient.number;
          if (plain === null) {
            const input: RenderInput = { data: recipient.data, metas: recipient.metas, gsm };
            return {
              ...base,
              destination,
              state: 'unrendered',
              error: null,
              render_input: JSON.stringify(input),
            };
          }
          return 'text' in plain
            ? {
                ...base,
                destination,
                text: plain.text,
                state: 'queued',
                error: null,
                render_input: null,
              }
            : { ...base, destination, state: 'rejected', error: plain.reason, render_input: null };
        });
      await this.repository.queue(manager, rows, now);
      queued += rows.length;
    }
    await this.repository.deleteScheduled(manager, scheduled.id);
    this.logger.log(
      `Scheduled message ${scheduled.id} queued: ${queued} recipients, before duplicates.`,
    );
  }

  /**
   * Which of the user's contacts satisfy each of the conditions, evaluated in the text pool a page
   * of contacts at a time, outside of any transaction. A condition that cannot be used matches
   * no contact.
   */
  private async match(
    scheduled: DueScheduled,
    conditions: readonly string[],
    signal?: AbortSignal,
  ): Promise<Matches> {
    const distinct = [...new Set(conditions)];
    const matched = distinct.map((): number[] => []);
    const outside = this.repository.dataSource.manager;
    let errors: Array<string | null> = [];
    for (let after = 0; ;) {
      const contacts = await this.repository.userContactsPage(
        outside,
        scheduled.id_user,
        after,
        PAGE,
      );
      if (contacts.length === 0) {
        break;
      }
      const result = await this.pool.match(
        distinct,
        contacts.map(contactRecipient),
        this.config.timeZone,
        signal,
      );
      result.matched.forEach((indexes, position) => {
        for (const index of indexes) {
          matched[index].push(Number(contacts[position].id));
        }
      });
      errors = result.errors;
      after = Number(contacts[contacts.length - 1].id);
    }
    errors.forEach((error) => {
      if (error !== null) {
        this.logger.warn(
          `Scheduled message ${scheduled.id}: a conditional group's condition is invalid (${error}); it matches no contact.`,
        );
      }
    });
    return new Map(distinct.map((expression, index) => [expression, matched[index]]));
  }

  /** The message's recipients, numbers first and conditional groups last, a page at a time. */
  private async *recipients(
    manager: EntityManager,
    scheduled: DueScheduled,
    conditions: readonly string[],
    matches: Matches,
  ): AsyncGenerator<Recipient[]> {
    for (let after = 0; ;) {
      const numbers = await this.repository.numbersPage(manager, scheduled.id, after, PAGE);
      if (numbers.length === 0) {
        break;
      }
      yield numbers.map((row) => ({
        number: row.number,
        data: row.data,
        metas: { number: row.number },
      }));
      after = Number(numbers[numbers.length - 1].id);
    }
    for (let after = 0; ;) {
      const contacts = await this.repository.directContactsPage(manager, scheduled.id, after, PAGE);
      if (contacts.length === 0) {
        break;
      }
      yield contacts.map(contactRecipient);
      after = Number(contacts[contacts.length - 1].link_id);
    }
    for (let after = { link: 0, member: 0 }; ;) {
      const contacts = await this.repository.groupContactsPage(manager, scheduled.id, after, PAGE);
      if (contacts.length === 0) {
        break;
      }
      yield contacts.map(contactRecipient);
      const last = contacts[contacts.length - 1];
      after = { link: Number(last.link_id), member: Number(last.member_id) };
    }
    for (const expression of conditions) {
      const ids = matches.get(expression) ?? [];
      for (let start = 0; start < ids.length; start += PAGE) {
        const contacts = await this.repository.contactsByIds(
          manager,
          scheduled.id_user,
          ids.slice(start, start + PAGE),
        );
        yield contacts.map(contactRecipient);
      }
    }
  }
}

function contactRecipient(contact: ContactRecipient): Recipient {
  return {
    number: contact.number,
    data: contact.data,
    metas: {
      id: Number(contact.id),
      name: contact.name,
      number: contact.number,
      created_at: contact.created_at,
      updated_at: contact.updated_at,
    },
  };
}

function sameList(left: readonly string[], right: readonly string[]): boolean {
  return left.length === right.length && left.every((value, index) => value === right[index]);
}
