import { Injectable, Logger } from '@nestjs/common';
import { createReadStream } from 'node:fs';
import { EntityManager, QueryFailedError } from 'typeorm';
import { DispatchSignal } from '../common/dispatch-signal';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { Replayed } from '../common/http/envelope';
import { AuthenticatedUser, UploadedFile } from '../common/http/request';
import { Deferred } from '../common/params/deferred';
import { countryOf } from '../common/phone/phone-number';
import { nowUtc } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { keyedRequest } from '../idempotency/idempotency.fingerprint';
import { IdempotencyService, KeyedRequest } from '../idempotency/idempotency.service';
import { MediaStorage } from '../media/media-storage';
import { measureSms, SmsMeasure } from '../common/text/gsm';
import { contactRecipient } from '../contacts/contact-recipients';
import { hasTemplateSyntax, TextOutcome, transliterated } from '../text/recipient-text';
import { compileTemplate } from '../text/template';
import { TextPool } from '../text/text-pool';
import type { RenderInput } from '../text/text.worker';
import { isSettingOn } from '../users/settings';
import { messageTiming } from './message-window';
import { parseNumbersCsv } from './numbers-csv';
import { Row } from '../entries/entries.repository';
import { EntriesService } from '../entries/entries.service';
import {
  parseMergedScheduleParams,
  PreviewInput,
  ScheduleInput,
  SendNowInput,
  UpdateScheduledInput,
} from './scheduled.params';
import { NewScheduled, Recipients } from './scheduled-message';
import { ScheduledRepository } from './scheduled.repository';

const RECIPIENT_NOUNS: Record<Recipients, string> = {
  contacts: 'contacts',
  groups: 'groups',
  conditional_groups: 'conditional groups',
};

/**
 * post_scheduled, get_send_sms, delete_scheduled, and reading and updating a pending message
 * (docs/api.md).
 */
@Injectable()
export class ScheduledService {
  private readonly logger = new Logger(ScheduledService.name);

  constructor(
    private readonly scheduled: ScheduledRepository,
    private readonly media: MediaStorage,
    private readonly config: AppConfig,
    private readonly dispatch: DispatchSignal,
    private readonly entries: EntriesService,
    private readonly pool: TextPool,
    private readonly idempotency: IdempotencyService,
  ) {}

  /** GET /api/scheduled/{id}/: one of the caller's pending messages, as listed. */
  async findOne(userId: number, { id }: { id?: number }): Promise<Row> {
    const entry =
      id === undefined ? undefined : await this.entries.findOne(userId, 'scheduled', id);
    if (entry === undefined) {
      throw ApiError.notFound(
        ErrorCode.INVALID_PARAMETER,
        `id : ${id ?? '""'} is not the id of one of your scheduled messages.`,
      );
    }
    return entry;
  }

  /** post_scheduled; `key` is its idempotency key, if it was sent one. */
  async schedule(
    user: AuthenticatedUser,
    input: ScheduleInput,
    key: Deferred<string | undefined>,
  ): Promise<number | Replayed> {
    // Rules 1 to 4 were checked at the edge (scheduled.params.ts).
    const { message, medias } = await this.check(user, input);
    // Rule 11.
    const keyed = await keyedRequest('post_scheduled', key, {
      ...input,
      at: input.atSent ? input.at : undefined,
    });
    return this.create({ userId: user.id, ...message }, medias, keyed, 201);
  }

