import { AdapterData } from '../adapters/adapter';
import { ApiError } from '../common/errors/api-error';
import { checkParsedJson } from '../common/params/check-params';
import { Deferred } from '../common/params/deferred';
import { asList, isAbsent, Params, parseId } from '../common/params/parse';
import { isValidStartpoint } from '../common/limits/startpoint';
import { phpIntval, toBool } from '../text/php-values';

/** `phone.name` is VARCHAR(150). */
export const MAX_NAME_LENGTH = 150;
const MAX_INT = 2_147_483_647;
/** A phone's rate bounds, in messages per second. */
export const MIN_RATE = 0.001;
export const MAX_RATE = 1000;
/** `phone.adapter_data` is a TEXT column: 65,535 bytes on MySQL/MariaDB. */
const MAX_ADAPTER_DATA_BYTES = 65_535;
/**
 * Limits a phone may have. Each is one COUNT of the status check's single query, and a few
 * windows already say everything (a day, a week, a month): thousands would only make that query
 * exceed the engines' limits on columns and parameters.
 */
export const MAX_LIMITS = 100;

export interface LimitInput {
  volume: number;
  startpoint: string;
}

/** The statuses post_change_phone_status sets. */
const FORCED_STATUSES = ['available', 'disabled'] as const;
export type ForcedStatus = (typeof FORCED_STATUSES)[number];

/**
 * post_phone's parameters (docs/api.md#post_phone). Rule 1 is parsed outright; rule 2 asks the
 * database whether the name is taken, so the limits of rule 3 wait (common/params/deferred.ts).
 * The adapter is still a name: rules 4 to 6 need the adapter's descriptor and the user's country.
 */
export interface CreatePhoneInput {
  name: string;
  adapter: string;
  priority: number;
  /** Messages per second at most; null: unpaced. */
  rate: number | null;
  /** The fields sent, not yet checked against the adapter's descriptor. */
  adapterData: Record<string, unknown>;
  limits: Deferred<LimitInput[]>;
}

/** The fields post_update_phone changes; one not sent is undefined and keeps its stored value. */
export interface PhoneChangesInput {
  name?: string;
  adapter?: string;
  priority?: number;
  /** Null removes the pacing. */
  rate?: number | null;
  adapterData?: Record<string, unknown>;
}

/**
 * post_update_phone's parameters (docs/api.md#post_update_phone). Only the id is parsed
 * outright: rule 1 looks the phone up before rule 2 reads the changes, and rule 3 asks whether
 * the new name is taken before rule 4 reads the limits.
 */
export interface UpdatePhoneInput {
  id: number;
  /** Rule 2: at least one change, limits included. */
  changes: Deferred<PhoneChangesInput>;
  /** Rule 4: the limits replacing the phone's; undefined when `limits` was not sent. */
  limits: Deferred<LimitInput[] | undefined>;
}

/** delete_phone's and post_update_phone_status' parameter: the phone's id. */
export interface PhoneIdInput {
  id: number;
}

/** post_change_phone_status' parameters (docs/api.md#post_change_phone_status). */
export interface ForceStatusInput {
  id: number;
  status: ForcedStatus;
}

/** `adapterIds` lists the adapters, for the message of a missing adapter. */
export function parseCreatePhoneParams(params: Params, adapterIds: string): CreatePhoneInput {
  // Rule 1.
  const name = parseName(params.name);
  if (name === undefined) {
    throw ApiError.missing("name is required: the phone's name, unique among your phones.");
  }
  const adapter = parseAdapterName(params.adapter);
  if (adapter === undefined) {
    throw ApiError.missing(`adapter is required: one of ${adapterIds}.`);
  }
  return {
    name,
    adapter,
    priority: parsePriority(params.priority) ?? 0,
    rate: parseRate(params.rate) ?? null,
    adapterData: parseAdapterData(params.adapter_data) ?? {},
    limits: Deferred.parse(() => cleanLimits(params.limits)),
  };
}

export function parseUpdatePhoneParams(params: Params): UpdatePhoneInput {
  const id = requiredId(params.id);
  // An empty `limits=` is sent: it removes every limit.
  const limitsSent = params.limits !== undefined && params.limits !== null;
  return {
    id,
    changes: Deferred.parse(() => {
      const changes: PhoneChangesInput = {
        name: parseName(params.name),
        adapter: parseAdapterName(params.adapter),
        priority: parsePriority(params.priority),
        rate: parseRate(params.rate),
        adapterData: parseAdapterData(params.adapter_data),
      };
      if (Object.values(changes).every((value) => value === undefined) && !limitsSent) {
        throw ApiError.missing(
          'give at least one of name, adapter, adapter_data, priority, rate or limits to change.',
        );
      }
      return changes;
    }),
    limits: Deferred.parse(() => (limitsSent ? cleanLimits(params.limits) : undefined)),
  };
}

export function parsePhoneIdParams(params: Params): PhoneIdInput {
  return { id: requiredId(params.id) };
}

export function parseForceStatusParams(params: Params): ForceStatusInput {
  // Rule 1, before the id is read.
  const status = params.status;
  if (!FORCED_STATUSES.includes(status as ForcedStatus)) {
    throw ApiError.invalid('status must be "available" or "disabled".');
  }
  return { id: requiredId(params.id), status: status as ForcedStatus };
}

function requiredId(value: unknown): number {
  const id = parseId(value, 'id');
  if (id === undefined) {
    throw ApiError.missing('id is required: the id of one of your phones.');
  }
  return id;
}

