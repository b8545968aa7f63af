import { Injectable } from '@nestjs/common';
import { randomBytes } from 'node:crypto';
import {
  Adapter,
  AdapterCapabilities,
  AdapterData,
  CallbackRequest,
  IncomingSms,
  PhoneStatus,
  RefusalCause,
  ReportedStatus,
  SendResult,
  StatusReport,
  field,
} from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';

const DELIVERIES: readonly ReportedStatus[] = ['delivered', 'failed', 'unknown'];
const STATUSES: ReadonlyArray<Exclude<PhoneStatus, 'disabled'>> = [
  'available',
  'unavailable',
  'no_credit',
  'limit_reached',
];
const REFUSALS: readonly RefusalCause[] = ['phone', 'recipient'];

/**
 * Sends nothing outside the process: its messages end in the status its data names, or are all
 * refused for the cause its `refusal` names (what failover is tested with).
 */
@Injectable()
export class TestAdapter implements Adapter {
  readonly descriptor: AdapterDescriptor = {
    id: 'test',
    alias: 'adapters\\TestAdapter',
    callbackId: 'test_adapter',
    name: 'Test',
    description: 'Sends nothing: records each message with the configured final status.',
    fields: [
      field('delivery', 'Final status of its messages: delivered, failed or unknown.', false),
      field(
        'phone_status',
        'What a status check reports: available (default), unavailable, no_credit or limit_reached.',
        false,
      ),
      field(
        'refusal',
        'Refuses every message for good, as the phone (phone) or the recipient (recipient) refusing; empty: sends them.',
        false,
      ),
    ],
    hideData: false,
  };

  readonly capabilities: AdapterCapabilities = { flash: true, mms: true };

  test(data: AdapterData): Promise<string | null> {
    if (data.delivery && !(DELIVERIES as readonly string[]).includes(data.delivery)) {
      return Promise.resolve(`delivery must be one of ${DELIVERIES.join(', ')}.`);
    }
    if (data.phone_status && !(STATUSES as readonly string[]).includes(data.phone_status)) {
      return Promise.resolve(`phone_status must be one of ${STATUSES.join(', ')}.`);
    }
    if (data.refusal && !(REFUSALS as readonly string[]).includes(data.refusal)) {
      return Promise.resolve(`refusal must be one of ${REFUSALS.join(', ')}.`);
    }
    return Promise.resolve(null);
  }

  checkStatus(data: AdapterData): Promise<Exclude<PhoneStatus, 'disabled'>> {
    const status = STATUSES.find((candidate) => candidate === data.phone_status);
    return Promise.resolve(status ?? 'available');
  }

  send(data: AdapterData): Promise<SendResult> {
    const refusal = REFUSALS.find((candidate) => candidate === data.refusal);
    if (refusal) {
      return Promise.resolve({
        outcome: 'permanent',
        reason: `The test adapter refused the message for a reason of the ${refusal}, as its refusal setting says.`,
        cause: refusal,
      });
    }
    const status = DELIVERIES.find((candidate) => candidate === data.delivery) ?? 'unknown';
    const uid = randomBytes(8).toString('hex');
    return Promise.resolve(
      status === 'failed'
        ? { outcome: 'sent', uid, status, error: "The test adapter's delivery setting is failed." }
        : { outcome: 'sent', uid, status },
    );
  }

  /** `uid` and `status` (`delivered`, `failed`, anything else unknown), as RaspiSMS reads them. */
  parseStatusCallback(request: CallbackRequest): StatusReport | null {
    const uid = request.query.uid ?? request.form.uid;
    if (!uid) {
      return null;
    }
    const reported = request.query.status ?? request.form.status;
    const status = DELIVERIES.find((candidate) => candidate === reported) ?? 'unknown';
    return { uid, status };
  }

  /** `origin`, `text` and optionally `at` (UTC `YYYY-MM-DD HH:MM:SS`), from query or form. */
  parseReceptionCallback(request: CallbackRequest): IncomingSms | null {
    const read = (name: string) => request.form[name] ?? request.query[name];
    const origin = read('origin');
    const text = read('text');
    if (!origin || text === undefined) {
      return null;
    }
    return { origin, text, at: read('at') || null };
  }
}