  /**
   * post_update_scheduled: post_scheduled's rules 2 to 10 and 12 to 14 on the stored message with the fields
   * sent, all in the transaction that holds the message, so that the dispatch cannot take it in
   * between (ScheduledRepository.updateOwn).
   */
  async update(user: AuthenticatedUser, { id, sent }: UpdateScheduledInput): Promise<Row> {
    // Rules 1 and 2 were checked at the edge (scheduled.params.ts).
    const notFound = () =>
      ApiError.notFound(
        ErrorCode.CANNOT_UPDATE,
        `id : ${id ?? '""'} is not the id of one of your scheduled messages waiting to be sent.`,
      );
    // Rule 3 (also checked in the transaction, see ScheduledRepository.updateOwn).
    if (id === undefined) {
      throw notFound();
    }
    let updated: Row | undefined | null;
    let sendAfter = '';
    try {
      updated = await this.scheduled.updateOwn(
        user.id,
        id,
        async (stored, manager) => {
          // Rule 4: post_scheduled's rules on the merged message, parsed as post_scheduled
          // parses its own (its rule 1 holds unless `text` is sent empty, which is then missing).
          const input = parseMergedScheduleParams(
            stored,
            sent,
            countryOf(user),
            this.config.timeZone,
          );
          const { message } = await this.check(user, input, manager);
          sendAfter = message.sendAfter;
          return {
            message,
            replaces: {
              numbers: sent.numbers !== undefined,
              contacts: sent.contacts !== undefined,
              groups: sent.groups !== undefined,
              conditional_groups: sent.conditional_groups !== undefined,
            },
          };
        },
        (manager) => this.entries.findOne(user.id, 'scheduled', id, manager),
      );
    } catch (error) {
      // Rule 5.
      if (isRefusedStatement(error)) {
        this.logger.error({ err: error }, `Could not update scheduled message ${id}`);
        throw ApiError.refused(ErrorCode.CANNOT_UPDATE, 'the database refused the update.');
      }
      throw error;
    }
    if (!updated) {
      throw notFound();
    }
    if (sendAfter <= nowUtc()) {
      this.dispatch.notify();
    }
    return updated;
  }

  /**
   * post_scheduled's rules 5 to 10 and 12 on parsed parameters: what the message is made of, and the
   * medias to store with it. In an update's transaction (`manager`), the caller's entries are
   * read there, so that none can be deleted between the check and the write.
   */
  private async check(
    user: AuthenticatedUser,
    input: ScheduleInput,
    manager?: EntityManager,
  ): Promise<{ message: Omit<NewScheduled, 'mediaPaths' | 'userId'>; medias: UploadedFile[] }> {
    // Rule 3, its half that needs the caller's settings.
    checkTemplate(user, input.text);
    // Rule 5.
    if (input.mms && !isSettingOn(user.settings, 'mms')) {
      throw ApiError.invalid(
        'mms is set to true, but MMS are disabled in your settings (setting mms).',
      );
    }
    // Rule 6.
    const csvFile = input.numbersCsv.get();
    const csvNumbers = csvFile
      ? await parseNumbersCsv(createReadStream(csvFile.path), {
          defaultCountry: countryOf(user),
          maxRows: this.config.limits.csvRows,
        })
      : [];
    // Rule 7.
    const numbers = [...input.numbers.get(), ...csvNumbers];
    // Every contact, group and conditional group must be the caller's (RaspiSMS skipped others
    // silently): checked before rule 8 so that a list of foreign ids is refused rather than
    // counted.
    const contactIds = await this.ownIds(user.id, 'contacts', input.contactIds, manager);
    const groupIds = await this.ownIds(user.id, 'groups', input.groupIds, manager);
    const conditionalGroupIds = await this.ownIds(
      user.id,
      'conditional_groups',
      input.conditionalGroupIds,
      manager,
    );
    // Rule 8.
    if (
      numbers.length === 0 &&
      contactIds.length === 0 &&
      groupIds.length === 0 &&
      conditionalGroupIds.length === 0
    ) {
      throw ApiError.missing(
        'numbers, contacts, groups, conditional_groups : You must specify at least one valid ' +
          'number, contact, group or conditional_group.',
      );
    }
    // Rule 9.
    const { phoneId, phoneGroupId } = input.phone.get();
    // Rule 10.
    if (phoneId !== undefined && !(await this.scheduled.isOwnPhone(user.id, phoneId, manager))) {
      throw ApiError.invalid(`id_phone : ${phoneId} is not the id of one of your phones.`);
    }
    if (
      phoneGroupId !== undefined &&
      !(await this.scheduled.isOwnPhoneGroup(user.id, phoneGroupId, manager))
    ) {
      throw ApiError.invalid(
        `id_phone_group : ${phoneGroupId} is not the id of one of your phone groups.`,
      );
    }
    // Rule 12 (the files are stored by `create`).
    const medias = input.medias.get();
    return {
      message: {
        at: input.at,
        text: input.text,
        flash: input.flash,
        mms: input.mms,
        tag: input.tag,
        priority: input.priority,
        phoneId: phoneId ?? null,
        phoneGroupId: phoneGroupId ?? null,
        validity: input.validity,
        window: input.window,
        ...messageTiming(input.window, input.at, user.settings, this.config.timeZone),
        numbers,
        contactIds,
        groupIds,
        conditionalGroupIds,
      },
      medias,
    };
  }