/** A phone name, when given: text of 1 to 150 characters that is not only blanks. */
export function parseName(value: unknown): string | undefined {
  if (isAbsent(value)) {
    return undefined;
  }
  const name = typeof value === 'number' && Number.isFinite(value) ? String(value) : value;
  if (typeof name !== 'string') {
    throw ApiError.invalid('name must be a text.');
  }
  if (name.trim() === '') {
    return undefined;
  }
  if ([...name].length > MAX_NAME_LENGTH) {
    throw ApiError.invalid(`name must be at most ${MAX_NAME_LENGTH} characters long.`);
  }
  return name;
}

/** An adapter's id or RaspiSMS alias, when given. */
export function parseAdapterName(value: unknown): string | undefined {
  if (isAbsent(value)) {
    return undefined;
  }
  if (typeof value !== 'string') {
    throw ApiError.invalid('adapter must be the id or RaspiSMS name of an adapter.');
  }
  return value.trim() === '' ? undefined : value.trim();
}

/**
 * A priority, when given: an integer; negative values become 0, as in RaspiSMS.
 * Anything that is not an integer is refused rather than read as 0.
 */
export function parsePriority(value: unknown): number | undefined {
  if (isAbsent(value)) {
    return undefined;
  }
  let priority: number | undefined;
  if (typeof value === 'number' && Number.isInteger(value)) {
    priority = value;
  } else if (typeof value === 'string' && /^\s*[+-]?\d+\s*$/.test(value)) {
    priority = Number(value);
  }
  if (priority === undefined || priority > MAX_INT) {
    throw ApiError.invalid(`priority must be an integer from 0 to ${MAX_INT}.`);
  }
  return Math.max(priority, 0);
}

/**
 * A rate, when given: messages per second, a decimal number from MIN_RATE to MAX_RATE. Empty (or
 * JSON null) is null, which removes the pacing: unlike the other fields, where empty means not
 * sent, a rate has to be removable.
 */
export function parseRate(value: unknown): number | null | undefined {
  if (value === undefined) {
    return undefined;
  }
  if (value === null || (typeof value === 'string' && value.trim() === '')) {
    return null;
  }
  let rate = NaN;
  if (typeof value === 'number') {
    rate = value;
  } else if (typeof value === 'string' && /^\s*\+?(?:\d+(?:\.\d*)?|\.\d+)\s*$/.test(value)) {
    rate = Number(value);
  }
  if (!(rate >= MIN_RATE && rate <= MAX_RATE)) {
    throw ApiError.invalid(
      `rate must be a number of messages per second between ${MIN_RATE} and ${MAX_RATE}, ` +
        'such as 0.5 or 50; leave it empty for no pacing.',
    );
  }
  return rate;
}

/**
 * The adapter data as sent: an object (bracket form `adapter_data[login]=…` or a JSON object), a
 * JSON object in a string, or nothing. An empty object, `[]` or `""` count as not sent, as in
 * RaspiSMS where an empty map means "no data" on creation and "keep the stored data" on update.
 */
export function parseAdapterData(value: unknown): Record<string, unknown> | undefined {
  let data = value;
  if (typeof data === 'string') {
    if (data.trim() === '') {
      return undefined;
    }
    try {
      data = JSON.parse(data);
    } catch {
      throw ApiError.invalid('adapter_data must be an object, or a JSON object in a string.');
    }
    checkParsedJson(data, 'adapter_data');
  }
  if (data === undefined || data === null || (Array.isArray(data) && data.length === 0)) {
    return undefined;
  }
  if (typeof data !== 'object' || Array.isArray(data)) {
    throw ApiError.invalid('adapter_data must be an object, or a JSON object in a string.');
  }
  return Object.keys(data).length === 0 ? undefined : (data as Record<string, unknown>);
}

/** The data checked (adapters/adapter-data.check.ts) must fit the column as sent. */
export function checkDataSize(data: AdapterData): void {
  if (Buffer.byteLength(JSON.stringify(data), 'utf8') > MAX_ADAPTER_DATA_BYTES) {
    throw ApiError.invalid(`adapter_data must take at most ${MAX_ADAPTER_DATA_BYTES} bytes.`);
  }
}

/**
 * The column as it will be stored, secret fields encrypted (which makes them longer), must fit
 * the column as the data sent did.
 */
export function checkStoredSize(stored: string): void {
  if (Buffer.byteLength(stored, 'utf8') > MAX_ADAPTER_DATA_BYTES) {
    throw ApiError.invalid(
      `adapter_data must take at most ${MAX_ADAPTER_DATA_BYTES} bytes once its secret fields ` +
        'are encrypted: shorten them.',
    );
  }
}

/**
 * post_phone rule 3 (docs/api.md#post_phone), as RaspiSMS cleans limits: an element that is not an
 * object, whose `startpoint` or `volume` is missing or PHP-falsy (`""`, `"0"`, 0), or whose
 * startpoint is not a relative date PHP understands is dropped silently; the volume is PHP's
 * `(int)` raised to 1. More than MAX_LIMITS valid limits are refused.
 */
export function cleanLimits(value: unknown): LimitInput[] {
  const limits: LimitInput[] = [];
  for (const element of asList(value)) {
    if (typeof element !== 'object' || element === null || Array.isArray(element)) {
      continue;
    }
    const { startpoint, volume } = element as Record<string, unknown>;
    if (
      typeof startpoint !== 'string' ||
      (typeof volume !== 'string' && typeof volume !== 'number' && typeof volume !== 'boolean')
    ) {
      continue;
    }
    // PHP's truth, which RaspiSMS tests them with.
    if (!toBool(startpoint) || !toBool(volume) || !isValidStartpoint(startpoint)) {
      continue;
    }
    limits.push({ startpoint, volume: Math.max(phpIntval(volume), 1) });
  }
  if (limits.length > MAX_LIMITS) {
    throw ApiError.invalid(`limits : a phone may have at most ${MAX_LIMITS} limits.`);
  }
  return limits;
}
