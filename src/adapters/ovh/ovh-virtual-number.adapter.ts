import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../config/configuration';
import {
  Adapter,
  AdapterCapabilities,
  AdapterData,
  CallbackRequest,
  InboundSink,
  ListenedPhone,
  OutgoingSms,
  PhoneStatus,
  SendResult,
  StatusReport,
  field,
  missingRequiredField,
} from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';
import {
  OVH_API_URL,
  OVH_SERVICE_FIELDS,
  OvhLine,
  checkSmsService,
  listenToLine,
  ovhClient,
  parseOvhStatusCallback,
  refusal,
  sendJob,
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
    callbackId: 'ovh_sms_virtual_number_adapter',
    name: 'OVH SMS virtual number',
    description: 'Sends through the OVH SMS API from a virtual number.',
    fields: [
      ...OVH_SERVICE_FIELDS,
      field('number', 'The virtual number, international format.', true, true),
    ],
    hideData: true,
    settings: [OVH_API_URL],
  };
  /** OVH sends a job of class `flash` as a class 0 SMS. */
  readonly capabilities: AdapterCapabilities = { flash: true, mms: false };

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
    const reply = await client.request('GET', line(data).path);
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

  /** Messages leave from the virtual number, so recipients can answer it. */
  async send(data: AdapterData, sms: OutgoingSms): Promise<SendResult> {
    const problem = missingRequiredField(this.descriptor, data);
    if (problem) {
      return { outcome: 'permanent', reason: problem };
    }
    return sendJob(this.config, data, line(data), sms, {});
  }

  parseStatusCallback(request: CallbackRequest): StatusReport | null {
    return parseOvhStatusCallback(request);
  }

  /** OVH keeps the messages sent to the virtual number until they are read and deleted. */
  listen(phone: ListenedPhone, sink: InboundSink): () => Promise<void> {
    const problem = missingRequiredField(this.descriptor, phone.data);
    if (problem) {
      this.logger.warn(`OVH reception for phone ${phone.id} not started: ${problem}`);
      return () => Promise.resolve();
    }
    return listenToLine(this.config, phone, line(phone.data), sink, this.logger);
  }
}

function line(data: AdapterData): OvhLine {
  return {
    path: smsPath(data.service_name, 'virtualNumbers', internationalPrefixForm(data.number)),
    notFound: `OVH has no virtual number ${data.number} on SMS service ${data.service_name} for these credentials (HTTP 404): check service_name and number.`,
  };
}

/** OVH names virtual numbers with the 00 international prefix: +33612345678 is 0033612345678. */
function internationalPrefixForm(number: string): string {
  return number.replace(/^\+/, '00');
}
