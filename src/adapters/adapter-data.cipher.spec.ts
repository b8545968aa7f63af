import { randomBytes } from 'node:crypto';
import { adapterConfig } from '../../test/support/adapters.factories';
import { SecretCipher } from '../common/secrets/secret-cipher';
import { ENCRYPTED_FIELDS } from '../database/migrations/1764000000000-EncryptAdapterSecrets';
import { AdapterDataCipher, StoredPhone } from './adapter-data.cipher';
import { AdapterRegistry } from './adapter.registry';
import { ADAPTERS } from './adapters.module';

const registry = new AdapterRegistry(ADAPTERS.map((Adapter) => new Adapter(adapterConfig())));
const cipher = new SecretCipher(randomBytes(32));
const secrets = new AdapterDataCipher(registry, cipher);

const KANNEL = {
  kannel_sendsms_url: 'http://smsbox.test:13013/cgi-bin/sendsms',
  username: 'smsgw',
  password: 'p4ss',
  from: 'smsgw',
};

const stored = (phone: Partial<StoredPhone> & { adapter_data: string | null }): StoredPhone => ({
  id: 7,
  id_user: 3,
  adapter: 'kannel',
  ...phone,
});

describe('AdapterDataCipher', () => {
  it('encrypts the secret fields only, and opens them again', () => {
    const column = secrets.seal('kannel', KANNEL, { id: 7, id_user: 3 });

    const json = JSON.parse(column) as Record<string, string>;
    expect(json).toEqual({ ...KANNEL, password: expect.stringMatching(/^enc:v1:/) });
    expect(column).not.toContain('p4ss');
    expect(secrets.open(stored({ adapter_data: column }))).toEqual({
      data: KANNEL,
      unreadable: [],
    });
  });

  it.each<[string, Record<string, string>, string[]]>([
    ['twilio', { account_sid: 'AC1', auth_token: 't0k', number: '+33612345678' }, ['auth_token']],
    [
      'ovh_virtual_number',
      { service_name: 's', app_key: 'ak', app_secret: 'as', consumer_key: 'ck', number: '+336' },
      ['app_secret', 'consumer_key'],
    ],
    ['gammu', { config_file: '/etc/gammurc', pin: '1234' }, ['pin']],
    ['smpp', { host: 'h', port: '2775', system_id: 'id', password: 'pw' }, ['password']],
    ['test', { delivery: 'delivered' }, []],
  ])('encrypts exactly the secret fields of %s', (adapter, data, encrypted) => {
    const json = JSON.parse(secrets.seal(adapter, data, { id: 1, id_user: 1 })) as Record<
      string,
      string
    >;

    for (const [name, value] of Object.entries(data)) {
      expect({ name, sealed: json[name].startsWith('enc:v1:') }).toEqual({
        name,
        sealed: encrypted.includes(name),
      });
      expect(json[name] === value).toBe(!encrypted.includes(name));
    }
  });

  it('cannot open a value copied to another phone, or another user', () => {
    const column = secrets.seal('kannel', KANNEL, { id: 7, id_user: 3 });

    expect(secrets.open(stored({ id: 8, adapter_data: column })).unreadable).toEqual(['password']);
    expect(secrets.open(stored({ id_user: 4, adapter_data: column })).unreadable).toEqual([
      'password',
    ]);
  });

  it('leaves out what does not decrypt and names it, keeping the rest', () => {
    const otherKey = new AdapterDataCipher(registry, new SecretCipher(randomBytes(32)));
    const column = otherKey.seal('kannel', KANNEL, { id: 7, id_user: 3 });

    const { password: _password, ...rest } = KANNEL;
    expect(secrets.open(stored({ adapter_data: column }))).toEqual({
      data: rest,
      unreadable: ['password'],
    });
  });

  it('counts a secret stored in clear as unreadable: it was never encrypted, or altered', () => {
    expect(secrets.open(stored({ adapter_data: JSON.stringify(KANNEL) })).unreadable).toEqual([
      'password',
    ]);
  });

  it('reads no data from a column that is not a JSON object', () => {
    for (const column of [null, '[]', 'not json', '"text"']) {
      expect(secrets.open(stored({ adapter_data: column }))).toEqual({ data: {}, unreadable: [] });
    }
  });

  it('shows listings the data without secret fields, nothing for adapters that hide it', () => {
    const gammu = secrets.seal(
      'gammu',
      { config_file: '/etc/gammurc', pin: '1234' },
      stored({
        adapter_data: null,
      }),
    );

    expect(secrets.visible({ adapter: 'gammu', adapter_data: gammu })).toBe(
      '{"config_file":"/etc/gammurc"}',
    );
    expect(secrets.visible({ adapter: 'test', adapter_data: '{"delivery":"failed"}' })).toBe(
      '{"delivery":"failed"}',
    );
    expect(secrets.visible({ adapter: 'benchmark', adapter_data: '[]' })).toBe('[]');
    expect(secrets.visible({ adapter: 'kannel', adapter_data: '{}' })).toBeUndefined();
    expect(secrets.visible({ adapter: 'carrier_pigeon', adapter_data: '{}' })).toBeUndefined();
  });
});

