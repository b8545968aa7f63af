import { Injectable, Logger } from '@nestjs/common';
import { setImmediate } from 'node:timers/promises';
import { Sql } from '../database/driver/sql';
import { nowUtc } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { contactRecipient } from '../contacts/contact-recipients';
import { hasTemplateSyntax, transliterated } from '../text/recipient-text';
import { TextPool } from '../text/text-pool';
import { isSettingOn } from '../users/settings';
import { expiryOf } from './validity';
import {
  ConditionLink,
  DueScheduled,
  ExpansionRepository,
  NumberRecipient,
} from './expansion.repository';
import {
  Cursor,
  cursorOf,
  hasAny,
  nextCondition,
  numberRecipient,
  pageOf,
  PHASES,
  Recipient,
  sameConditions,
  sameCursor,
  startOf,
} from './expansion-cursor';
import { ExpandingMessage, Pending, pendingRows } from './expansion-rows';

/**
 * Recipients one expansion transaction reads at most, and due messages it locks at a time;
 * contacts tested against a condition at a time, so that their matches fit it too. About as
 * long a hold on the database (on SQLite, on the event loop) as recording as many sends, and as
 * many as a default batch sends, so that a campaign pays one COMMIT per stage per batch.
 */
const BUDGET = 500;

const STOP_EXEMPT_TAG = 'SMS_STOP';

/** A message whose next recipients are the matches of one of its conditional groups. */
interface Conditional {
  scheduled: DueScheduled;
  cursor: Cursor;
  conditions: ConditionLink[];
}

/** What the transaction over due messages did. */
interface Expanded {
  expanded: boolean;
  /** Recipients read. */
  read: number;
  /** Messages whose every recipient is now queued. */
  finished: number[];
  /** The message it stopped at, whose next recipients need conditions tested first. */
  conditional: Conditional | null;
}

/**
 * Turns due scheduled messages into outbox rows, one per recipient, in this order: numbers,
 * then contacts, the contacts of groups, the contacts matching conditional groups, each
 * destination once, the STOP list applied.
 *
 * One transaction expands as many due messages as fit a budget of recipients (BUDGET), oldest
 * first, and the worker expands a batch's worth before each claim (`expandBatch`), so that a
 * flood of one-recipient messages fills whole batches. A larger message is expanded a budget
 * at a time, over several transactions, each of which queues a chunk and moves the message's
 * cursor (`expansion_*` columns) past it: a worker that dies mid-way leaves the last chunk
 * unqueued and the cursor before it, and resumes there. The message is deleted in the
 * transaction that queues its last recipients. Two workers never expand the same chunk: the
 * message's row is locked (skipped by the others) for the chunk.
 *
 * A message deleted while partly expanded queues nothing more, and those of its recipients
 * already queued are sent; one postponed, or whose user is no longer active, stops where it is
 * and resumes once it is due again.
 *
 * No template is rendered and no condition evaluated in those transactions, since on SQLite
 * every other query waits for them: a conditional group's contacts are tested BUDGET at a time,
 * in the text pool's threads, outside of any transaction, and the matches queued in a
 * transaction that checks the cursor has not moved meanwhile; templated texts are queued
 * `unrendered`, with what their render needs, for the RenderingService.
 */
@Injectable()
export class ExpansionService {
  private readonly logger = new Logger(ExpansionService.name);

  constructor(
    private readonly repository: ExpansionRepository,
    private readonly pool: TextPool,
    private readonly config: AppConfig,
  ) {}

  /**
   * Expands due messages, up to BUDGET recipients, in one transaction; or, when the oldest
   * one's next recipients are the matches of a conditional group, the next chunk of those.
   * False when nothing is due (or `signal` stopped the work).
   */
  async expandNext(signal?: AbortSignal): Promise<boolean> {
    return (await this.step(signal)) !== null;
  }

