import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../config/configuration';
import { PhoneStatus } from '../../phones/entities/phone.entity';
import { Adapter, AdapterCapabilities, AdapterData, field, missingRequiredField } from '../adapter';
import { AdapterDescriptor } from '../adapter.descriptor';
import { ProviderHttp, parseJson, unexpectedStatus } from '../provider-http';

const PROVIDER = 'Twilio';

/** A Twilio virtual number, through Twilio's REST API (2010-04-01). */
@Injectable()
export class TwilioAdapter implements Adapter {
  private readonly logger = new Logger(TwilioAdapter.name);

  readonly descriptor: AdapterDescriptor = {
    id: 'twilio',
    alias: 'adapters\\TwilioVirtualNumberAdapter',
    name: 'Twilio virtual number',
    description: 'Sends through the Twilio Messages API from a Twilio number.',
    fields: [
      field('account_sid', 'Twilio account SID.', true),
      field('auth_token', 'Twilio auth token.', true),
      field('number', 'The Twilio phone number to send from, international format.', true, true),
      field('status_change_callback', 'URL Twilio calls with delivery statuses.', false),
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
    const reply = await this.http().request(
      `${this.accountUrl(data)}/IncomingPhoneNumbers.json?PhoneNumber=${encodeURIComponent(data.number)}`,
      { headers: this.headers(data) },
    );
    if (!reply.ok) {
      return reply.reason;
    }
    if (reply.status === 401 || reply.status === 403) {
      return `Twilio refused the credentials (HTTP ${reply.status}): check account_sid and auth_token.`;
    }
    if (reply.status !== 200) {
      return unexpectedStatus(PROVIDER, reply.status);
    }
    const numbers = incomingNumbers(parseJson(reply.body));
    if (!numbers) {
      return 'Twilio answered without a list of phone numbers: try again later.';
    }
    if (!numbers.includes(data.number)) {
      return `The number ${data.number} is not a phone number of this Twilio account: check number.`;
    }
    return null;
  }

  async checkStatus(data: AdapterData): Promise<Exclude<PhoneStatus, 'disabled'>> {
    if (missingRequiredField(this.descriptor, data)) {
      return 'unavailable';
    }
    const reply = await this.http().request(`${this.accountUrl(data)}.json`, {
      headers: this.headers(data),
    });
    if (!reply.ok) {
      this.logger.warn(`Twilio status check: ${reply.reason}`);
      return 'unavailable';
    }
    const status = accountStatus(reply.status === 200 ? parseJson(reply.body) : undefined);
    if (status !== 'active') {
      this.logger.warn(
        `Twilio status check: HTTP ${reply.status}, account status ${status ?? 'unknown'}.`,
      );
      return 'unavailable';
    }
    return 'available';
  }

  private http(): ProviderHttp {
    const { twilioApiUrl, timeoutMs } = this.config.providers;
    return new ProviderHttp(PROVIDER, twilioApiUrl, timeoutMs);
  }

  private accountUrl(data: AdapterData): string {
    const base = this.config.providers.twilioApiUrl;
    return `${base}/2010-04-01/Accounts/${encodeURIComponent(data.account_sid)}`;
  }

  private headers(data: AdapterData): Record<string, string> {
    const credentials = Buffer.from(`${data.account_sid}:${data.auth_token}`).toString('base64');
    return { Authorization: `Basic ${credentials}`, Accept: 'application/json' };
  }
}

/** The `phone_number` of each entry of an IncomingPhoneNumbers page. */
function incomingNumbers(page: unknown): string[] | undefined {
  const list = (page as { incoming_phone_numbers?: unknown } | undefined)?.incoming_phone_numbers;
  if (!Array.isArray(list)) {
    return undefined;
  }
  return list
    .map((entry) => (entry as { phone_number?: unknown } | null)?.phone_number)
    .filter((number): number is string => typeof number === 'string');
}

/** An Account resource's `status`: active, suspended or closed. */
function accountStatus(account: unknown): string | undefined {
  const status = (account as { status?: unknown } | undefined)?.status;
  return typeof status === 'string' ? status : undefined;
}