/**
 * Adapters added after the migration: no phone of theirs can have been stored before it, when
 * smsgw refused their names, so none holds a credential in clear.
 */
const ADDED_AFTER_THE_MIGRATION = new Set([
  'sms_gateway_android',
  'octopush_shortcode',
  'octopush_virtual_number',
  'odyssey_messaging',
  'vonage',
  'telnyx',
]);

describe('the migration that encrypts stored credentials', () => {
  it('covers the secret fields of every adapter as the descriptors flag them', () => {
    const flagged = Object.fromEntries(
      registry.adapters
        .filter(({ descriptor }) => !ADDED_AFTER_THE_MIGRATION.has(descriptor.id))
        .map(({ descriptor }) => [descriptor.id, registry.secretFields(descriptor.id)] as const)
        .filter(([, fields]) => fields.length > 0),
    );

    expect(flagged).toEqual(ENCRYPTED_FIELDS);
  });

  describe('shown (what get_phone answers)', () => {
    it("gives the non-secret fields' values and names the secrets set, never their values", () => {
      const column = secrets.seal('kannel', { ...KANNEL, smsc: 'orange' }, { id: 7, id_user: 3 });

      const shown = secrets.shown(stored({ adapter_data: column }));

      const { password: _password, ...visible } = KANNEL;
      expect(shown).toEqual({
        data: { ...visible, smsc: 'orange' },
        secretsSet: ['password'],
        unreadable: [],
      });
      expect(JSON.stringify(shown)).not.toContain('p4ss');
    });

    it('does not count an optional secret stored empty as set', () => {
      const column = secrets.seal(
        'gammu',
        { config_file: '/etc/gammurc', pin: '' },
        stored({
          adapter_data: null,
        }),
      );

      expect(secrets.shown(stored({ adapter: 'gammu', adapter_data: column }))).toEqual({
        data: { config_file: '/etc/gammurc' },
        secretsSet: [],
        unreadable: [],
      });
    });

    it('names a secret that does not decrypt, and leaves out fields the descriptor lacks', () => {
      const data = { ...KANNEL, password: 'enc:v1:from:elsewhere', legacy: 'kept hidden' };

      expect(secrets.shown(stored({ adapter_data: JSON.stringify(data) }))).toEqual({
        data: { kannel_sendsms_url: KANNEL.kannel_sendsms_url, username: 'smsgw', from: 'smsgw' },
        secretsSet: [],
        unreadable: ['password'],
      });
    });

    it("shows nothing of an unknown adapter's data", () => {
      const data = JSON.stringify({ login: 'me', password: 'p4ss' });

      expect(secrets.shown(stored({ adapter: 'gone', adapter_data: data }))).toEqual({
        data: {},
        secretsSet: [],
        unreadable: [],
      });
    });
  });
});
