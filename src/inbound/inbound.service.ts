import { Injectable, Logger } from '@nestjs/common';
import {
  AdapterData,
  IncomingSms,
  InboundSink,
  ListenedPhone,
  ReportedStatus,
  StatusReport,
} from '../adapters/adapter';
import { AdapterDataCipher, unreadableClause } from '../adapters/adapter-data.cipher';
import { countryOf, normalizePhoneNumber } from '../common/phone/phone-number';
import { MAX_TEXT_CHARACTERS } from '../common/text/message-text';
import { nowUtc, parseApiDatetime } from '../common/time/datetime';
import { SendedStatus } from '../sended/entities/sended.entity';
import { NewScheduled } from '../scheduled/scheduled-message';
import { DEFAULT_SETTINGS, isSettingOn } from '../users/settings';
import { InboundPhone, InboundRepository, NewReceived, StoredReceived } from './inbound.repository';

/**
 * The statuses a message may be in for a receipt to apply. `delivered` is final,
 * `failed` does not go back to `unknown`, and a receipt repeating the current status changes
 * nothing (not even `updated_at`).
 */
const APPLIES_FROM: Record<ReportedStatus, readonly SendedStatus[]> = {
  delivered: ['unknown', 'failed'],
  failed: ['unknown'],
  unknown: [],
};

/** Texts that put their sender on the STOP list, as in RaspiSMS, once trimmed and lowercased. */
const STOP_TEXTS = new Set(['stop', 'stop sms']);
const STOP_REPLY_TAG = 'SMS_STOP';
/** The `received.origin` and `smsstop.number` columns. */
const MAX_ORIGIN_LENGTH = 20;

/**
 * Delivery receipts and inbound messages, whether a provider posts them to the callback routes
 * (CallbacksService) or an adapter's `listen()` reports them: this service is the `InboundSink`
 * the dispatch worker gives listening adapters. Nothing here answers the provider: whatever is
 * refused is logged, never returned.
 */
@Injectable()
export class InboundService implements InboundSink {
  private readonly logger = new Logger(InboundService.name);

  constructor(
    private readonly repository: InboundRepository,
    private readonly secrets: AdapterDataCipher,
  ) {}

  /**
   * A receipt an adapter's `listen()` got for a phone. Rejects when the database fails, so that
   * the adapter can leave the receipt unacknowledged for the provider to repeat.
   */
  async status(phone: ListenedPhone, report: StatusReport): Promise<void> {
    const own = await this.repository.findOwnPhone(phone.id_user, phone.id);
    if (!own) {
      this.logger.debug(`Receipt for phone ${phone.id} ignored: the phone is gone.`);
      return;
    }
    await this.applyReceipt(phone.id_user, own.adapter, report, undefined);
  }

  /** A message an adapter's `listen()` got for a phone; rejects as `status` does. */
  async received(phone: ListenedPhone, sms: IncomingSms): Promise<void> {
    const settings = { ...DEFAULT_SETTINGS, ...(await this.repository.settingsOf(phone.id_user)) };
    await this.store(phone.id_user, settings, phone.id, sms);
  }

  /** The phone a callback token names, its user active; null for none. */
  phoneByToken(token: string): Promise<InboundPhone | null> {
    return this.repository.findPhoneByToken(token);
  }

  /** The user's phone, as what checks a provider's signature needs it; null when not theirs. */
  ownPhone(userId: number, phoneId: number): Promise<InboundPhone | null> {
    return this.repository.findOwnPhone(userId, phoneId);
  }

  /**
   * Why a provider's signature is not accepted, checked with the data of the phone it concerns
   * (none when the phone is gone); null when it is.
   */
  signatureProblem(
    phone: InboundPhone | null,
    verify: (data: AdapterData) => boolean,
  ): string | null {
    const opened = phone ? this.secrets.open(phone) : { data: {}, unreadable: [] };
    if (opened.unreadable.length > 0) {
      return `its signature cannot be checked: ${unreadableClause(opened.unreadable)}`;
    }
    return verify(opened.data) ? null : 'its signature does not match';
  }

