import { Module } from '@nestjs/common';
import { NestFactory } from '@nestjs/core';
import { INestApplicationContext } from '@nestjs/common';
import { adapterConfig } from '../../test/support/adapters.factories';
import { SecretsModule } from '../common/secrets/secrets.module';
import { AppConfigModule } from '../config/app-config.module';
import { AdapterRegistry } from './adapter.registry';
import { AdaptersModule } from './adapters.module';

/**
 * docs/adapters.md#the-adapters, column by column: fields as name, then `*` when required, `#` when
 * a number, `!` when a secret (encrypted at rest, never listed nor logged).
 */
const TABLE = [
  {
    id: 'test',
    alias: 'adapters\\TestAdapter',
    fields: ['delivery', 'phone_status', 'refusal'],
    hideData: false,
  },
  { id: 'benchmark', alias: 'adapters\\BenchmarkAdapter', fields: [], hideData: false },
  {
    id: 'twilio',
    alias: 'adapters\\TwilioVirtualNumberAdapter',
    fields: ['account_sid*', 'auth_token*!', 'number*#', 'status_change_callback'],
    hideData: true,
  },
  {
    id: 'kannel',
    alias: 'adapters\\KannelAdapter',
    fields: ['kannel_sendsms_url*', 'username*', 'password*!', 'from*', 'smsc', 'dlr_url'],
    hideData: true,
  },
  {
    id: 'ovh_virtual_number',
    alias: 'adapters\\OvhSmsVirtualNumberAdapter',
    fields: ['service_name*', 'app_key*', 'app_secret*!', 'consumer_key*!', 'number*#'],
    hideData: true,
  },
  {
    id: 'ovh_shortcode',
    alias: 'adapters\\OvhSmsShortcodeAdapter',
    fields: [
      'service_name*',
      'app_key*',
      'app_secret*!',
      'consumer_key*!',
      'sender',
      'no_stop_clause',
    ],
    hideData: true,
  },
  {
    id: 'gammu',
    alias: 'adapters\\GammuAdapter',
    fields: ['config_file*', 'pin!'],
    hideData: false,
  },
  {
    id: 'smpp',
    alias: null,
    fields: [
      'host*',
      'port*',
      'system_id*',
      'password*!',
      'system_type',
      'source_addr*',
      'max_pending_submits',
      'binds',
    ],
    hideData: true,
  },
  {
    id: 'sms_gateway_android',
    alias: null,
    fields: ['api_url', 'username*', 'password*!', 'signing_key*!'],
    hideData: true,
  },
  {
    id: 'octopush_shortcode',
    alias: 'adapters\\OctopushShortcodeAdapter',
    fields: ['login*', 'api_key*!', 'sms_type', 'sender'],
    hideData: true,
  },
  {
    id: 'octopush_virtual_number',
    alias: 'adapters\\OctopushVirtualNumberAdapter',
    fields: ['login*', 'api_key*!', 'sms_type', 'number*#'],
    hideData: true,
  },
  {
    id: 'odyssey_messaging',
    alias: 'adapters\\OdysseyMessagingAdapter',
    fields: ['login*', 'password*!', 'sender'],
    hideData: true,
  },
  {
    id: 'vonage',
    alias: null,
    fields: [
      'api_key*',
      'api_secret*!',
      'from*',
      'signature_secret!',
      'signature_method',
      'status_change_callback',
    ],
    hideData: true,
  },
  {
    id: 'telnyx',
    alias: null,
    fields: ['api_key*!', 'from*', 'messaging_profile_id', 'public_key', 'status_change_callback'],
    hideData: true,
  },
];

/**
 * What each adapter declares beside the API's view of it: RaspiSMS's meta_uid, which callback
 * URLs set up for RaspiSMS carry, and the server settings it reads.
 */
