import { ApiError } from '../common/errors/api-error';
import { fieldBase } from '../common/http/multipart';
import { UploadedFile } from '../common/http/request';
import { checkParsedJson } from '../common/params/check-params';
import { Deferred } from '../common/params/deferred';
import {
  asList,
  isAbsent,
  Params,
  parseBoolean,
  parseId,
  parseIdList,
  parseOptionalString,
  requiredMessage,
} from '../common/params/parse';
import { normalizePhoneNumber } from '../common/phone/phone-number';
import { MAX_TEXT_CHARACTERS } from '../common/text/message-text';
import { nowUtc, parseApiDatetime } from '../common/time/datetime';
import { MessagePriority } from './entities/message-priority';
import { WINDOW_SYNTAX, parseSendWindow } from '../common/time/send-window';
import { MAX_DATA_BYTES } from './numbers-csv';
import { RecipientNumber, StoredMessage } from './scheduled-message';

/** A message's tag, in Unicode code points: the `tag` columns are VARCHAR(1000). */
const MAX_TAG_CHARACTERS = 1000;

/**
 * post_scheduled's parameters (docs/api.md#post_scheduled). Rules 1 to 4 are parsed outright;
 * rule 5 reads the user's settings and rule 6 the CSV's content in the service, so what the
 * later rules read waits there (common/params/deferred.ts).
 */
export interface ScheduleInput {
  /** UTC; now when `at` was not given. */
  at: string;
  /** Whether `at` was given: two requests without it ask the same, whenever they come. */
  atSent: boolean;
  text: string;
  flash: boolean;
  mms: boolean;
  tag: string | null;
  /** Minutes after `at` within which it may still be sent; null: no limit. */
  validity: number | null;
  priority: MessagePriority;
  /** `none`, a window, or null for the user's `send_window` (docs/dispatch.md#send-windows). */
  window: string | null;
  /** Rule 6: the uploaded `numbers_csv`, whose content the service reads. */
  numbersCsv: Deferred<UploadedFile | undefined>;
  /** Rule 7: the valid numbers of `numbers`, normalised. */
  numbers: Deferred<RecipientNumber[]>;
  /** Rule 7: ids without repeats, not yet known to be the caller's. */
  contactIds: Deferred<number[]>;
  groupIds: Deferred<number[]>;
  conditionalGroupIds: Deferred<number[]>;
  /** Rule 9: at most one of them, not yet known to be the caller's (rule 10). */
  phone: Deferred<{ phoneId?: number; phoneGroupId?: number }>;
  /** Rule 12: the files to store as medias, none without mms. */
  medias: Deferred<UploadedFile[]>;
}

/** get_send_sms' parameters (docs/api.md#get_send_sms); `id_phone` is not yet known to be the caller's. */
export interface SendNowInput {
  to: string;
  text: string;
  priority: MessagePriority;
  phoneId?: number;
  /** Minutes after now within which it may still be sent; null: no limit. */
  validity: number | null;
  /** `none`, a window, or null for the user's `send_window`. */
  window: string | null;
}

/** post_scheduled_preview's parameters (docs/api.md#post_scheduled_preview). */
export interface PreviewInput {
  text: string;
  /** Not yet known to be the caller's. */
  contactId: number;
}

/**
 * post_update_scheduled's parameters (docs/api.md#post_update_scheduled): the message's id and
 * the fields sent, which the service lays over the stored message before post_scheduled's rules
 * read the result.
 */
export interface UpdateScheduledInput {
  id?: number;
  sent: Params;
}

/** The fields of post_scheduled an update may send. */
const UPDATABLE = [
  'at',
  'text',
  'id_phone',
  'id_phone_group',
  'flash',
  'mms',
  'tag',
  'validity',
  'priority',
  'window',
  'numbers',
  'contacts',
  'groups',
  'conditional_groups',
];

/** What an update cannot carry: medias stay those of the message, and a CSV is read once. */
const NOT_UPDATABLE = ['medias', 'numbers_csv'];

/**
 * `country` is the caller's default country, for national numbers. `storedAt` (UTC) is what an
 * absent `at` means for a message being updated; for a new one it is now.
 */
