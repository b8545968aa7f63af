import { Injectable, Logger } from '@nestjs/common';
import { createReadStream } from 'node:fs';
import { QueryFailedError } from 'typeorm';
import { DispatchSignal } from '../common/dispatch-signal';
import { ApiError, ErrorCode } from '../common/errors/api-error';
import { checkParsedJson } from '../common/params/check-params';
import { fieldBase } from '../common/http/multipart';
import { AuthenticatedUser, UploadedFile } from '../common/http/request';
import {
  asList,
  isAbsent,
  Params,
  parseBoolean,
  parseId,
  parseIdList,
  parseOptionalString,
} from '../common/params/parse';
import { normalizePhoneNumber } from '../common/phone/phone-number';
import { MAX_TEXT_CHARACTERS } from '../common/text/message-text';
import { nowUtc, parseApiDatetime } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { MediaStorage } from '../media/media-storage';
import { isSettingOn } from '../users/settings';
import { MAX_DATA_BYTES, parseNumbersCsv } from './numbers-csv';
import {
  NewScheduled,
  RecipientNumber,
  Recipients,
  ScheduledRepository,
} from './scheduled.repository';

/** A message's tag, in Unicode code points: the `tag` columns are VARCHAR(1000). */
const MAX_TAG_CHARACTERS = 1000;

const RECIPIENT_NOUNS: Record<Recipients, string> = {
  contacts: 'contacts',
  groups: 'groups',
  conditional_groups: 'conditional groups',
};

/** post_scheduled, get_send_sms and delete_scheduled (docs/api.md). */
@Injectable()
export class ScheduledService {
  private readonly logger = new Logger(ScheduledService.name);

  constructor(
    private readonly scheduled: ScheduledRepository,
    private readonly media: MediaStorage,
    private readonly config: AppConfig,
    private readonly dispatch: DispatchSignal,
  ) {}

