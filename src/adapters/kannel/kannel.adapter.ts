import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../config/configuration';
import { PhoneStatus } from '../../phones/entities/phone.entity';
import { Adapter, AdapterCapabilities, AdapterData, field, missingRequiredField } from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';
import { ProviderHttp, unexpectedStatus } from '../provider-http';

const PROVIDER = 'Kannel';

/** A Kannel smsbox, through its sendsms HTTP interface. */
@Injectable()
export class KannelAdapter implements Adapter {
  private readonly logger = new Logger(KannelAdapter.name);

  readonly descriptor: AdapterDescriptor = {
    id: 'kannel',
    alias: 'adapters\\KannelAdapter',
    name: 'Kannel',
    description: "Sends through a Kannel smsbox's sendsms HTTP interface.",
    fields: [
      field(
        'kannel_sendsms_url',
        'URL of the sendsms interface, e.g. http://smsbox.example.org:13013/cgi-bin/sendsms.',
        true,
      ),
      field('username', 'sendsms user name.', true),
      field('password', 'sendsms password.', true),
      field('from', 'Sender number or name.', true),
      field('smsc', 'SMSC id to route through.', false),
      field('dlr_url', 'Delivery report URL.', false),
    ],
    hideData: true,
  };
  readonly capabilities: AdapterCapabilities = { flash: false, mms: false };

  constructor(private readonly config: AppConfig) {}

  /**
   * Kannel has no credentials check of its own: a sendsms call without a receiver is refused
   * with 403 when the credentials are wrong and with another 4xx when they are right.
   */
  async test(data: AdapterData): Promise<string | null> {
    const missing = missingRequiredField(this.descriptor, data);
    if (missing) {
      return missing;
    }
    const sendsms = httpUrl(data.kannel_sendsms_url);
    // fetch refuses a URL with user info; Kannel takes the credentials as parameters anyway.
    if (!sendsms || sendsms.username || sendsms.password) {
      return 'kannel_sendsms_url must be an http(s) URL such as http://smsbox.example.org:13013/cgi-bin/sendsms, without credentials in it.';
    }
    if (data.dlr_url && !httpUrl(data.dlr_url)) {
      return 'dlr_url must be an http(s) URL.';
    }
    const location = `${sendsms.origin}${sendsms.pathname}`;
    sendsms.searchParams.set('username', data.username);
    sendsms.searchParams.set('password', data.password);
    const reply = await new ProviderHttp(
      PROVIDER,
      location,
      this.config.providers.timeoutMs,
    ).request(sendsms);
    if (!reply.ok) {
      return reply.reason;
    }
    if (reply.status === 403) {
      return 'Kannel refused the credentials (HTTP 403): check username and password.';
    }
    if (reply.status === 404) {
      return `Kannel has no sendsms interface at ${location} (HTTP 404): check kannel_sendsms_url.`;
    }
    if (reply.status >= 500) {
      return unexpectedStatus(PROVIDER, reply.status);
    }
    return null;
  }

  /** Kannel reports no account state: a smsbox that passes the test can send. */
  async checkStatus(data: AdapterData): Promise<Exclude<PhoneStatus, 'disabled'>> {
    const problem = await this.test(data);
    if (problem) {
      this.logger.warn(`Kannel status check: ${problem}`);
      return 'unavailable';
    }
    return 'available';
  }
}

/** `value` as an http(s) URL, or null. */
function httpUrl(value: string): URL | null {
  try {
    const url = new URL(value);
    return url.protocol === 'http:' || url.protocol === 'https:' ? url : null;
  } catch {
    return null;
  }
}