export function parseScheduleParams(
  params: Params,
  files: readonly UploadedFile[],
  country: string,
  timeZone: string,
  storedAt?: string,
): ScheduleInput {
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
  const atUtc = at === undefined ? (storedAt ?? nowUtc()) : parseApiDatetime(at, timeZone);
  if (atUtc === null) {
    throw ApiError.invalid(
      `at must be a date of format "YYYY-MM-DD HH:MM:SS" in the ${timeZone} ` +
        `time zone, got ${shown(at)}.`,
    );
  }
  // RaspiSMS orders no rule for the format of flash, mms and tag: they are checked with the
  // other scalar parameters, before rule 5 needs mms; so are smsgw's validity, priority and
  // window.
  const flash = parseBoolean(params.flash, 'flash');
  const mms = parseBoolean(params.mms, 'mms');
  const tag = tagParameter(params.tag);
  const validity = validityParameter(params.validity);
  const priority = priorityParameter(params.priority);
  const window = windowParameter(params.window);
  return {
    at: atUtc,
    atSent: at !== undefined,
    text,
    flash,
    mms,
    tag,
    validity,
    priority,
    window,
    numbersCsv: Deferred.parse(() => numbersCsvFile(params, files)),
    numbers: Deferred.parse(() => readNumbers(params.numbers, country)),
    contactIds: Deferred.parse(() => uniqueIds(params.contacts, 'contacts')),
    groupIds: Deferred.parse(() => uniqueIds(params.groups, 'groups')),
    conditionalGroupIds: Deferred.parse(() =>
      uniqueIds(params.conditional_groups, 'conditional_groups'),
    ),
    phone: Deferred.parse(() => phoneOrGroup(params)),
    medias: Deferred.parse(() => mediaFiles(params, files, mms)),
  };
}

/** `country` is the caller's default country, for national numbers. */
export function parseSendNowParams(params: Params, country: string): SendNowInput {
  // Rule 1.
  const to = normalizePhoneNumber(params.to, country);
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
  const validity = validityParameter(params.validity);
  const priority = priorityParameter(params.priority);
  const window = windowParameter(params.window);
  return { to, text, priority, phoneId: parseId(params.id_phone, 'id_phone'), validity, window };
}

/** post_scheduled_preview's rules 1 to 3; the template and the contact are the service's. */
export function parsePreviewParams(params: Params): PreviewInput {
  // Rule 1.
  const missing = ['text', 'id_contact'].filter((name) => isAbsent(params[name]));
  if (missing.length > 0) {
    throw ApiError.missing(`${missing.join(', ')} : ${requiredMessage(missing)}`);
  }
  // Rule 2: post_scheduled's rules 2 and 3, as the text would be sent.
  const text = textParameter(params.text);
  checkTextLength(text);
  // Rule 3 (present, as rule 1 checked).
  const contactId = parseId(params.id_contact, 'id_contact') ?? 0;
  return { text, contactId };
}

/**
 * post_update_scheduled: the id (rule 1), then `medias` and `numbers_csv` refused (rule 2). The
 * fields sent are read once laid over the stored message (`parseMergedScheduleParams`).
 */
export function parseUpdateScheduledParams(
  params: Params,
  files: readonly UploadedFile[],
): UpdateScheduledInput {
  const id = parseId(params.id, 'id');
  const refused = NOT_UPDATABLE.filter(
    (name) => !isAbsent(params[name]) || files.some((file) => fieldBase(file.fieldname) === name),
  );
  if (refused.length > 0) {
    throw ApiError.invalid(
      `${refused.join(', ')} : an update cannot change the medias of a message nor add ` +
        'numbers from a CSV; delete the message and schedule it again.',
    );
  }
  return {
    id,
    sent: Object.fromEntries(
      UPDATABLE.filter((name) => params[name] !== undefined).map((name) => [name, params[name]]),
    ),
  };
}

/**
 * post_scheduled's parameters read from `stored` with the fields `sent` laid over it: a list sent
 * replaces the stored one, an empty value empties it, and `at` is the stored one (UTC) unless
 * sent. Rule 9 holds for the result: a phone kept from the stored message and a phone group
 * sent (or the reverse) is refused, telling how to switch, rather than one silently dropped.
 */
export function parseMergedScheduleParams(
  stored: StoredMessage,
  sent: Params,
  country: string,
  timeZone: string,
): ScheduleInput {
  const merged: Params = {
    text: stored.text,
    flash: stored.flash,
    mms: stored.mms,
    tag: stored.tag ?? undefined,
    validity: stored.validity ?? undefined,
    priority: stored.priority,
    window: stored.window ?? undefined,
    id_phone: stored.phoneId ?? undefined,
    id_phone_group: stored.phoneGroupId ?? undefined,
    numbers: stored.numbers,
    contacts: stored.contactIds,
    groups: stored.groupIds,
    conditional_groups: stored.conditionalGroupIds,
    ...sent,
  };
  return {
    ...parseScheduleParams(merged, [], country, timeZone, stored.at),
    phone: Deferred.parse(() =>
      phoneOrGroup(merged, (phoneId, phoneGroupId) => switchMessage(sent, phoneId, phoneGroupId)),
    ),
  };
}

/** The `id` of delete_scheduled and get_scheduled; absent or empty is no message of the caller's, told as such. */
export function parseRemoveParams(params: Params): { id?: number } {
  return { id: parseId(params.id, 'id') };
}

