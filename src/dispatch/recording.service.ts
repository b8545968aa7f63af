import { Injectable, Logger } from '@nestjs/common';
import { SendResult } from '../adapters/adapter';
import { measureSms } from '../common/text/gsm';
import { nowUtc, utcDate, utcString, utcToZone } from '../common/time/datetime';
import { AppConfig } from '../config/configuration';
import { Sql } from '../database/driver/sql';
import { queueEvents } from '../events/webhook-events';
import { Claimed, Refused } from './claim-plan';
import { NewSended, OutboxRow, PhoneRow } from './dispatch-rows';
import { QuotaAccountingService, QuotaChange } from './quota-accounting.service';
import { RecordingRepository } from './recording.repository';
import { isPhoneFailure } from './failover';
import { expiredReason, expiryMs } from './validity';

/** A send's outcome, with the text that was handed to the provider. */
export interface Outcome {
  claimed: Claimed;
  text: string;
  result: SendResult;
}

export const UNKNOWN_OUTCOME =
  "The worker sending this message stopped before the provider's answer was recorded: it may " +
  'have been sent, so it is not sent again.';

/**
 * Records what became of claimed rows, in the caller's transaction: each outcome as its
 * `sended` entry, with its media links and its `send_sms` event, the row leaving the outbox and
 * its quota reservation settled; a transient failure with attempts left, and a row never sent,
 * back in the queue.
 */
@Injectable()
export class RecordingService {
  private readonly logger = new Logger(RecordingService.name);

  constructor(
    private readonly repository: RecordingRepository,
    private readonly quotas: QuotaAccountingService,
    private readonly config: AppConfig,
  ) {}

  /**
   * Records outcomes, in a transaction of their own; transient failures with attempts left go
   * back to the queue, and so do the rows never sent, as they were. The entries recorded.
   */
  recordOutcomes(
    workerId: string,
    outcomes: readonly Outcome[],
    unsent: readonly Claimed[],
  ): Promise<readonly NewSended[]> {
    return this.repository.transaction(this.record(workerId, outcomes, unsent));
  }

  private *record(
    workerId: string,
    outcomes: readonly Outcome[],
    unsent: readonly Claimed[],
  ): Sql<readonly NewSended[]> {
    if (outcomes.length + unsent.length === 0) {
      return [];
    }
    const now = nowUtc();
    const mine = yield* this.repository.stillClaimed(
      [...outcomes.map((outcome) => outcome.claimed.row.id), ...unsent.map(({ row }) => row.id)],
      workerId,
    );
    const done: Array<{ row: OutboxRow; sended: NewSended; handed: boolean }> = [];
    const retried: QuotaChange[] = [];
    const requeued = unsent.filter(({ row }) => mine.has(row.id)).map(({ row }) => row);
    if (requeued.length > 0) {
      yield* this.repository.requeue(
        requeued.map((row) => row.id),
        now,
      );
      for (const row of requeued) {
        if (row.quota_segments !== null) {
          retried.push({ userId: Number(row.id_user), released: row.quota_segments, consumed: 0 });
        }
      }
    }
    for (const { claimed, text, result } of outcomes) {
      const { row, phone } = claimed;
      if (!mine.has(row.id)) {
        this.logger.warn(
          `Outbox row ${row.id} was recorded by the dead-worker sweep while this worker sent it.`,
        );
        continue;
      }
      const attempts = Number(row.attempts) + 1;
      const retriable =
        result.outcome === 'transient' ||
        (result.outcome === 'ambiguous' && claimed.adapter.capabilities.idempotent === true);
      let error = retriable ? `${result.reason} (gave up after ${attempts} attempts)` : null;
      const exhausted = retriable && attempts >= this.config.dispatch.maxAttempts;
      if (
        isPhoneFailure(result, exhausted) &&
        (yield* this.failOver(row, phone, error ?? result.reason, now))
      ) {
        if (row.quota_segments !== null) {
          retried.push({ userId: Number(row.id_user), released: row.quota_segments, consumed: 0 });
        }
        continue;
      }
      if (retriable && !exhausted) {
        const delay = this.config.dispatch.retryBaseMs * 2 ** (attempts - 1);
        const retryAt = new Date(Date.now() + delay);
        // Retries stop when the next one would come after the message expires.
        if (row.expires_at === null || retryAt.getTime() < expiryMs(row.expires_at)) {
          yield* this.repository.retryLater(
            row.id,
            attempts,
            utcString(retryAt),
            result.reason,
            now,
          );
          if (row.quota_segments !== null) {
            retried.push({
              userId: Number(row.id_user),
              released: row.quota_segments,
              consumed: 0,
            });
          }
          continue;
        }
        const next = utcToZone(utcString(retryAt), this.config.timeZone) ?? '';
        error =
          result.outcome === 'transient'
            ? expiredReason(
                row.expires_at,
                this.config.timeZone,
                `its next attempt at ${next} (attempt ${attempts} failed: ${result.reason})`,
              )
            : `${result.reason} (not tried again: its message's validity ends before ${next})`;
      }
      done.push({
        row,
        // A send that may have reached the provider is counted as one that did.
        handed: result.outcome === 'sent' || result.outcome === 'ambiguous',
        sended: sended(row, phone, now, text, recordedStatus(result), {
          uid: result.outcome === 'sent' ? result.uid : null,
          error: result.outcome === 'sent' ? (result.error ?? null) : (error ?? result.reason),
        }),
      });
    }
    yield* this.quotas.settle(retried, now);
    return yield* this.store(done, now);
  }

