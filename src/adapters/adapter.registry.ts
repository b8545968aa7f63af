import { AdapterDescriptor } from './adapter.descriptor';

const field = (name: string, description: string, required: boolean, number = false) => ({
  name,
  description,
  required,
  ...(number ? { number: true } : {}),
});

/** The adapters of DECISIONS §7. Adding a provider is one descriptor here and one folder. */
export const ADAPTERS: readonly AdapterDescriptor[] = [
  {
    id: 'test',
    alias: 'adapters\\TestAdapter',
    name: 'Test',
    description: 'Sends nothing: records each message with the configured final status.',
    fields: [
      field('delivery', 'Final status of its messages: delivered, failed or unknown.', false),
      field('phone_status', 'What a status check reports (default available).', false),
    ],
    hideData: false,
  },
  {
    id: 'benchmark',
    alias: 'adapters\\BenchmarkAdapter',
    name: 'Benchmark',
    description: 'Accepts every message at once, for measurements.',
    fields: [],
    hideData: false,
  },
  {
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
  },
  {
    id: 'kannel',
    alias: 'adapters\\KannelAdapter',
    name: 'Kannel',
    description: "Sends through a Kannel smsbox's sendsms HTTP interface.",
    fields: [
      field('kannel_sendsms_url', 'URL of the sendsms interface.', true),
      field('username', 'sendsms user name.', true),
      field('password', 'sendsms password.', true),
      field('from', 'Sender number or name.', true),
      field('smsc', 'SMSC id to route through.', false),
      field('dlr_url', 'Delivery report URL.', false),
    ],
    hideData: true,
  },
  {
    id: 'ovh_virtual_number',
    alias: 'adapters\\OvhSmsVirtualNumberAdapter',
    name: 'OVH SMS virtual number',
    description: 'Sends through the OVH SMS API from a virtual number.',
    fields: [
      field('service_name', 'OVH SMS service name (sms-xx0000-1).', true),
      field('app_key', 'OVH application key.', true),
      field('app_secret', 'OVH application secret.', true),
      field('consumer_key', 'OVH consumer key.', true),
      field('number', 'The virtual number, international format.', true, true),
    ],
    hideData: true,
  },
  {
    id: 'ovh_shortcode',
    alias: 'adapters\\OvhSmsShortcodeAdapter',
    name: 'OVH SMS short code',
    description: 'Sends through the OVH SMS API from a short code or sender name.',
    fields: [
      field('service_name', 'OVH SMS service name (sms-xx0000-1).', true),
      field('app_key', 'OVH application key.', true),
      field('app_secret', 'OVH application secret.', true),
      field('consumer_key', 'OVH consumer key.', true),
      field('sender', 'Sender name, 3 to 11 characters.', false),
    ],
    hideData: true,
  },
  {
    id: 'gammu',
    alias: 'adapters\\GammuAdapter',
    name: 'Gammu',
    description: 'Sends through a GSM modem with the gammu command.',
    fields: [
      field('config_file', 'Path of the gammu configuration file.', true),
      field('pin', 'SIM PIN code.', false),
    ],
    hideData: false,
  },
  {
    id: 'smpp',
    alias: null,
    name: 'SMPP',
    description: 'Sends through an SMPP 3.4 connection to an SMSC.',
    fields: [
      field('host', 'SMSC host.', true),
      field('port', 'SMSC port.', true),
      field('system_id', 'SMPP system_id.', true),
      field('password', 'SMPP password.', true),
      field('system_type', 'SMPP system_type.', false),
      field('source_addr', 'Source address of sent messages.', true),
    ],
    hideData: true,
  },
];

const BY_NAME = new Map<string, AdapterDescriptor>();
for (const adapter of ADAPTERS) {
  BY_NAME.set(adapter.id, adapter);
  if (adapter.alias) {
    BY_NAME.set(adapter.alias, adapter);
    BY_NAME.set(`\\${adapter.alias}`, adapter);
  }
}

/** The adapter named by its id or RaspiSMS alias (with or without the leading backslash). */
export function findAdapter(name: string): AdapterDescriptor | undefined {
  return BY_NAME.get(name);
}

/** Whether listings must omit a phone's `adapter_data`; an unknown adapter is kept secret. */
export function hidesAdapterData(adapterId: string): boolean {
  return findAdapter(adapterId)?.hideData ?? true;
}