const BEYOND_THE_API = [
  { id: 'test', callbackId: 'test_adapter', settings: [] },
  { id: 'benchmark', callbackId: 'benchmark_adapter', settings: [] },
  {
    id: 'twilio',
    callbackId: 'twilio_virtual_number_adapter',
    settings: [{ kind: 'url', variable: 'TWILIO_API_URL', default: 'https://api.twilio.com' }],
  },
  { id: 'kannel', callbackId: 'kannel_adapter', settings: [] },
  {
    id: 'ovh_virtual_number',
    callbackId: 'ovh_sms_virtual_number_adapter',
    settings: [{ kind: 'url', variable: 'OVH_API_URL', default: 'https://eu.api.ovh.com/1.0' }],
  },
  {
    id: 'ovh_shortcode',
    callbackId: 'ovh_sms_shortcode_adapter',
    settings: [{ kind: 'url', variable: 'OVH_API_URL', default: 'https://eu.api.ovh.com/1.0' }],
  },
  {
    id: 'gammu',
    callbackId: 'gammu_adapter',
    settings: [{ kind: 'folder', variable: 'GAMMU_CONFIG_DIR' }],
  },
  { id: 'smpp', callbackId: null, settings: [] },
  {
    id: 'sms_gateway_android',
    callbackId: null,
    settings: [
      {
        kind: 'url',
        variable: 'SMS_GATEWAY_ANDROID_API_URL',
        default: 'https://api.sms-gate.app/3rdparty/v1',
      },
    ],
  },
  {
    id: 'octopush_shortcode',
    callbackId: 'octopush_shortcode_adapter',
    settings: [
      { kind: 'url', variable: 'OCTOPUSH_API_URL', default: 'https://api.octopush.com/v1/public' },
    ],
  },
  {
    id: 'octopush_virtual_number',
    callbackId: 'octopush_virtual_number_adapter',
    settings: [
      { kind: 'url', variable: 'OCTOPUSH_API_URL', default: 'https://api.octopush.com/v1/public' },
    ],
  },
  {
    id: 'odyssey_messaging',
    callbackId: 'odyssey_messaging_adapter',
    settings: [
      {
        kind: 'url',
        variable: 'ODYSSEY_API_URL',
        default: 'https://api.odyssey-services.fr/api/v1',
      },
    ],
  },
  {
    id: 'vonage',
    callbackId: null,
    settings: [{ kind: 'url', variable: 'VONAGE_API_URL', default: 'https://rest.nexmo.com' }],
  },
  {
    id: 'telnyx',
    callbackId: null,
    settings: [{ kind: 'url', variable: 'TELNYX_API_URL', default: 'https://api.telnyx.com' }],
  },
];

@Module({
  imports: [
    AppConfigModule.forRoot(adapterConfig({ SECRETS_KEY: 'ab'.repeat(32) })),
    SecretsModule,
    AdaptersModule,
  ],
})
class AdaptersTestModule {}

