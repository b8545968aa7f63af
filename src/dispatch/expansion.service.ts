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
import { CompiledCondition, compileCondition } from './text/condition';
import { toGsmAlphabet } from './text/gsm';
import { CompiledTemplate, compileTemplate } from './text/template';

/** Recipients are read and queued this many at a time: a campaign's size never sits in memory. */
const PAGE = 500;

/** The longest text a message may carry (DECISIONS §5), also after rendering. */
const MAX_TEXT = 1000;

const STOP_EXEMPT_TAG = 'SMS_STOP';

interface Recipient {
  number: string;
  data: string | null;
  metas: Record<string, unknown>;
}

/**
 * Turns due scheduled messages into outbox rows, one per recipient (DECISIONS §8): numbers,
 * then contacts, the contacts of groups, the contacts matching conditional groups, each
 * destination once, the STOP list applied, the text rendered. One transaction per message: it
 * locks the message, queues every recipient and deletes the message, so a worker that dies
 * half-way leaves the message due and nothing queued, and two workers never expand it twice.
 */
@Injectable()
export class ExpansionService {
  private readonly logger = new Logger(ExpansionService.name);

  constructor(
    private readonly repository: DispatchRepository,
    private readonly config: AppConfig,
  ) {}

  /** Expands one due message; false when none is due. */
  expandNext(): Promise<boolean> {
    return this.repository.transaction(async (manager) => {
      const now = nowUtc();
      const scheduled = await this.repository.lockNextDue(manager, now);
      if (!scheduled) {
        return false;
      }
      const queued = await this.expand(manager, scheduled, now);
      await this.repository.deleteScheduled(manager, scheduled.id);
      this.logger.log(
        `Scheduled message ${scheduled.id} queued: ${queued} recipients, before duplicates.`,
      );
      return true;
    });
  }

  private async expand(
    manager: EntityManager,
    scheduled: DueScheduled,
    now: string,
  ): Promise<number> {
    const settings = await this.repository.settingsOf(manager, scheduled.id_user);
    const stopped =
      isSettingOn(settings, 'smsstop') && scheduled.tag !== STOP_EXEMPT_TAG
        ? await this.repository.stopListOf(manager, scheduled.id_user)
        : new Set<string>();
    // A text without Twig delimiters renders as itself: no need to render it per recipient.
    const template =
      isSettingOn(settings, 'templating') && /\{[{%#]/.test(scheduled.text)
        ? compileTemplate(scheduled.text)
        : null;
    const mediaIds = await this.repository.mediaIdsOf(manager, scheduled.id);
    const gsmOnly = isSettingOn(settings, 'force_gsm_alphabet');
    const base = {
      id_user: scheduled.id_user,
      originating_scheduled: scheduled.id,
      id_phone: scheduled.id_phone,
      id_phone_group: scheduled.id_phone_group,
      flash: Number(scheduled.flash),
      mms: Number(scheduled.mms),
      tag: scheduled.tag,
      media_ids: mediaIds.length > 0 ? JSON.stringify(mediaIds) : null,
    };
    let queued = 0;
    for await (const page of this.recipients(manager, scheduled)) {
      const rows = page
        .filter((recipient) => !stopped.has(recipient.number))
        .map((recipient): NewOutboxRow => {
          const rendered = render(template, scheduled.text, recipient, mediaIds.length > 0);
          const text = typeof rendered === 'string' && gsmOnly ? toGsmAlphabet(rendered) : rendered;
          return typeof text === 'string'
            ? { ...base, destination: recipient.number, text, state: 'queued', error: null }
            : {
                ...base,
                destination: recipient.number,
                text: scheduled.text,
                state: 'rejected',
                error: text.reason,
              };
        });
      await this.repository.queue(manager, rows, now);
      queued += rows.length;
    }
    return queued;
  }

  /** The message's recipients in DECISIONS §8 order, a page at a time. */
  private async *recipients(
    manager: EntityManager,
    scheduled: DueScheduled,
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
    for (const expression of await this.repository.conditionsOf(manager, scheduled.id)) {
      const condition = compileCondition(expression, { timeZone: this.config.timeZone });
      if (condition.error) {
        this.logger.warn(
          `Scheduled message ${scheduled.id}: a conditional group's condition is invalid (${condition.error}); it matches no contact.`,
        );
        continue;
      }
      yield* this.matching(manager, scheduled.id_user, condition);
    }
  }

  private async *matching(
    manager: EntityManager,
    userId: number,
    condition: CompiledCondition,
  ): AsyncGenerator<Recipient[]> {
    for (let after = 0; ;) {
      const contacts = await this.repository.userContactsPage(manager, userId, after, PAGE);
      if (contacts.length === 0) {
        break;
      }
      yield contacts
        .map(contactRecipient)
        .filter((recipient) => condition.matches(decodeData(recipient.data), recipient.metas));
      after = Number(contacts[contacts.length - 1].id);
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

/** A recipient's data as template variables: a JSON object, else nothing. */
function decodeData(data: string | null): Record<string, unknown> | null {
  if (!data) {
    return null;
  }
  try {
    const value: unknown = JSON.parse(data);
    return value !== null && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : null;
  } catch {
    return null;
  }
}

/** The recipient's text, or why it cannot have one. */
function render(
  template: CompiledTemplate | null,
  source: string,
  recipient: Recipient,
  withMedias: boolean,
): string | { reason: string } {
  if (!template) {
    return source;
  }
  const rendered = template.render({
    contact: decodeData(recipient.data),
    contact_metas: recipient.metas,
  });
  if (!rendered.ok) {
    return { reason: rendered.reason };
  }
  if ([...rendered.text].length > MAX_TEXT) {
    return { reason: `The rendered text is longer than ${MAX_TEXT} characters.` };
  }
  if (!rendered.text.trim() && !withMedias) {
    return { reason: 'The rendered text is empty.' };
  }
  return rendered.text;
}