  /**
   * Applies a receipt if the message is the user's and APPLIES_FROM lets its status change;
   * `verify`, when given, checks the provider's signature with the data of the phone that sent
   * it.
   */
  async applyReceipt(
    userId: number,
    adapterId: string,
    report: StatusReport,
    verify: ((data: AdapterData) => boolean) | undefined,
  ): Promise<void> {
    const target = report.uid
      ? await this.repository.findReceiptTarget(userId, adapterId, report.uid)
      : null;
    if (!target) {
      this.logger.debug(
        `Receipt ignored: user ${userId} sent no message ${report.uid} by ${adapterId}.`,
      );
      return;
    }
    const problem = verify && this.signatureProblem(target.phone, verify);
    if (problem) {
      this.logger.warn(`Receipt for message ${report.uid} ignored: ${problem}.`);
      return;
    }
    const from = APPLIES_FROM[report.status];
    if (!from.includes(target.status)) {
      this.logger.debug(
        `Receipt ${report.status} for message ${report.uid} ignored: it is ${target.status}.`,
      );
      return;
    }
    const changed = await this.repository.updateStatus(
      userId,
      adapterId,
      report.uid,
      report.status,
      from,
    );
    this.logger.debug(`Message ${report.uid} is now ${report.status} (${changed} row(s)).`);
  }

  /** The message in chunks of 1000 code points, as RaspiSMS stores it, then the STOP rule. */
  async store(
    userId: number,
    settings: Readonly<Record<string, string>>,
    phoneId: number,
    sms: IncomingSms,
  ): Promise<void> {
    const origin = normalizePhoneNumber(sms.origin, countryOf({ settings })) ?? sms.origin.trim();
    if (origin === '' || [...origin].length > MAX_ORIGIN_LENGTH) {
      this.logger.warn(
        `Message for phone ${phoneId} ignored: its sender is empty or longer than a number.`,
      );
      return;
    }
    const at = (sms.at && parseApiDatetime(sms.at, 'UTC')) || nowUtc();
    const isStop = STOP_TEXTS.has(sms.text.trim().toLowerCase());
    const message: NewReceived = {
      userId,
      phoneId,
      at,
      origin,
      chunks: chunk(sms.text, MAX_TEXT_CHARACTERS),
      stop: isStop ? { reply: this.stopReply(userId, settings, phoneId, origin) } : null,
    };
    const stored = await this.repository.storeReceived(message);
    this.logger.log(
      `Stored a message from ${mask(origin)} on phone ${phoneId} of user ${userId}` +
        `${isStop ? `; STOP: ${describeStop(stored)}` : ''}.`,
    );
  }

  /**
   * The reply a STOP gets when `smsstop_respond` is on: sent now through the phone that
   * received it, tagged so that the STOP list does not hold it back. None for an empty
   * response or a sender that cannot be answered (a name, not a number).
   */
  private stopReply(
    userId: number,
    settings: Readonly<Record<string, string>>,
    phoneId: number,
    origin: string,
  ): NewScheduled | null {
    const text = settings.smsstop_response ?? '';
    if (!isSettingOn(settings, 'smsstop_respond') || text.trim() === '') {
      return null;
    }
    if (normalizePhoneNumber(origin) === null) {
      return null;
    }
    const at = nowUtc();
    // The answer to a message the person just sent goes at once, whatever the send window.
    return {
      userId,
      at,
      text,
      flash: false,
      mms: false,
      tag: STOP_REPLY_TAG,
      priority: 'normal',
      phoneId,
      phoneGroupId: null,
      validity: null,
      window: 'none',
      effectiveWindow: null,
      sendAfter: at,
      numbers: [{ number: origin, data: '[]' }],
      contactIds: [],
      groupIds: [],
      conditionalGroupIds: [],
      mediaPaths: [],
    };
  }
}

function describeStop(stored: StoredReceived): string {
  if (!stored.stopAdded) {
    return 'already on the list';
  }
  return stored.replyId === null ? 'added' : `added, reply ${stored.replyId} scheduled`;
}

/** `text` in pieces of at most `size` code points; an empty text is one empty piece. */
function chunk(text: string, size: number): string[] {
  const characters = [...text];
  const pieces: string[] = [];
  for (let start = 0; start < characters.length; start += size) {
    pieces.push(characters.slice(start, start + size).join(''));
  }
  return pieces.length > 0 ? pieces : [''];
}

/** A number as logs show it: its last 4 digits. */
function mask(number: string): string {
  return number.length > 4 ? `…${number.slice(-4)}` : '…';
}
