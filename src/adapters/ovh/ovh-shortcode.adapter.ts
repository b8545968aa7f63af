import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../config/configuration';
import { PhoneStatus } from '../../phones/entities/phone.entity';
import { Adapter, AdapterCapabilities, AdapterData, field, missingRequiredField } from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';
import {
  OVH_SERVICE_FIELDS,
  checkSmsService,
  ovhClient,
  refusal,
  smsPath,
  smsServiceStatus,
} from './ovh-sms';

/** An OVH SMS service's short code or sender name, through the OVH API. */
@Injectable()
export class OvhShortcodeAdapter implements Adapter {
  private readonly logger = new Logger(OvhShortcodeAdapter.name);

  readonly descriptor: AdapterDescriptor = {
    id: 'ovh_shortcode',
    alias: 'adapters\\OvhSmsShortcodeAdapter',
    name: 'OVH SMS short code',
    description: 'Sends through the OVH SMS API from a short code or sender name.',
    fields: [
      ...OVH_SERVICE_FIELDS,
      field('sender', 'Sender name registered on the service, 3 to 11 characters.', false),
    ],
    hideData: true,
  };
  readonly capabilities: AdapterCapabilities = { flash: false, mms: false };

  constructor(private readonly config: AppConfig) {}

  async test(data: AdapterData): Promise<string | null> {
    const missing = missingRequiredField(this.descriptor, data);
    if (missing) {
      return missing;
    }
    const sender = data.sender ?? '';
    if (sender && (sender.length < 3 || sender.length > 11)) {
      return 'sender must be 3 to 11 characters long.';
    }
    const client = ovhClient(this.config, data);
    if (typeof client === 'string') {
      return client;
    }
    const serviceProblem = await checkSmsService(client, data.service_name);
    if (serviceProblem || !sender) {
      return serviceProblem;
    }
    const reply = await client.request('GET', smsPath(data.service_name, 'senders', sender));
    if (!reply.ok) {
      return reply.reason;
    }
    if (reply.status === 404) {
      return `${sender} is not a sender of OVH SMS service ${data.service_name}: check sender.`;
    }
    return reply.status === 200 ? null : refusal(reply);
  }

  async checkStatus(data: AdapterData): Promise<Exclude<PhoneStatus, 'disabled'>> {
    if (missingRequiredField(this.descriptor, data)) {
      return 'unavailable';
    }
    return smsServiceStatus(this.config, data, this.logger);
  }
}