  /**
   * Expands about a batch (DISPATCH_BATCH_SIZE recipients), or what is due now if less, a step
   * (`expandNext`) at a time, each after a turn of the event loop. False when nothing was due.
   */
  async expandBatch(signal?: AbortSignal): Promise<boolean> {
    let read = 0;
    let expanded = false;
    while (read < this.config.dispatch.batchSize && !signal?.aborted) {
      const step = await this.step(signal);
      if (step === null) {
        break;
      }
      expanded = true;
      read += step;
      // Less than a budget: what was due is queued, and what comes due meanwhile (a flood of
      // get_send_sms) waits for the next batch rather than hold this one back.
      if (step < BUDGET) {
        break;
      }
      await setImmediate();
    }
    return expanded;
  }

  /** One step of `expandNext`; the recipients it read, or null when nothing was due. */
  private async step(signal?: AbortSignal): Promise<number | null> {
    const { expanded, read, finished, conditional } = await this.repository.transaction(
      this.expandDue(nowUtc()),
    );
    this.logFinished(finished);
    if (!expanded) {
      return null;
    }
    return conditional === null || read > 0 ? read : this.expandConditional(conditional, signal);
  }

  /** Queues due messages' numbers, contacts and groups' contacts, up to BUDGET of them. */
  private *expandDue(now: string): Sql<Expanded> {
    const settings = new Map<number, Record<string, string>>();
    const finished: number[] = [];
    let pending: Pending[] = [];
    let left = BUDGET;
    let expanded = false;
    for (;;) {
      const limit = left;
      const due = yield* this.repository.lockDue(now, limit);
      const firstPages = yield* this.firstPages(due, left);
      const done: number[] = [];
      let conditional: Conditional | null = null;
      for (const scheduled of due) {
        if (left === 0 || conditional) {
          break;
        }
        expanded = true;
        const message = yield* this.message(scheduled, settings);
        const from = cursorOf(scheduled);
        let cursor = from;
        const first = firstPages.get(scheduled.id);
        if (first && first.length <= left) {
          pending.push(...pendingRows(message, first.map(numberRecipient)));
          left -= first.length;
          cursor = startOf('contacts');
        }
        // Kinds the message has none of are passed over even once the budget is spent.
        while (cursor.phase !== 'conditions' && (left > 0 || !hasAny(scheduled, cursor.phase))) {
          const page = yield* this.page(scheduled, cursor, left);
          pending.push(...pendingRows(message, page.recipients));
          left -= page.read;
          cursor = page.next;
        }
        const conditions =
          cursor.phase === 'conditions' && hasAny(scheduled, 'conditions')
            ? yield* this.repository.conditionsOf(scheduled.id)
            : [];
        if (cursor.phase === 'conditions' && nextCondition(conditions, cursor) === null) {
          done.push(scheduled.id);
          continue;
        }
        if (!sameCursor(cursor, from)) {
          yield* this.repository.saveCursor(scheduled.id, cursor);
        }
        if (cursor.phase === 'conditions') {
          conditional = { scheduled, cursor, conditions };
        }
      }
      yield* this.queue(pending, now);
      pending = [];
      yield* this.repository.deleteScheduled(done);
      finished.push(...done);
      // Fewer than asked: nothing else is due (those finished are deleted before any re-read).
      if (conditional || left === 0 || due.length < limit) {
        return { expanded, read: BUDGET - left, finished, conditional };
      }
    }
  }

  /**
   * The numbers of the messages among `due` that start now, read in one statement for them all
   * rather than one each (a round trip each on MySQL), up to `budget`: only those of the
   * messages whose numbers were read out.
   */
  private *firstPages(
    due: readonly DueScheduled[],
    budget: number,
  ): Sql<Map<number, NumberRecipient[]>> {
    const starting = due.filter(
      (scheduled) => hasAny(scheduled, 'numbers') && !scheduled.expansion_phase,
    );
    const pages = new Map<number, NumberRecipient[]>();
    if (starting.length < 2) {
      return pages;
    }
    const rows = yield* this.repository.numbersOf(
      starting.map((scheduled) => scheduled.id),
      budget + 1,
    );
    for (const row of rows) {
      const id = Number(row.id_scheduled);
      const page = pages.get(id) ?? [];
      page.push(row);
      pages.set(id, page);
    }
    // The last message read may have more numbers than the statement's limit let through.
    if (rows.length > budget) {
      pages.delete(Number(rows[rows.length - 1].id_scheduled));
    }
    return pages;
  }

