import { Logger } from '@nestjs/common';
import { AppConfig } from '../../config/configuration';
import { PhoneStatus } from '../../phones/entities/phone.entity';
import { AdapterData, field } from '../adapter';
import { AdapterDataField } from '../adapter.descriptor';
import { ProviderHttp, ProviderReply, parseJson, unexpectedStatus } from '../provider-http';
import { OvhClient } from './ovh.client';

/*
 * What the two OVH SMS adapters share: their credentials and the SMS service they send
 * through (`/sms/{service_name}` of the OVH API).
 */

export const OVH_SERVICE_FIELDS: AdapterDataField[] = [
  field('service_name', 'OVH SMS service name (sms-xx00000-1).', true),
  field('app_key', 'OVH application key.', true),
  field('app_secret', 'OVH application secret.', true),
  field('consumer_key', 'OVH consumer key, granted GET and POST on /sms/*.', true),
];

/** They travel in HTTP headers, which take visible ASCII only. */
const CREDENTIAL = /^[\x21-\x7e]+$/;

/** A client for one check of `data`, or why its credentials cannot be sent. */
export function ovhClient(config: AppConfig, data: AdapterData): OvhClient | string {
  for (const name of ['app_key', 'app_secret', 'consumer_key']) {
    if (!CREDENTIAL.test(data[name] ?? '')) {
      return `${name} must be made of letters, digits and symbols, without spaces.`;
    }
  }
  const { ovhApiUrl, timeoutMs } = config.providers;
  return new OvhClient(
    ovhApiUrl,
    { appKey: data.app_key, appSecret: data.app_secret, consumerKey: data.consumer_key },
    new ProviderHttp('OVH', ovhApiUrl, timeoutMs),
  );
}

/** The API path of the SMS service `serviceName`, or of something below it. */
export function smsPath(serviceName: string, ...below: string[]): string {
  return `/sms/${[serviceName, ...below].map(encodeURIComponent).join('/')}`;
}

/** Null when the SMS service answers to the credentials, else why not. */
export async function checkSmsService(
  client: OvhClient,
  serviceName: string,
): Promise<string | null> {
  const reply = await client.request('GET', smsPath(serviceName));
  if (!reply.ok) {
    return reply.reason;
  }
  if (reply.status === 404) {
    return `OVH has no SMS service ${serviceName} for these credentials (HTTP 404): check service_name.`;
  }
  return reply.status === 200 ? null : refusal(reply);
}

/** Why OVH refused a request, for an answer no rule of the check expects. */
export function refusal(reply: Extract<ProviderReply, { ok: true }>): string {
  if (reply.status === 400) {
    // OVH answers 400 "Invalid signature" when the secret that signed the request is wrong.
    return 'OVH refused the request signature (HTTP 400): check app_secret.';
  }
  if (reply.status === 401 || reply.status === 403) {
    return `OVH refused the credentials (HTTP ${reply.status}): check app_key and consumer_key, and that the consumer key is granted /sms/*.`;
  }
  return unexpectedStatus('OVH', reply.status);
}

/** The state of the SMS service: its credits, or unavailable when it does not answer. */
export async function smsServiceStatus(
  config: AppConfig,
  data: AdapterData,
  logger: Logger,
): Promise<Exclude<PhoneStatus, 'disabled'>> {
  const client = ovhClient(config, data);
  if (typeof client === 'string') {
    return 'unavailable';
  }
  const reply = await client.request('GET', smsPath(data.service_name));
  if (!reply.ok || reply.status !== 200) {
    logger.warn(`OVH status check: ${reply.ok ? refusal(reply) : reply.reason}`);
    return 'unavailable';
  }
  const credits = (parseJson(reply.body) as { creditsLeft?: unknown } | undefined)?.creditsLeft;
  return typeof credits === 'number' && credits <= 0 ? 'no_credit' : 'available';
}