describe('AdapterRegistry', () => {
  let context: INestApplicationContext;
  let registry: AdapterRegistry;

  beforeAll(async () => {
    context = await NestFactory.createApplicationContext(AdaptersTestModule, { logger: false });
    registry = context.get(AdapterRegistry);
  });
  afterAll(() => context.close());

  it('lists exactly the adapters of docs/adapters.md, with their aliases, fields and hide_data', () => {
    const listed = registry.adapters.map(({ descriptor }) => ({
      id: descriptor.id,
      alias: descriptor.alias,
      fields: descriptor.fields.map(
        (field) =>
          `${field.name}${field.required ? '*' : ''}${field.number ? '#' : ''}${field.secret ? '!' : ''}`,
      ),
      hideData: descriptor.hideData,
    }));

    expect(listed).toEqual(TABLE);
  });

  it('describes every adapter and every field for the user', () => {
    for (const { descriptor } of registry.adapters) {
      expect(descriptor.name).not.toBe('');
      expect(descriptor.description).not.toBe('');
      for (const field of descriptor.fields) {
        expect(field.description).not.toBe('');
      }
    }
  });

  it.each(TABLE.map(({ id }) => id))('finds %s by its id', (id) => {
    expect(registry.find(id)?.descriptor.id).toBe(id);
  });

  it.each(TABLE.filter(({ alias }) => alias).map(({ id, alias }) => [alias, id]))(
    'finds %s, with or without its leading backslash, as %s',
    (alias, id) => {
      expect(registry.find(alias!)?.descriptor.id).toBe(id);
      expect(registry.find(`\\${alias}`)?.descriptor.id).toBe(id);
    },
  );

  it('finds nothing for an unknown name, nor for a name in another case', () => {
    expect(registry.find('carrier_pigeon')).toBeUndefined();
    expect(registry.find('Twilio')).toBeUndefined();
    expect(registry.find('adapters\\CarrierPigeonAdapter')).toBeUndefined();
  });

  it.each(TABLE.map(({ id, hideData }): [string, boolean] => [id, hideData]))(
    'tells whether listings hide the data of %s (%p)',
    (id, hideData) => {
      expect(registry.hidesData(id)).toBe(hideData);
    },
  );

  it('hides the data of an adapter it does not know', () => {
    expect(registry.hidesData('carrier_pigeon')).toBe(true);
  });

  it.each(
    TABLE.map(({ id, fields }): [string, string[]] => [
      id,
      fields.filter((field) => field.endsWith('!')).map((field) => field.replace(/[*#!]+$/, '')),
    ]),
  )('tells the secret fields of %s: %j', (id, secrets) => {
    expect(registry.secretFields(id)).toEqual(secrets);
  });

  it('knows no secret field of an adapter it does not know', () => {
    expect(registry.secretFields('carrier_pigeon')).toEqual([]);
  });

  it.each(
    BEYOND_THE_API.filter(({ callbackId }) => callbackId).map(({ id, callbackId }) => [
      callbackId,
      id,
    ]),
  )('finds the adapter of a callback by its RaspiSMS meta_uid %s: %s', (callbackId, id) => {
    expect(registry.findForCallback(callbackId!)?.descriptor.id).toBe(id);
    expect(registry.find(callbackId!)).toBeUndefined();
  });

  it('finds the adapter of a callback by its id or alias too, and nothing for another name', () => {
    expect(registry.findForCallback('smpp')?.descriptor.id).toBe('smpp');
    expect(registry.findForCallback('adapters\\KannelAdapter')?.descriptor.id).toBe('kannel');
    expect(registry.findForCallback('smpp_adapter')).toBeUndefined();
    expect(registry.findForCallback('carrier_pigeon')).toBeUndefined();
  });

  it('knows the RaspiSMS callback id and the settings of each adapter', () => {
    const listed = registry.adapters.map(({ descriptor }) => ({
      id: descriptor.id,
      callbackId: descriptor.callbackId ?? null,
      settings: descriptor.settings ?? [],
    }));

    expect(listed).toEqual(BEYOND_THE_API);
  });

  it('gathers the secret field names of every adapter, each once', () => {
    expect([...registry.secretFieldNames()].sort()).toEqual([
      'api_key',
      'api_secret',
      'app_secret',
      'auth_token',
      'consumer_key',
      'password',
      'pin',
      'signature_secret',
      'signing_key',
    ]);
  });
});

describe('AdaptersModule', () => {
  it('does not start when a setting an adapter declares is invalid, naming each such variable once', async () => {
    @Module({
      imports: [
        AppConfigModule.forRoot(
          adapterConfig({
            SECRETS_KEY: 'ab'.repeat(32),
            TWILIO_API_URL: 'api.twilio.com',
            OVH_API_URL: 'ftp://eu.api.ovh.com/1.0',
            GAMMU_CONFIG_DIR: 'anything',
          }),
        ),
        SecretsModule,
        AdaptersModule,
      ],
    })
    class MisconfiguredModule {}

    await expect(
      NestFactory.createApplicationContext(MisconfiguredModule, {
        logger: false,
        abortOnError: false,
      }),
    ).rejects.toThrow(
      new Error(
        'Invalid environment variables: ' +
          'TWILIO_API_URL="api.twilio.com": TWILIO_API_URL must be an absolute http(s) URL; ' +
          'OVH_API_URL="ftp://eu.api.ovh.com/1.0": OVH_API_URL must be an absolute http(s) URL',
      ),
    );
  });
});