  /**
   * Tests the user's contacts against the message's current conditional group, BUDGET at a
   * time outside of any transaction, until some match or the contacts run out; then queues the
   * matches, unless another worker moved the cursor meanwhile. How many matched; null when
   * `signal` stopped the tests.
   */
  private async expandConditional(
    found: Conditional,
    signal?: AbortSignal,
  ): Promise<number | null> {
    const { scheduled, cursor, conditions } = found;
    const condition = nextCondition(conditions, cursor);
    if (condition === null) {
      return 0;
    }
    const matched: number[] = [];
    let after = condition.link_id === cursor.link ? cursor.after : 0;
    let exhausted = false;
    while (matched.length === 0) {
      const contacts = await this.repository.userContactsPage(scheduled.id_user, after, BUDGET);
      if (contacts.length === 0) {
        exhausted = true;
        break;
      }
      let result;
      try {
        result = await this.pool.match(
          [condition.expression],
          contacts.map(contactRecipient),
          this.config.timeZone,
          signal,
        );
      } catch (error) {
        if (signal?.aborted) {
          return null;
        }
        throw error;
      }
      if (after === 0 && result.errors[0]) {
        this.logger.warn(
          `Scheduled message ${scheduled.id}: a conditional group's condition is invalid (${result.errors[0]}); it matches no contact.`,
        );
      }
      result.matched.forEach((indexes, position) => {
        if (indexes.length > 0) {
          matched.push(Number(contacts[position].id));
        }
      });
      after = Number(contacts[contacts.length - 1].id);
      if (contacts.length < BUDGET) {
        exhausted = true;
        break;
      }
    }
    const next: Cursor = exhausted
      ? { phase: 'conditions', link: condition.link_id + 1, after: 0 }
      : { phase: 'conditions', link: condition.link_id, after };
    const finished = await this.repository.transaction(
      this.queueMatches(found, matched, next, nowUtc()),
    );
    if (finished) {
      this.logFinished([scheduled.id]);
    }
    return matched.length;
  }

  /**
   * Queues the contacts `matched` (those that still exist) and moves the cursor to `next`, or
   * deletes the message when no conditional group is left. Nothing when the message is no
   * longer due, another worker holds it or moved its cursor, or its conditional groups changed:
   * the next turn tests them again. True when the message is finished.
   */
  private *queueMatches(
    found: Conditional,
    matched: readonly number[],
    next: Cursor,
    now: string,
  ): Sql<boolean> {
    const scheduled = yield* this.repository.lockDueById(found.scheduled.id, now);
    if (
      !scheduled ||
      !sameCursor(cursorOf(scheduled), found.cursor) ||
      !sameConditions(yield* this.repository.conditionsOf(scheduled.id), found.conditions)
    ) {
      return false;
    }
    const message = yield* this.message(scheduled, new Map());
    const contacts = yield* this.repository.contactsByIds(scheduled.id_user, matched);
    yield* this.queue(pendingRows(message, contacts.map(contactRecipient)), now);
    if (nextCondition(found.conditions, next) === null) {
      yield* this.repository.deleteScheduled([scheduled.id]);
      return true;
    }
    yield* this.repository.saveCursor(scheduled.id, next);
    return false;
  }