  /**
   * Puts a row its phone refused for a reason of its own back in the queue, to go through
   * another phone of its route (docs/dispatch.md#failover), when its message named none, fewer
   * than FAILOVER_PHONES phones have had it, and another one is available; its attempts start
   * again. The refusal is kept on the row and counted for the phone's reliability. Whether it
   * was.
   */
  private *failOver(row: OutboxRow, phone: PhoneRow, reason: string, now: string): Sql<boolean> {
    const tried = [...row.refusals.map((refusal) => refusal.id_phone), phone.id];
    if (
      row.id_phone !== null ||
      tried.length >= this.config.dispatch.failoverPhones ||
      !(yield* this.repository.hasOtherPhone(row, tried))
    ) {
      return false;
    }
    const refusal = { id_phone: phone.id, adapter: phone.adapter, at: now, reason };
    yield* this.repository.failOver(row.id, [...row.refusals, refusal], now);
    yield* this.repository.recordRefusal(Number(row.id_user), phone.id, now);
    return true;
  }

  /** The rows a claim refused, as `failed` entries saying why, in the claim's transaction. */
  *recordRefused(refused: readonly Refused[], now: string): Sql<readonly NewSended[]> {
    return yield* this.store(
      refused.map(({ row, phone, reason }) => ({
        row,
        sended: sended(row, phone, now, row.text, 'failed', { uid: null, error: reason }),
      })),
      now,
    );
  }

  /**
   * Inserts the `sended` entries with their media links and removes their outbox rows; the
   * entries, for the caller to count once they are committed. The segments the rows reserved
   * are settled: consumed when the row was `handed` to a provider (by default, when its entry is
   * not `failed`: the sweep's `unknown` may have gone), given back otherwise.
   */
  *store(
    done: ReadonlyArray<{ row: OutboxRow; sended: NewSended; handed?: boolean }>,
    now: string,
  ): Sql<readonly NewSended[]> {
    if (done.length === 0) {
      return [];
    }
    yield* this.quotas.settle(
      done.flatMap(({ row, sended, handed }) =>
        row.quota_segments === null || row.quota_segments === undefined
          ? []
          : [
              {
                userId: Number(row.id_user),
                released: Number(row.quota_segments),
                consumed: (handed ?? sended.status !== 'failed') ? Number(row.quota_segments) : 0,
              },
            ],
      ),
      now,
    );
    const phoneIds = [...new Set(done.flatMap(({ sended }) => sended.id_phone ?? []))];
    const existing = yield* this.repository.existingPhones(phoneIds);
    const entries = done.map(({ sended }) =>
      sended.id_phone === null || existing.has(sended.id_phone)
        ? sended
        : { ...sended, id_phone: null },
    );
    const ids = yield* this.repository.record(entries, now);
    yield* this.repository.linkMedias(
      done.flatMap(({ row }, index) =>
        row.media_ids.map((id_media) => ({ id_media, id_sended: ids[index] })),
      ),
      now,
    );
    yield* this.repository.remove(done.map((entry) => entry.row.id));
    yield* this.queueSendEvents(
      done.map(({ row }, index) => ({ row, sended: entries[index] })),
      ids,
    );
    return done.map((entry) => entry.sended);
  }

  /** The `send_sms` events of entries just recorded, with the ids they were given. */
  private *queueSendEvents(
    done: ReadonlyArray<{ row: OutboxRow; sended: NewSended }>,
    ids: readonly number[],
  ): Sql<void> {
    const mediaIds = [...new Set(done.flatMap(({ row }) => row.media_ids))];
    const medias = new Map(
      (yield* this.repository.mediaRows(mediaIds)).map((media) => [media.id, media]),
    );
    const timeZone = this.config.timeZone;
    yield* queueEvents(
      done.map(({ row, sended }, index) => ({
        userId: sended.id_user,
        type: 'send_sms',
        at: utcDate(sended.at),
        payload: () => ({
          id: ids[index],
          at: utcToZone(sended.at, timeZone),
          status: sended.status,
          error: sended.error,
          text: sended.text,
          destination: sended.destination,
          origin: sended.id_phone,
          id_phone: sended.id_phone,
          tag: sended.tag,
          flash: sended.flash === 1,
          mms: sended.mms === 1,
          medias: row.media_ids.flatMap((id) => medias.get(id) ?? []),
          originating_scheduled: sended.originating_scheduled,
          segments: sended.segments,
          encoding: sended.encoding,
          refusals: sended.refusals.map((refusal) => ({
            ...refusal,
            at: utcToZone(refusal.at, timeZone),
          })),
        }),
      })),
    );
  }
}

/** The `sended` entry of an outbox row. */
export function sended(
  row: OutboxRow,
  phone: Pick<PhoneRow, 'id' | 'adapter'> | null,
  now: string,
  text: string,
  status: string,
  outcome: { uid: string | null; error: string | null },
): NewSended {
  const { segments, encoding } = measureSms(text);
  return {
    id_user: Number(row.id_user),
    id_phone: phone?.id ?? null,
    at: now,
    text,
    destination: row.destination,
    flash: Number(row.flash),
    mms: Number(row.mms),
    status,
    error: outcome.error,
    uid: outcome.uid,
    adapter: phone?.adapter ?? '',
    tag: row.tag,
    originating_scheduled: Number(row.originating_scheduled),
    segments,
    encoding,
    refusals: row.refusals,
  };
}

/** The status an outcome is recorded with: what may have been sent is `unknown`, not `failed`. */
function recordedStatus(result: SendResult): string {
  switch (result.outcome) {
    case 'sent':
      return result.status ?? 'unknown';
    case 'ambiguous':
      return 'unknown';
    default:
      return 'failed';
  }
}