  /** get_send_sms: one SMS to `to`, due now; `key` is its idempotency key, if it was sent one. */
  async sendNow(
    user: AuthenticatedUser,
    input: SendNowInput,
    key: Deferred<string | undefined>,
  ): Promise<number | Replayed> {
    const { to, text, priority, phoneId, validity, window } = input;
    // Rule 1's parameters were checked at the edge (scheduled.params.ts), but the template,
    // which needs the caller's settings; the phone's owner is the database's to tell.
    checkTemplate(user, text);
    if (phoneId !== undefined && !(await this.scheduled.isOwnPhone(user.id, phoneId))) {
      throw ApiError.refused(
        ErrorCode.CANNOT_CREATE,
        `id_phone : ${phoneId} is not the id of one of your phones.`,
      );
    }
    // Rule 2.
    const keyed = await keyedRequest('get_send_sms', key, input);
    const at = nowUtc();
    const timing = messageTiming(window, at, user.settings, this.config.timeZone);
    // Rule 3.
    return this.create(
      {
        userId: user.id,
        at,
        text,
        flash: false,
        mms: false,
        tag: null,
        priority,
        phoneId: phoneId ?? null,
        phoneGroupId: null,
        validity,
        window,
        ...timing,
        numbers: [{ number: to, data: '[]' }],
        contactIds: [],
        groupIds: [],
        conditionalGroupIds: [],
      },
      [],
      keyed,
      200,
    );
  }

  /**
   * post_scheduled_preview: the text as the dispatch would send it to one of the caller's
   * contacts, rendered by the same code (the text pool's threads, the contact read and turned
   * into template variables as the expansion does), and what it costs.
   */
  async preview(
    user: AuthenticatedUser,
    { text, contactId }: PreviewInput,
  ): Promise<{ text: string } & SmsMeasure> {
    // Rules 1 to 3 were checked at the edge (scheduled.params.ts). Rule 4.
    checkTemplate(user, text);
    // Rule 5.
    const contact = await this.scheduled.contactOf(user.id, contactId);
    if (contact === undefined) {
      throw ApiError.invalid(`id_contact : ${contactId} is not the id of one of your contacts.`);
    }
    // Rule 6.
    const gsm = isSettingOn(user.settings, 'force_gsm_alphabet');
    let outcome: TextOutcome;
    if (isSettingOn(user.settings, 'templating') && hasTemplateSyntax(text)) {
      const { data, metas } = contactRecipient(contact);
      const input: RenderInput = { data, metas, gsm };
      [outcome] = await this.pool.render(
        [text],
        [{ source: 0, input: JSON.stringify(input), withMedias: false }],
      );
    } else {
      outcome = transliterated(text, gsm, 'The text');
    }
    if ('reason' in outcome) {
      throw ApiError.invalid(
        `text : sent to the contact ${contactId}, it would fail: ${outcome.reason}`,
      );
    }
    // Rule 7.
    return { text: outcome.text, ...measureSms(outcome.text) };
  }

