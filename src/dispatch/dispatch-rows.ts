import { Refusal, readRefusals } from '../common/failover/refusals';

/** The rows the dispatch's stages read and write, shared by their repositories and services. */

/**
 * What a recipient's outbox row says, as the expansion writes it and the claims read it; its
 * medias and state aside, which each side holds in its own form.
 */
export interface OutboxRecipient {
  id_user: number;
  originating_scheduled: number;
  id_phone: number | null;
  id_phone_group: number | null;
  destination: string;
  text: string;
  flash: number;
  mms: number;
  tag: string | null;
  /** UTC: when its message's validity ends; null: never (docs/dispatch.md#validity). */
  expires_at: string | null;
  /** 1: high, claimed before every normal (0) row waiting (docs/dispatch.md#priority). */
  priority: number;
  /** Its message's send window, as stored (docs/dispatch.md#send-windows); null: any time. */
  effective_window: string | null;
}

/** An outbox row as the sender claims it, and as the dead-worker sweep reads it. */
export interface OutboxRow extends OutboxRecipient {
  id: number;
  /** Its medias' ids, parsed from the stored JSON when the row is read (none: empty). */
  media_ids: number[];
  state: string;
  attempts: number;
  error: string | null;
  /** The segments its claim reserved of its user's quota; null without a quota. */
  quota_segments: number | null;
  /** With `pace_slot`: the paced phone whose sending slot the row was given. */
  via_phone: number | null;
  /** The sending slot (epoch ms) the row was given on `via_phone`; null: none. */
  pace_slot: number | string | null;
  /** The phones that refused it for a reason of their own, first first (docs/dispatch.md#failover). */
  refusals: Refusal[];
}

/** An OutboxRow as the database returns it, before its media ids and refusals are parsed. */
export type StoredOutboxRow = Omit<OutboxRow, 'media_ids' | 'refusals'> & {
  media_ids: string | null;
  refusals: string | null;
};

/** The columns of what a recipient's outbox row says, as the expansion writes them and reads. */
export const OUTBOX_RECIPIENT_COLUMNS = [
  'id_user',
  'originating_scheduled',
  'id_phone',
  'id_phone_group',
  'destination',
  'text',
  'flash',
  'mms',
  'tag',
  'expires_at',
  'priority',
  'effective_window',
  'media_ids',
  'state',
] as const;

/** The columns of an OutboxRow. */
export const OUTBOX_ROW_COLUMNS = [
  'id',
  ...OUTBOX_RECIPIENT_COLUMNS,
  'attempts',
  'error',
  'quota_segments',
  'via_phone',
  'pace_slot',
  'refusals',
] as const;

/**
 * The row with its media ids and refusals parsed: the one place they are read as JSON. Written
 * out field by field, as the dispatch's other per-recipient objects: on Node 20, spreading an
 * object of a dozen fields and setting more costs about 5 µs and 1 to 2 KB of garbage per object
 * against a fraction of a microsecond, which a 50,000-recipient campaign pays several times per
 * recipient (bench/RESULTS.md, "Campaigns and footprint").
 */
export function outboxRow(stored: StoredOutboxRow): OutboxRow {
  return {
    id: stored.id,
    id_user: stored.id_user,
    originating_scheduled: stored.originating_scheduled,
    id_phone: stored.id_phone,
    id_phone_group: stored.id_phone_group,
    destination: stored.destination,
    text: stored.text,
    flash: stored.flash,
    mms: stored.mms,
    tag: stored.tag,
    expires_at: stored.expires_at,
    priority: stored.priority,
    effective_window: stored.effective_window,
    media_ids: stored.media_ids ? (JSON.parse(stored.media_ids) as number[]) : [],
    state: stored.state,
    attempts: stored.attempts,
    error: stored.error,
    quota_segments: stored.quota_segments,
    via_phone: stored.via_phone,
    pace_slot: stored.pace_slot,
    refusals: readRefusals(stored.refusals),
  };
}

/** The row with `changes`, copied field by field (see `outboxRow`). */
export function withOutbox(row: OutboxRow, changes: Partial<OutboxRow>): OutboxRow {
  const copy: OutboxRow = {
    id: row.id,
    id_user: row.id_user,
    originating_scheduled: row.originating_scheduled,
    id_phone: row.id_phone,
    id_phone_group: row.id_phone_group,
    destination: row.destination,
    text: row.text,
    flash: row.flash,
    mms: row.mms,
    tag: row.tag,
    expires_at: row.expires_at,
    priority: row.priority,
    effective_window: row.effective_window,
    media_ids: row.media_ids,
    state: row.state,
    attempts: row.attempts,
    error: row.error,
    quota_segments: row.quota_segments,
    via_phone: row.via_phone,
    pace_slot: row.pace_slot,
    refusals: row.refusals,
  };
  return Object.assign(copy, changes);
}

export interface PhoneRow {
  id: number;
  id_user: number;
  adapter: string;
  adapter_data: string | null;
  priority: number;
  status: string;
  /** Read for the phones a claim sends through: their callback URLs go with each send. */
  callback_token?: string | null;
  /** Messages per second at most; null: unpaced. */
  rate?: number | null;
}

/** A `sended` row the sender records. */
export interface NewSended {
  id_user: number;
  id_phone: number | null;
  at: string;
  text: string;
  destination: string;
  flash: number;
  mms: number;
  status: string;
  error: string | null;
  uid: string | null;
  adapter: string;
  tag: string | null;
  originating_scheduled: number;
  segments: number;
  encoding: string;
  /** The refusals of the phones it went through first (docs/dispatch.md#failover). */
  refusals: Refusal[];
}

/** A media as events show them; its path also makes the link of a text. */
export interface MediaRow {
  id: number;
  id_user: number;
  path: string;
}
