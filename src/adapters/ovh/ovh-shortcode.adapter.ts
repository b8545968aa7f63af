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

/** An OVH SMS service's short code or sender name, through the OVH API. */
@Injectable()
export class OvhShortcodeAdapter implements Adapter {
  private readonly logger = new Logger(OvhShortcodeAdapter.name);

  readonly descriptor: AdapterDescriptor = {
    id: 'ovh_shortcode',
    alias: 'adapters\\OvhSmsShortcodeAdapter',
    callbackId: 'ovh_sms_shortcode_adapter',
    name: 'OVH SMS short code',
    description: 'Sends through the OVH SMS API from a short code or sender name.',
    fields: [
      ...OVH_SERVICE_FIELDS,
      field('sender', 'Sender name registered on the service, 3 to 11 characters.', false),
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
    const sender = data.sender ?? '';
    const senderProblem = checkSender(sender);
    if (senderProblem) {
      return senderProblem;
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

  /**
   * Without a sender, OVH sends from one of its short codes and, with `senderForResponse`,
   * lets the recipient answer it; with one, OVH shows the name.
   */
  async send(data: AdapterData, sms: OutgoingSms): Promise<SendResult> {
    const sender = data.sender ?? '';
    const problem = missingRequiredField(this.descriptor, data) ?? checkSender(sender);
    if (problem) {
      return { outcome: 'permanent', reason: problem };
    }
    return sendJob(this.config, data, line(data), sms, {
      senderForResponse: !sender,
      ...(sender ? { sender } : {}),
    });
  }

  parseStatusCallback(request: CallbackRequest): StatusReport | null {
    return parseOvhStatusCallback(request);
  }

  /** OVH keeps the answers to the service's short codes until they are read and deleted. */
  listen(phone: ListenedPhone, sink: InboundSink): () => Promise<void> {
    const problem = missingRequiredField(this.descriptor, phone.data);
    if (problem) {
      this.logger.warn(`OVH reception for phone ${phone.id} not started: ${problem}`);
      return () => Promise.resolve();
    }
    return listenToLine(this.config, phone, line(phone.data), sink, this.logger);
  }
}

/** Why `sender` cannot be an OVH sender name, or null when it can (or is empty). */
function checkSender(sender: string): string | null {
  return sender && (sender.length < 3 || sender.length > 11)
    ? 'sender must be 3 to 11 characters long.'
    : null;
}

function line(data: AdapterData): OvhLine {
  return {
    path: smsPath(data.service_name),
    notFound: `OVH has no SMS service ${data.service_name} for these credentials (HTTP 404): check service_name.`,
  };
}