function numbersCsvFile(params: Params, files: readonly UploadedFile[]): UploadedFile | undefined {
  const csvFiles = files.filter((file) => fieldBase(file.fieldname) === 'numbers_csv');
  if (csvFiles.length === 0) {
    if (!isAbsent(params.numbers_csv)) {
      throw ApiError.invalid(
        'csv : numbers_csv must be a file sent in a multipart/form-data body.',
      );
    }
    return undefined;
  }
  if (csvFiles.length > 1) {
    throw ApiError.invalid('csv : send one numbers_csv file, not several.');
  }
  return csvFiles[0];
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

function uniqueIds(value: unknown, name: string): number[] {
  return [...new Set(parseIdList(value, name))];
}

const BOTH_PHONE_AND_GROUP =
  'id_phone, id_phone_group : You must specify at most one of id_phone or id_phone_group, not both.';

/** Rule 9; `conflict` words the refusal of a phone and a phone group both set. */
function phoneOrGroup(
  params: Params,
  conflict: (phoneId: number, phoneGroupId: number) => string = () => BOTH_PHONE_AND_GROUP,
): { phoneId?: number; phoneGroupId?: number } {
  const phoneId = parseId(params.id_phone, 'id_phone');
  const phoneGroupId = parseId(params.id_phone_group, 'id_phone_group');
  if (phoneId !== undefined && phoneGroupId !== undefined) {
    throw ApiError.invalid(conflict(phoneId, phoneGroupId));
  }
  return { phoneId, phoneGroupId };
}

/**
 * Rule 9 on an updated message: when one of the two was sent and the other is the stored one,
 * the refusal says which to empty, since sending the new choice alone looks like enough.
 */
function switchMessage(sent: Params, phoneId: number, phoneGroupId: number): string {
  const phoneSent = sent.id_phone !== undefined;
  const groupSent = sent.id_phone_group !== undefined;
  if (groupSent && !phoneSent) {
    return (
      `id_phone : this message is sent through the phone ${phoneId}, and a message names a ` +
      `phone or a phone group, not both; send id_phone= (empty) with ` +
      `id_phone_group=${phoneGroupId} to send it through that phone group instead.`
    );
  }
  if (phoneSent && !groupSent) {
    return (
      `id_phone : this message is sent through the phone group ${phoneGroupId}, and a message ` +
      `names a phone or a phone group, not both; send id_phone_group= (empty) with ` +
      `id_phone=${phoneId} to send it through that phone instead.`
    );
  }
  return BOTH_PHONE_AND_GROUP;
}

/** Rule 12: medias are used only when mms is true. */
function mediaFiles(params: Params, files: readonly UploadedFile[], mms: boolean): UploadedFile[] {
  if (mms && !isAbsent(params.medias)) {
    throw ApiError.invalid('medias must be files sent in a multipart/form-data body.');
  }
  return mms ? files.filter((file) => fieldBase(file.fieldname) === 'medias') : [];
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

/** The longest validity, in minutes: 7 days. */
export const MAX_VALIDITY_MINUTES = 10_080;

/** Rule 4: whole minutes from 1 to a week; absent or empty is no limit. */
function validityParameter(value: unknown): number | null {
  if (isAbsent(value)) {
    return null;
  }
  const text = typeof value === 'number' ? String(value) : value;
  if (typeof text === 'string' && /^\d{1,5}$/.test(text)) {
    const minutes = Number(text);
    if (minutes >= 1 && minutes <= MAX_VALIDITY_MINUTES) {
      return minutes;
    }
  }
  throw ApiError.invalid(
    `validity must be a whole number of minutes from 1 to ${MAX_VALIDITY_MINUTES} (7 days), ` +
      `counted from the message's at, or left out for no limit; got ${shown(value)}.`,
  );
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** `high` or `normal` (any case, trimmed); absent or empty: normal. */
function priorityParameter(value: unknown): MessagePriority {
  if (isAbsent(value)) {
    return 'normal';
  }
  const given = typeof value === 'string' ? value.trim().toLowerCase() : undefined;
  if (given === 'high' || given === 'normal') {
    return given;
  }
  throw ApiError.invalid(`priority must be high or normal, got ${shown(value)}.`);
}

/**
 * `none`, or a window (docs/dispatch.md#send-windows) as given, trimmed; absent or empty: null,
 * the user's `send_window`.
 */
function windowParameter(value: unknown): string | null {
  if (isAbsent(value)) {
    return null;
  }
  const given = typeof value === 'string' ? value.trim() : null;
  if (given?.toLowerCase() === 'none') {
    return 'none';
  }
  const parsed = given === null ? null : parseSendWindow(given);
  if (parsed && !('problem' in parsed)) {
    return given;
  }
  throw ApiError.invalid(
    `window must be none (any time), ${WINDOW_SYNTAX}, or left out for your send_window ` +
      `setting${parsed ? `: ${parsed.problem}` : ''}; got ${shown(value)}.`,
  );
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