  /** What the message's rows share, with its user's settings (read once per transaction). */
  private *message(
    scheduled: DueScheduled,
    settingsByUser: Map<number, Record<string, string>>,
  ): Sql<ExpandingMessage> {
    let settings = settingsByUser.get(scheduled.id_user);
    if (!settings) {
      settings = yield* this.repository.settingsOf(scheduled.id_user);
      settingsByUser.set(scheduled.id_user, settings);
    }
    const gsm = isSettingOn(settings, 'force_gsm_alphabet');
    const templated = isSettingOn(settings, 'templating') && hasTemplateSyntax(scheduled.text);
    const mediaIds = Number(scheduled.has_medias)
      ? yield* this.repository.mediaIdsOf(scheduled.id)
      : [];
    return {
      scheduled,
      stop: isSettingOn(settings, 'smsstop') && scheduled.tag !== STOP_EXEMPT_TAG,
      gsm,
      plain: templated ? null : transliterated(scheduled.text, gsm, 'The text'),
      base: {
        id_user: scheduled.id_user,
        originating_scheduled: scheduled.id,
        id_phone: scheduled.id_phone,
        id_phone_group: scheduled.id_phone_group,
        text: scheduled.text,
        flash: Number(scheduled.flash),
        mms: Number(scheduled.mms),
        tag: scheduled.tag,
        expires_at: expiryOf(
          String(scheduled.at).slice(0, 19),
          scheduled.validity === null ? null : Number(scheduled.validity),
        ),
        priority: Number(scheduled.priority),
        effective_window: scheduled.effective_window,
        media_ids: mediaIds.length > 0 ? JSON.stringify(mediaIds) : null,
      },
    };
  }

  /**
   * The recipients of the message's current kind after `cursor`, up to `limit` read, and where
   * the cursor then stands (the next kind's start once this one is read out).
   */
  private *page(
    scheduled: DueScheduled,
    cursor: Cursor,
    limit: number,
  ): Sql<{ recipients: Recipient[]; read: number; next: Cursor }> {
    if (cursor.phase === 'conditions') {
      return { recipients: [], read: 0, next: cursor };
    }
    const following = startOf(PHASES[PHASES.indexOf(cursor.phase) + 1]);
    if (!hasAny(scheduled, cursor.phase)) {
      return { recipients: [], read: 0, next: following };
    }
    switch (cursor.phase) {
      case 'numbers': {
        const rows = yield* this.repository.numbersPage(scheduled.id, cursor.after, limit);
        return pageOf(rows.map(numberRecipient), limit, following, () => ({
          ...cursor,
          after: Number(rows[rows.length - 1].id),
        }));
      }
      case 'contacts': {
        const rows = yield* this.repository.directContactsPage(scheduled.id, cursor.after, limit);
        return pageOf(rows.map(contactRecipient), limit, following, () => ({
          ...cursor,
          after: Number(rows[rows.length - 1].link_id),
        }));
      }
      case 'groups': {
        const rows = yield* this.repository.groupContactsPage(
          scheduled.id,
          { link: cursor.link, member: cursor.after },
          limit,
        );
        return pageOf(rows.map(contactRecipient), limit, following, () => {
          const last = rows[rows.length - 1];
          return { ...cursor, link: Number(last.link_id), after: Number(last.member_id) };
        });
      }
    }
  }

  /** Queues the rows, in order, but those whose destination is on their user's STOP list. */
  private *queue(pending: readonly Pending[], now: string): Sql<void> {
    if (pending.length === 0) {
      return;
    }
    const checked = new Map<number, Set<string>>();
    for (const { row, stop } of pending) {
      if (stop) {
        checked.set(row.id_user, (checked.get(row.id_user) ?? new Set()).add(row.destination));
      }
    }
    const stopped = new Map<number, Set<string>>();
    for (const [userId, numbers] of checked) {
      stopped.set(userId, yield* this.repository.stoppedAmong(userId, [...numbers]));
    }
    yield* this.repository.queueRows(
      pending
        .filter(({ row, stop }) => !stop || !stopped.get(row.id_user)?.has(row.destination))
        .map(({ row }) => row),
      now,
    );
  }

  private logFinished(finished: readonly number[]): void {
    for (const id of finished) {
      this.logger.log(`Scheduled message ${id} queued: every recipient is in the outbox.`);
    }
  }
}
