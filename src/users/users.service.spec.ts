import { DataSource } from 'typeorm';
import { describeEachDatabase } from '../../test/support/databases';
import { hashApiKey } from '../common/auth/api-key';
import { AppConfig } from '../config/configuration';
import { secretCipher } from '../common/secrets/secrets-key';
import { validateEnvironment } from '../config/env.validation';
import { migrate, openDataSource } from '../database/data-source';
import { Setting } from './entities/setting.entity';
import { User } from './entities/user.entity';
import { DEFAULT_SETTINGS } from './settings';
import { UsersRepository } from './users.repository';
import { UserCommandError, UsersService } from './users.service';

const HEX_KEY = /^[0-9a-f]{32}$/;

describeEachDatabase('UsersService', (database) => {
  let dataSource: DataSource;
  let users: UsersService;
  let sequence = 0;
  const email = () => `someone${++sequence}@example.test`;

  beforeAll(async () => {
    const config = new AppConfig(
      validateEnvironment({ DATABASE_URL: database().url, DATA_DIR: database().dataDir }),
    );
    dataSource = await openDataSource(config.database, secretCipher(config));
    await migrate(dataSource);
    users = new UsersService(UsersRepository.on(dataSource));
  });
  afterAll(async () => {
    await dataSource?.destroy();
  });

  const storedUser = (id: number) => dataSource.getRepository(User).findOneByOrFail({ id });
  const storedSettings = async (id: number) =>
    Object.fromEntries(
      (await dataSource.getRepository(Setting).findBy({ id_user: id })).map((s) => [
        s.name,
        s.value,
      ]),
    );

  describe('create', () => {
    it('creates an active user with a random 32-hex key and returns it once', async () => {
      const address = email();

      const created = await users.create({ email: address });

      expect(created).toEqual({
        id: expect.any(Number),
        email: address,
        admin: false,
        status: 'active',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
        api_key: expect.stringMatching(HEX_KEY),
      });
    });

    it('stores the SHA-256 hash of the key, never the key itself', async () => {
      const created = await users.create({ email: email() });

      const row = await storedUser(created.id);
      expect(row.api_key_hash).toBe(hashApiKey(created.api_key));
      expect(JSON.stringify(row)).not.toContain(created.api_key);
    });

    it('stores the default settings of a new user', async () => {
      const created = await users.create({ email: email() });

      expect(await storedSettings(created.id)).toEqual(DEFAULT_SETTINGS);
    });

    it('uses the given key, admin flag and status', async () => {
      const apiKey = '0123456789abcdef0123456789abcdef';

      const created = await users.create({
        email: email(),
        apiKey,
        admin: true,
        status: 'suspended',
      });

      expect(created).toMatchObject({ api_key: apiKey, admin: true, status: 'suspended' });
      const row = await storedUser(created.id);
      expect(row).toMatchObject({ api_key_hash: hashApiKey(apiKey), status: 'suspended' });
      expect(Number(row.admin)).toBe(1);
    });

    it('trims the e-mail', async () => {
      const address = email();

      const created = await users.create({ email: `  ${address} ` });

      expect(created.email).toBe(address);
    });

    it('refuses an e-mail already used by another user with UserCommandError', async () => {
      const address = email();
      await users.create({ email: address });

      await expect(users.create({ email: address })).rejects.toThrow(
        new UserCommandError(`A user with the e-mail ${address} already exists.`),
      );
    });

    it('refuses a key already used by another user with UserCommandError', async () => {
      const apiKey = 'ffffffffffffffffffffffffffffffff';
      await users.create({ email: email(), apiKey });

      await expect(users.create({ email: email(), apiKey })).rejects.toThrow(
        new UserCommandError('This API key is already used by another user.'),
      );
    });

    it.each([
      ['too short', 'abc'],
      ['upper case', '0123456789ABCDEF0123456789ABCDEF'],
      ['not hex', 'g123456789abcdef0123456789abcdef'],
      ['too long', '0123456789abcdef0123456789abcdef0'],
    ])('refuses a malformed key (%s) with UserCommandError', async (_case, apiKey) => {
      await expect(users.create({ email: email(), apiKey })).rejects.toThrow(UserCommandError);
    });

    it.each(['', 'not-an-address', 'two words@example.test', `${'a'.repeat(150)}@x.y`])(
      'refuses the e-mail %j with UserCommandError',
      async (address) => {
        await expect(users.create({ email: address })).rejects.toThrow(UserCommandError);
      },
    );

    it('refuses a status other than active or suspended, creating nothing', async () => {
      const address = email();

      await expect(users.create({ email: address, status: 'deleted' })).rejects.toThrow(
        new UserCommandError('Status must be one of active, suspended, not "deleted".'),
      );
      expect(await dataSource.getRepository(User).findOneBy({ email: address })).toBeNull();
    });
  });

  describe('resolve', () => {
    it('finds the user of a key with their settings merged over the defaults', async () => {
      const created = await users.create({ email: email() });
      await users.setSetting(created.email, 'mms', '0');
      // A user created before a setting existed gets its default.
      await dataSource.getRepository(Setting).delete({ id_user: created.id, name: 'webhook' });

      const resolved = await users.resolve(created.api_key);

      expect(resolved).toEqual({
        id: created.id,
        email: created.email,
        admin: false,
        apiKey: created.api_key,
        settings: { ...DEFAULT_SETTINGS, mms: '0' },
        active: true,
      });
    });

    it('accepts the key in upper case, as RaspiSMS did', async () => {
      const created = await users.create({ email: email() });

      const resolved = await users.resolve(created.api_key.toUpperCase());

      expect(resolved?.id).toBe(created.id);
    });

    it.each([
      ['an unknown key', '00000000000000000000000000000000'],
      ['a malformed key', 'not a key'],
      ['an empty key', ''],
    ])('gives null for %s', async (_case, apiKey) => {
      expect(await users.resolve(apiKey)).toBeNull();
    });

    it('marks a suspended user as not active', async () => {
      const created = await users.create({ email: email(), status: 'suspended' });

      expect(await users.resolve(created.api_key)).toMatchObject({
        id: created.id,
        active: false,
      });
    });

    it('tells an admin apart', async () => {
      const created = await users.create({ email: email(), admin: true });

      expect((await users.resolve(created.api_key))?.admin).toBe(true);
    });
  });

  describe('list', () => {
    it('lists users by id without keys or hashes', async () => {
      const first = await users.create({ email: email() });
      const second = await users.create({ email: email() });

      const listed = await users.list();

      const ids = listed.map((user) => user.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(listed).toContainEqual({
        id: second.id,
        email: second.email,
        admin: false,
        status: 'active',
        created_at: second.created_at,
      });
      const text = JSON.stringify(listed);
      expect(text).not.toContain(first.api_key);
      expect(text).not.toContain(hashApiKey(first.api_key));
      expect(text).not.toContain('api_key');
    });
  });

  describe('setStatus', () => {
    it('suspends a user and makes them active again', async () => {
      const created = await users.create({ email: email() });

      expect(await users.setStatus(created.email, 'suspended')).toMatchObject({
        id: created.id,
        status: 'suspended',
      });
      expect((await users.resolve(created.api_key))?.active).toBe(false);
      const row = await storedUser(created.id);
      expect(row.status).toBe('suspended');
      expect(row.updated_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);

      await users.setStatus(created.email, 'active');
      expect((await users.resolve(created.api_key))?.active).toBe(true);
    });

    it('refuses an unknown status, leaving the user as it was', async () => {
      const created = await users.create({ email: email() });

      await expect(users.setStatus(created.email, 'banned')).rejects.toThrow(UserCommandError);
      expect((await storedUser(created.id)).status).toBe('active');
    });

    it('refuses an unknown e-mail with UserCommandError', async () => {
      await expect(users.setStatus('nobody@example.test', 'active')).rejects.toThrow(
        new UserCommandError('No user has the e-mail nobody@example.test.'),
      );
    });
  });

  describe('rotateKey', () => {
    it('gives a new key; the old one stops resolving and the new one resolves', async () => {
      const created = await users.create({ email: email() });

      const rotated = await users.rotateKey(created.email);

      expect(rotated.api_key).toMatch(HEX_KEY);
      expect(rotated.api_key).not.toBe(created.api_key);
      expect(rotated).toMatchObject({ id: created.id, email: created.email });
      expect(await users.resolve(created.api_key)).toBeNull();
      expect((await users.resolve(rotated.api_key))?.id).toBe(created.id);
      expect((await storedUser(created.id)).api_key_hash).toBe(hashApiKey(rotated.api_key));
    });

    it('refuses an unknown e-mail with UserCommandError', async () => {
      await expect(users.rotateKey('nobody@example.test')).rejects.toThrow(UserCommandError);
    });
  });

  describe('setSetting', () => {
    it('updates a stored setting in place', async () => {
      const created = await users.create({ email: email() });

      const settings = await users.setSetting(created.email, 'phone_limit', '1');

      expect(settings).toEqual({ ...DEFAULT_SETTINGS, phone_limit: '1' });
      const rows = await dataSource
        .getRepository(Setting)
        .findBy({ id_user: created.id, name: 'phone_limit' });
      expect(rows.map((row) => row.value)).toEqual(['1']);
    });

    it('creates a setting the user does not have yet, then updates it', async () => {
      const created = await users.create({ email: email() });
      await dataSource.getRepository(Setting).delete({ id_user: created.id, name: 'webhook' });

      await users.setSetting(created.email, 'webhook', '0');
      const settings = await users.setSetting(created.email, 'webhook', '1');

      expect(settings).toEqual({ ...DEFAULT_SETTINGS, webhook: '1' });
      const rows = await dataSource
        .getRepository(Setting)
        .findBy({ id_user: created.id, name: 'webhook' });
      expect(rows.map((row) => row.value)).toEqual(['1']);
    });

    it('stores a default country lowercase', async () => {
      const created = await users.create({ email: email() });

      const settings = await users.setSetting(created.email, 'default_phone_country', 'FR');

      expect(settings.default_phone_country).toBe('fr');
    });

    it("changes only that user's setting", async () => {
      const changed = await users.create({ email: email() });
      const other = await users.create({ email: email() });

      await users.setSetting(changed.email, 'templating', '0');

      expect((await users.settings(other.email)).templating).toBe('1');
    });

    it.each(['Bad-Name', '', 'with space', 'x'.repeat(51), 'custom_flag', '__proto__'])(
      'refuses the setting name %j with UserCommandError',
      async (name) => {
        const created = await users.create({ email: email() });

        await expect(users.setSetting(created.email, name, '1')).rejects.toThrow(UserCommandError);
      },
    );

    it.each([
      ['mms', '2'],
      ['templating', 'true'],
      ['default_phone_country', 'france'],
      ['default_phone_country', 'zz'],
      ['smsstop_response', ''],
    ])('refuses %s = %j, as the API does, with UserCommandError', async (name, value) => {
      const created = await users.create({ email: email() });

      await expect(users.setSetting(created.email, name, value)).rejects.toThrow(UserCommandError);
    });

    it('refuses a value over 1000 characters', async () => {
      const created = await users.create({ email: email() });

      await expect(
        users.setSetting(created.email, 'smsstop_response', 'x'.repeat(1001)),
      ).rejects.toThrow(UserCommandError);
    });

    it('refuses an unknown e-mail with UserCommandError', async () => {
      await expect(users.setSetting('nobody@example.test', 'mms', '0')).rejects.toThrow(
        UserCommandError,
      );
    });
  });

  describe('settings', () => {
    it('lists the defaults a user has not changed along with the changed ones', async () => {
      const created = await users.create({ email: email() });
      await dataSource.getRepository(Setting).delete({ id_user: created.id });
      await users.setSetting(created.email, 'default_phone_country', 'fr');

      expect(await users.settings(created.email)).toEqual({
        ...DEFAULT_SETTINGS,
        default_phone_country: 'fr',
      });
    });

    it('refuses an unknown e-mail with UserCommandError', async () => {
      await expect(users.settings('nobody@example.test')).rejects.toThrow(UserCommandError);
    });
  });
});
