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

/** A virtual number of an OVH SMS service, through the OVH API. */
@Injectable()
export class OvhVirtualNumberAdapter implements Adapter {
  private readonly logger = new Logger(OvhVirtualNumberAdapter.name);

  readonly descriptor: AdapterDescriptor = {
    id: 'ovh_virtual_number',
    alias: 'adapters\\OvhSmsVirtualNumberAdapter',
    name: 'OVH SMS virtual number',
    description: 'Sends through the OVH SMS API from a virtual number.',
    fields: [
      ...OVH_SERVICE_FIELDS,
      field('number', 'The virtual number, international format.', true, true),
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
    const client = ovhClient(this.config, data);
    if (typeof client === 'string') {
      return client;
    }
    const serviceProblem = await checkSmsService(client, data.service_name);
    if (serviceProblem) {
      return serviceProblem;
    }
    const reply = await client.request(
      'GET',
      smsPath(data.service_name, 'virtualNumbers', internationalPrefixForm(data.number)),
    );
    if (!reply.ok) {
      return reply.reason;
    }
    if (reply.status === 404) {
      return `The number ${data.number} is not a virtual number of OVH SMS service ${data.service_name}: check number.`;
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

/** OVH names virtual numbers with the 00 international prefix: +33612345678 is 0033612345678. */
function internationalPrefixForm(number: string): string {
  return number.replace(/^\+/, '00');
}
