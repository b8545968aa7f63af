import { Injectable } from '@nestjs/common';
import { PhoneStatus } from '../../phones/entities/phone.entity';
import { Adapter, AdapterData, field } from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';

const DELIVERIES = ['delivered', 'failed', 'unknown'];
const STATUSES: ReadonlyArray<Exclude<PhoneStatus, 'disabled'>> = [
  'available',
  'unavailable',
  'no_credit',
  'limit_reached',
];

/** Sends nothing outside the process: its messages end in the status its data names. */
@Injectable()
export class TestAdapter implements Adapter {
  readonly descriptor: AdapterDescriptor = {
    id: 'test',
    alias: 'adapters\\TestAdapter',
    name: 'Test',
    description: 'Sends nothing: records each message with the configured final status.',
    fields: [
      field('delivery', 'Final status of its messages: delivered, failed or unknown.', false),
      field(
        'phone_status',
        'What a status check reports: available (default), unavailable, no_credit or limit_reached.',
        false,
      ),
    ],
    hideData: false,
  };

  test(data: AdapterData): Promise<string | null> {
    if (data.delivery && !DELIVERIES.includes(data.delivery)) {
      return Promise.resolve(`delivery must be one of ${DELIVERIES.join(', ')}.`);
    }
    if (data.phone_status && !(STATUSES as readonly string[]).includes(data.phone_status)) {
      return Promise.resolve(`phone_status must be one of ${STATUSES.join(', ')}.`);
    }
    return Promise.resolve(null);
  }

  checkStatus(data: AdapterData): Promise<Exclude<PhoneStatus, 'disabled'>> {
    const status = STATUSES.find((candidate) => candidate === data.phone_status);
    return Promise.resolve(status ?? 'available');
  }
}