  /** delete_scheduled: the message's medias go with it, files included. */
  async remove(userId: number, { id }: { id?: number }): Promise<true> {
    const medias = id === undefined ? null : await this.scheduled.deleteOwn(userId, id);
    if (medias === null) {
      throw ApiError.notFound(
        ErrorCode.CANNOT_DELETE,
        `id : ${id ?? '""'} is not the id of one of your scheduled messages.`,
      );
    }
    await this.media.remove(medias.map((media) => media.path));
    return true;
  }

  /**
   * The one way a scheduled message is created (post_scheduled rules 12 to 14, get_send_sms):
   * medias moved into the media folder, then every row in one transaction, the idempotency
   * key's with them; on failure, or when the key's kept answer is given again instead, the
   * moved files are removed, so nothing is left behind. `status` is the HTTP status of success.
   */
  private async create(
    message: Omit<NewScheduled, 'mediaPaths' | 'keep'>,
    medias: readonly UploadedFile[],
    keyed: KeyedRequest | undefined,
    status: number,
  ): Promise<number | Replayed> {
    // Rule 12.
    const mediaPaths = await this.media.adopt(message.userId, medias);
    try {
      // Rule 14: with neither phone nor phone group, both stay null and the dispatch chooses
      // the phone when it sends.
      const outcome = await this.idempotency.once(message.userId, keyed, status, (keep) =>
        this.scheduled.create({ ...message, mediaPaths, keep }),
      );
      if (outcome instanceof Replayed) {
        await this.media.remove(mediaPaths);
      } else if (message.sendAfter <= nowUtc()) {
        this.dispatch.notify();
      }
      return outcome;
    } catch (error) {
      await this.media.remove(mediaPaths);
      // Rule 13. A statement the database refused is the creation failing; a connection that
      // cannot be had, or a bug, goes on to the exception filter (503 / 500).
      if (isRefusedStatement(error)) {
        this.logger.error(
          { err: error },
          `Could not create a scheduled message of user ${message.userId}`,
        );
        throw ApiError.refused(ErrorCode.CANNOT_CREATE);
      }
      throw error;
    }
  }

  /** The ids of a list parameter, each one of the caller's entries. */
  private async ownIds(
    userId: number,
    kind: Recipients,
    parsed: Deferred<number[]>,
    manager?: EntityManager,
  ): Promise<number[]> {
    const ids = parsed.get();
    const foreign =
      ids.length > 0 ? await this.scheduled.firstNotOwned(kind, userId, ids, manager) : undefined;
    if (foreign !== undefined) {
      throw ApiError.invalid(
        `${kind} : ${foreign} is not the id of one of your ${RECIPIENT_NOUNS[kind]}.`,
      );
    }
    return ids;
  }
}

function isRefusedStatement(error: unknown): boolean {
  // better-sqlite3 refuses some statements (an unknown table…) while preparing them, before
  // TypeORM wraps the error in a QueryFailedError. Its error class is recognised by name: the
  // native module keeps the class of the first JavaScript realm that loaded it, so instanceof
  // fails in any other realm (a vm context, a test runner's module registry).
  return (
    error instanceof QueryFailedError ||
    (typeof error === 'object' &&
      error !== null &&
      (error as { name?: unknown }).name === 'SqliteError')
  );
}

/**
 * With the setting `templating` on, a text that the dispatch would render as a template must
 * compile, with the dispatch's own compiler: a mistake is told now, where it was made, rather
 * than as a failed entry for every recipient.
 */
function checkTemplate(user: AuthenticatedUser, text: string): void {
  if (!isSettingOn(user.settings, 'templating') || !hasTemplateSyntax(text)) {
    return;
  }
  const { error } = compileTemplate(text);
  if (error !== null) {
    throw ApiError.invalid(`text : ${error}`);
  }
}