  /** post_scheduled: `files` are the request's uploads (`numbers_csv`, `medias`). */
  async schedule(
    user: AuthenticatedUser,
    params: Params,
    files: readonly UploadedFile[],
  ): Promise<number> {
    const country = user.settings.default_phone_country ?? '';
    // Rule 1.
    if (isAbsent(params.text)) {
      throw ApiError.missing('text : the text of the message is required.');
    }
    const at = isAbsent(params.at) ? undefined : params.at;
    // Rule 2.
    if (at !== undefined && typeof at !== 'string') {
      throw ApiError.invalid('at must be a string.');
    }
    const text = textParameter(params.text);
    // Rule 3.
    checkTextLength(text);
    // Rule 4.
    const atUtc = at === undefined ? nowUtc() : parseApiDatetime(at, this.config.timeZone);
    if (atUtc === null) {
      throw ApiError.invalid(
        `at must be a date of format "YYYY-MM-DD HH:MM:SS" in the ${this.config.timeZone} ` +
          `time zone, got ${shown(at)}.`,
      );
    }
    // RaspiSMS orders no rule for the format of flash, mms and tag: they are checked with the
    // other scalar parameters, before rule 5 needs mms.
    const flash = parseBoolean(params.flash, 'flash');
    const mms = parseBoolean(params.mms, 'mms');
    const tag = tagParameter(params.tag);
    // Rule 5.
    if (mms && !isSettingOn(user.settings, 'mms')) {
      throw ApiError.invalid(
        'mms is set to true, but MMS are disabled in your settings (setting mms).',
      );
    }
    // Rule 6.
    const csvNumbers = await this.readNumbersCsv(params, files, country);
    // Rule 7.
    const numbers = [...readNumbers(params.numbers, country), ...csvNumbers];
    // Every contact, group and conditional group must be the caller's (RaspiSMS skipped others
    // silently): checked before rule 8 so that a list of foreign ids is refused rather than
    // counted.
    const contactIds = await this.ownIds(user.id, 'contacts', params.contacts);
    const groupIds = await this.ownIds(user.id, 'groups', params.groups);
    const conditionalGroupIds = await this.ownIds(
      user.id,
      'conditional_groups',
      params.conditional_groups,
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
    const phoneId = parseId(params.id_phone, 'id_phone');
    const phoneGroupId = parseId(params.id_phone_group, 'id_phone_group');
    if (phoneId !== undefined && phoneGroupId !== undefined) {
      throw ApiError.invalid(
        'id_phone, id_phone_group : You must specify at most one of id_phone or ' +
          'id_phone_group, not both.',
      );
    }
    // Rule 10.
    if (phoneId !== undefined && !(await this.scheduled.isOwnPhone(user.id, phoneId))) {
      throw ApiError.invalid(`id_phone : ${phoneId} is not the id of one of your phones.`);
    }
    if (
      phoneGroupId !== undefined &&
      !(await this.scheduled.isOwnPhoneGroup(user.id, phoneGroupId))
    ) {
      throw ApiError.invalid(
        `id_phone_group : ${phoneGroupId} is not the id of one of your phone groups.`,
      );
    }
    // Rule 11 (the files are stored by `create`): medias are used only when mms is true.
    if (mms && !isAbsent(params.medias)) {
      throw ApiError.invalid('medias must be files sent in a multipart/form-data body.');
    }
    const medias = mms ? files.filter((file) => fieldBase(file.fieldname) === 'medias') : [];
    return this.create(
      {
        userId: user.id,
        at: atUtc,
        text,
        flash,
        mms,
        tag,
        phoneId: phoneId ?? null,
        phoneGroupId: phoneGroupId ?? null,
        numbers,
        contactIds,
        groupIds,
        conditionalGroupIds,
      },
      medias,
    );
  }

  /** get_send_sms: one SMS to `to`, due now. */
  async sendNow(user: AuthenticatedUser, params: Params): Promise<number> {
    // Rule 1.
    const to = normalizePhoneNumber(params.to, user.settings.default_phone_country ?? '');
    const missing: string[] = [];
    if (to === null) {
      missing.push(
        isAbsent(params.to) ? 'to' : `to (${shown(params.to)} is not a valid phone number)`,
      );
    }
    if (isAbsent(params.text)) {
      missing.push('text');
    }
    if (to === null || missing.length > 0) {
      throw ApiError.missing(`${missing.join(', ')}.`);
    }
    // The length limit of post_scheduled: the column holds no more.
    const text = textParameter(params.text);
    checkTextLength(text);
    const phoneId = parseId(params.id_phone, 'id_phone');
    if (phoneId !== undefined && !(await this.scheduled.isOwnPhone(user.id, phoneId))) {
      throw ApiError.refused(
        ErrorCode.CANNOT_CREATE,
        `id_phone : ${phoneId} is not the id of one of your phones.`,
      );
    }
    // Rule 2.
    return this.create(
      {
        userId: user.id,
        at: nowUtc(),
        text,
        flash: false,
        mms: false,
        tag: null,
        phoneId: phoneId ?? null,
        phoneGroupId: null,
        numbers: [{ number: to, data: '[]' }],
        contactIds: [],
        groupIds: [],
        conditionalGroupIds: [],
      },
      [],
    );
  }

  /** delete_scheduled: the message's medias go with it, files included. */
  async remove(userId: number, params: Params): Promise<true> {
    const id = parseId(params.id, 'id');
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
   * The one way a scheduled message is created (post_scheduled rules 11 to 13, get_send_sms):
   * medias moved into the media folder, then every row in one transaction; on failure the
   * moved files are removed, so nothing is left behind.
   */
  private async create(
    message: Omit<NewScheduled, 'mediaPaths'>,
    medias: readonly UploadedFile[],
  ): Promise<number> {
    // Rule 11.
    const mediaPaths = await this.media.adopt(message.userId, medias);
    try {
      // Rule 13: with neither phone nor phone group, both stay null and the dispatch chooses
      // the phone when it sends.
      const id = await this.scheduled.create({ ...message, mediaPaths });
      if (message.at <= nowUtc()) {
        this.dispatch.notify();
      }
      return id;
    } catch (error) {
      await this.media.remove(mediaPaths);
      // Rule 12. A statement the database refused is the creation failing; a connection that
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

  private async readNumbersCsv(
    params: Params,
    files: readonly UploadedFile[],
    country: string,
  ): Promise<RecipientNumber[]> {
    const csvFiles = files.filter((file) => fieldBase(file.fieldname) === 'numbers_csv');
    if (csvFiles.length === 0) {
      if (!isAbsent(params.numbers_csv)) {
        throw ApiError.invalid(
          'csv : numbers_csv must be a file sent in a multipart/form-data body.',
        );
      }
      return [];
    }
    if (csvFiles.length > 1) {
      throw ApiError.invalid('csv : send one numbers_csv file, not several.');
    }
    return parseNumbersCsv(createReadStream(csvFiles[0].path), {
      defaultCountry: country,
      maxRows: this.config.limits.csvRows,
    });
  }

  /** The ids of a list parameter, without repeats, each one of the caller's entries. */
  private async ownIds(userId: number, kind: Recipients, value: unknown): Promise<number[]> {
    const ids = [...new Set(parseIdList(value, kind))];
    const foreign =
      ids.length > 0 ? await this.scheduled.firstNotOwned(kind, userId, ids) : undefined;
    if (foreign !== undefined) {
      throw ApiError.invalid(
        `${kind} : ${foreign} is not the id of one of your ${RECIPIENT_NOUNS[kind]}.`,
      );
    }
    return ids;
  }
}

/**
 * Rule 7: each entry is a number, or `{number, data}`. Invalid numbers are dropped silently;
 * the data of a kept number must be JSON.
 */
function readNumbers(value: unknown, country: string): RecipientNumber[] {
  const numbers: RecipientNumber[] = [];
  asList(value).forEach((item, index) => {
    const entry = isRecord(item) ? item : { number: item };
    const raw = typeof entry.number === 'number' ? String(entry.number) : entry.number;
    const number = normalizePhoneNumber(raw, country);
    if (number !== null) {
      numbers.push({ number, data: dataParameter(entry.data, `numbers[${index}][data]`) });
    }
  });
  return numbers;
}

/**
 * A number's template data: a string of JSON other than `null`, `[]` when left out. Data given
 * as a structure (a JSON body's object, or `numbers[0][data][firstname]=…` in a form) is taken
 * as the JSON it encodes to.
 */
function dataParameter(value: unknown, name: string): string {
  if (isAbsent(value)) {
    return '[]';
  }
  let data: string;
  if (typeof value === 'string') {
    const parsed = parseJson(value);
    if (parsed === undefined || parsed === null) {
      throw ApiError.invalid(
        `${name} must be valid JSON other than null, or left out, got ${shown(value)}.`,
      );
    }
    checkParsedJson(parsed, name);
    data = value;
  } else {
    data = JSON.stringify(value);
  }
  if (Buffer.byteLength(data) > MAX_DATA_BYTES) {
    throw ApiError.invalid(`${name} must be at most ${MAX_DATA_BYTES} bytes long.`);
  }
  return data;
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

/** The value of JSON text, undefined when it is not JSON. */
function parseJson(value: string): unknown {
  try {
    return JSON.parse(value) as unknown;
  } catch {
    return undefined;
  }
}

/** Rule 2: `text` must be a string; a JSON number or a list is refused, not converted. */
function textParameter(value: unknown): string {
  if (typeof value !== 'string') {
    throw ApiError.invalid('text must be a string.');
  }
  return value;
}

function checkTextLength(text: string): void {
  const length = [...text].length;
  if (length > MAX_TEXT_CHARACTERS) {
    throw ApiError.invalid(
      `text must be at most ${MAX_TEXT_CHARACTERS} characters long, got ${length}.`,
    );
  }
}

/** An empty tag is no tag. */
function tagParameter(value: unknown): string | null {
  const tag = parseOptionalString(value, 'tag');
  if (tag === undefined || tag === '') {
    return null;
  }
  if ([...tag].length > MAX_TAG_CHARACTERS) {
    throw ApiError.invalid(`tag must be at most ${MAX_TAG_CHARACTERS} characters long.`);
  }
  return tag;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A parameter's value quoted for a message, shortened. */
function shown(value: unknown): string {
  if (typeof value === 'string') {
    return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  }
  if (Array.isArray(value)) {
    return 'a list';
  }
  return typeof value === 'object' && value !== null ? 'an object' : JSON.stringify(value);
}
