import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Reflector } from '@nestjs/core';
import { ExecutionContextHost } from '@nestjs/core/helpers/execution-context-host';
import { DataSource } from 'typeorm';
import { migrate, openDataSource } from '../../database/data-source';
import { secretCipher } from '../secrets/secrets-key';
import { User } from '../../users/entities/user.entity';
import { DEFAULT_SETTINGS } from '../../users/settings';
import { UsersRepository } from '../../users/users.repository';
import { UsersService } from '../../users/users.service';
import { ApiError, ErrorCode, INVALID_CREDENTIALS_MESSAGE } from '../errors/api-error';
import { ApiRequest, AuthenticatedUser } from '../http/request';
import { ApiKeyGuard, ApiKeyResolver } from './api-key.guard';
import { hashApiKey } from './api-key';
import { Public } from './public.decorator';
import { ResolvedSession, SessionResolver } from './session';

/** The real UsersService, noting which keys the guard asked it about. */
class RecordingResolver extends ApiKeyResolver {
  readonly asked: string[] = [];

  constructor(private readonly users: UsersService) {
    super();
  }

  resolve(apiKey: string): Promise<(AuthenticatedUser & { active: boolean }) | null> {
    this.asked.push(apiKey);
    return this.users.resolve(apiKey);
  }
}

/** No session exists: these tests are about keys. */
class NoSessions extends SessionResolver {
  resolve(): Promise<ResolvedSession | null> {
    return Promise.resolve(null);
  }
  end(): Promise<void> {
    return Promise.resolve();
  }
}

class ListController {
  list(): void {}

  @Public()
  callback(): void {}
}

interface RequestParts {
  method?: string;
  query?: Record<string, unknown>;
  body?: unknown;
  headers?: Record<string, string | string[]>;
}

function plainRequest(parts: RequestParts): ApiRequest {
  return {
    method: parts.method ?? 'POST',
    query: parts.query ?? {},
    body: parts.body,
    headers: parts.headers ?? {},
  } as ApiRequest;
}

function contextFor(request: ApiRequest, handler: 'list' | 'callback' = 'list') {
  return new ExecutionContextHost(
    [request, {}, () => undefined],
    ListController,
    ListController.prototype[handler],
  );
}

describe('ApiKeyGuard and UsersService.resolve on a real SQLite database', () => {
  let folder: string;
  let dataSource: DataSource;
  let repository: UsersRepository;
  let users: UsersService;
  let resolver: RecordingResolver;
  let guard: ApiKeyGuard;
  let alice: { id: number; key: string };
  let bob: { id: number; key: string };
  let carol: { id: number; key: string };
  let suspended: { id: number; key: string };

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'smsgw-guard-'));
    dataSource = await openDataSource(
      { type: 'sqlite', path: join(folder, 'smsgw.sqlite') },
      secretCipher({ secretsKey: null, dataDir: folder }),
    );
    await migrate(dataSource);
    repository = UsersRepository.on(dataSource);
    users = new UsersService(repository);
    const make = async (email: string, status = 'active') => {
      const created = await users.create({ email, status });
      return { id: created.id, key: created.api_key };
    };
    alice = await make('alice@example.test');
    bob = await make('bob@example.test');
    carol = await make('carol@example.test');
    suspended = await make('suspended@example.test', 'suspended');
  });

  afterAll(async () => {
    await dataSource.destroy();
    rmSync(folder, { recursive: true, force: true });
  });

  beforeEach(() => {
    resolver = new RecordingResolver(users);
    guard = new ApiKeyGuard(new Reflector(), resolver, new NoSessions());
  });

  /** Runs the guard; gives the user it set, or the ApiError it threw. */
  async function authenticate(parts: RequestParts): Promise<AuthenticatedUser | ApiError> {
    const request = plainRequest(parts);
    try {
      expect(await guard.canActivate(contextFor(request))).toBe(true);
    } catch (error) {
      if (error instanceof ApiError) {
        return error;
      }
      throw error;
    }
    if (!request.user) {
      throw new Error('the guard let the request through without a user');
    }
    return request.user;
  }

  async function userIdFor(parts: RequestParts): Promise<number> {
    const outcome = await authenticate(parts);
    if (outcome instanceof ApiError) {
      throw new Error(`expected a user, got ${outcome.message}`);
    }
    return outcome.id;
  }

  async function errorFor(parts: RequestParts): Promise<ApiError> {
    const outcome = await authenticate(parts);
    if (!(outcome instanceof ApiError)) {
      throw new Error(`expected an ApiError, got user ${outcome.id}`);
    }
    return outcome;
  }

  describe('where the key is read (docs/api.md#authentication rule 1)', () => {
    it('uses the query api_key over the form field and the X-Api-Key header', async () => {
      const id = await userIdFor({
        query: { api_key: alice.key },
        body: { api_key: bob.key },
        headers: { 'x-api-key': carol.key },
      });

      expect(id).toBe(alice.id);
      expect(resolver.asked).toEqual([alice.key]);
    });

    it('uses the form field over the X-Api-Key header when the query has no key', async () => {
      const id = await userIdFor({
        body: { api_key: bob.key },
        headers: { 'x-api-key': carol.key },
      });

      expect(id).toBe(bob.id);
    });

    it('reads the form field of a urlencoded, multipart or JSON body alike (all parsed to an object)', async () => {
      // The body parser turns each of these bodies into a plain object of parameters.
      const urlencoded = Object.assign(Object.create(null) as object, { api_key: bob.key });
      const multipart = { api_key: bob.key, text: 'hello' };
      const json = { api_key: bob.key, numbers: ['+33612345678'] };

      for (const body of [urlencoded, multipart, json]) {
        expect(await userIdFor({ body })).toBe(bob.id);
      }
    });

    it('ignores a body api_key on GET, whose operations read the query string only', async () => {
      const error = await errorFor({ method: 'GET', body: { api_key: bob.key } });
      expect(error.code).toBe(ErrorCode.INVALID_CREDENTIALS);
      expect(
        await userIdFor({
          method: 'GET',
          body: { api_key: bob.key },
          headers: { 'x-api-key': carol.key },
        }),
      ).toBe(carol.id);
    });

    it('uses the X-Api-Key header when neither the query nor the body has a key', async () => {
      expect(await userIdFor({ headers: { 'x-api-key': carol.key } })).toBe(carol.id);
    });

    it('does not rescue a bad query key with a good form field or header', async () => {
      const error = await errorFor({
        query: { api_key: 'ffffffffffffffffffffffffffffffff' },
        body: { api_key: bob.key },
        headers: { 'x-api-key': carol.key },
      });

      expect(error.code).toBe(ErrorCode.INVALID_CREDENTIALS);
      expect(resolver.asked).toEqual(['ffffffffffffffffffffffffffffffff']);
    });

    it('does not rescue a bad form key with a good header', async () => {
      const error = await errorFor({
        body: { api_key: 'not-a-key' },
        headers: { 'x-api-key': carol.key },
      });

      expect(error.code).toBe(ErrorCode.INVALID_CREDENTIALS);
    });

    it('falls through an empty query key to the form field, and an empty form field to the header', async () => {
      expect(await userIdFor({ query: { api_key: '' }, body: { api_key: bob.key } })).toBe(bob.id);
      expect(
        await userIdFor({
          query: { api_key: '' },
          body: { api_key: '' },
          headers: { 'x-api-key': carol.key },
        }),
      ).toBe(carol.id);
    });

    it('falls through a JSON null api_key to the header', async () => {
      expect(
        await userIdFor({ body: { api_key: null }, headers: { 'x-api-key': carol.key } }),
      ).toBe(carol.id);
    });

    it('refuses a key given as a list, a map or a number, without trying the next source', async () => {
      for (const given of [[alice.key], { 0: alice.key }, 12345]) {
        const error = await errorFor({
          query: { api_key: given },
          headers: { 'x-api-key': carol.key },
        });
        expect(error.code).toBe(ErrorCode.INVALID_CREDENTIALS);
      }
      const fromBody = await errorFor({
        body: { api_key: [bob.key, bob.key] },
        headers: { 'x-api-key': carol.key },
      });
      expect(fromBody.code).toBe(ErrorCode.INVALID_CREDENTIALS);
    });

    it('ignores a body that is not an object of parameters', async () => {
      expect(
        await userIdFor({ body: `api_key=${bob.key}`, headers: { 'x-api-key': carol.key } }),
      ).toBe(carol.id);
    });
  });

  describe('who is let through (docs/api.md#authentication rules 3 and 4)', () => {
    it('refuses a request without any key with INVALID_CREDENTIALS (HTTP 401), asking no one', async () => {
      const error = await errorFor({});

      expect(error.code).toBe(ErrorCode.INVALID_CREDENTIALS);
      expect(error.message).toBe(INVALID_CREDENTIALS_MESSAGE);
      expect(resolver.asked).toEqual([]);
    });

    it.each([
      ['an unknown well-formed key', '0123456789abcdef0123456789abcdef'],
      ['a key too short', '0123456789abcdef'],
      ['a key too long', '0123456789abcdef0123456789abcdef0'],
      ['a key with non-hex characters', 'zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz'],
      ['a key with spaces around it', ' 0123456789abcdef0123456789abcdef '],
      ['SQL', "' OR 1=1 --"],
    ])('refuses %s with INVALID_CREDENTIALS', async (_what, key) => {
      const error = await errorFor({ headers: { 'x-api-key': key } });

      expect(error.code).toBe(ErrorCode.INVALID_CREDENTIALS);
    });

    it('refuses a suspended user with SUSPENDED_USER (HTTP 403), leaving request.user unset', async () => {
      const request = plainRequest({ query: { api_key: suspended.key } });

      const thrown = await guard.canActivate(contextFor(request)).catch((error: unknown) => error);

      expect(thrown).toBeInstanceOf(ApiError);
      expect((thrown as ApiError).code).toBe(ErrorCode.SUSPENDED_USER);
      expect((thrown as ApiError).message).toBe('This user account is currently suspended.');
      expect(request.user).toBeUndefined();
    });

    it('lets a suspended user back in once reactivated', async () => {
      const email = 'back@example.test';
      const created = await users.create({ email, status: 'suspended' });
      expect((await errorFor({ query: { api_key: created.api_key } })).code).toBe(
        ErrorCode.SUSPENDED_USER,
      );

      await users.setStatus(email, 'active');

      expect(await userIdFor({ query: { api_key: created.api_key } })).toBe(created.id);
    });

    it('accepts the uppercase version of a key (RaspiSMS compared keys case-insensitively)', async () => {
      expect(await userIdFor({ query: { api_key: alice.key.toUpperCase() } })).toBe(alice.id);
      expect(await userIdFor({ headers: { 'x-api-key': alice.key.toUpperCase() } })).toBe(alice.id);
    });

    it('lets a public route through without a key and without a user', async () => {
      const request = plainRequest({});

      expect(await guard.canActivate(contextFor(request, 'callback'))).toBe(true);
      expect(request.user).toBeUndefined();
      expect(resolver.asked).toEqual([]);
    });
  });

  describe('the user it sets on the request (docs/api.md#authentication rules 5 and 7)', () => {
    it('sets the user with the key as presented, for next/prev links, and without the status flag', async () => {
      const presented = alice.key.toUpperCase();

      const user = await authenticate({ headers: { 'x-api-key': presented } });

      expect(user).toEqual({
        id: alice.id,
        email: 'alice@example.test',
        admin: false,
        apiKey: presented,
        settings: DEFAULT_SETTINGS,
      });
    });

    it('loads the defaults for a user with no stored settings', async () => {
      const key = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
      await repository.create(
        { email: 'bare@example.test', api_key_hash: hashApiKey(key), admin: 1, status: 'active' },
        {},
      );

      const resolved = await users.resolve(key);

      expect(resolved?.settings).toEqual(DEFAULT_SETTINGS);
      expect(resolved?.admin).toBe(true);
      expect(resolved?.active).toBe(true);
    });

    it('merges stored settings over the defaults, keeping settings the defaults do not know', async () => {
      const key = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
      await repository.create(
        { email: 'custom@example.test', api_key_hash: hashApiKey(key), admin: 0, status: 'active' },
        { mms: '0', phone_limit: '1', default_phone_country: 'fr', custom: 'x' },
      );

      const resolved = await users.resolve(key);

      expect(resolved?.settings).toEqual({
        ...DEFAULT_SETTINGS,
        mms: '0',
        phone_limit: '1',
        default_phone_country: 'fr',
        custom: 'x',
      });
    });

    it('sees a setting changed after the user was created', async () => {
      await users.setSetting('carol@example.test', 'phone_limit', '1');

      const user = await authenticate({ query: { api_key: carol.key } });

      expect((user as AuthenticatedUser).settings.phone_limit).toBe('1');
      expect((user as AuthenticatedUser).settings.mms).toBe('1');
    });

    it('reports a suspended user as not active rather than as unknown', async () => {
      const resolved = await users.resolve(suspended.key);

      expect(resolved?.id).toBe(suspended.id);
      expect(resolved?.active).toBe(false);
    });
  });

  describe('how keys are stored (docs/api-choices.md#api-keys)', () => {
    it('stores only the SHA-256 hash of a key, never the key itself', async () => {
      const rows: Array<Record<string, unknown>> = await dataSource.query('SELECT * FROM user');
      const row = rows.find((candidate) => candidate.id === alice.id);

      expect(row?.api_key_hash).toBe(hashApiKey(alice.key));
      expect(row?.api_key_hash).toMatch(/^[0-9a-f]{64}$/);
      expect(Object.keys(row ?? {})).not.toContain('api_key');
      for (const stored of rows) {
        for (const value of Object.values(stored)) {
          expect(String(value).toLowerCase()).not.toContain(alice.key);
        }
      }
      const settings: Array<Record<string, unknown>> =
        await dataSource.query('SELECT * FROM setting');
      expect(JSON.stringify(settings)).not.toContain(alice.key);
    });

    it('finds no user after the key is rotated, and the new key works', async () => {
      const email = 'rotate@example.test';
      const created = await users.create({ email });

      const rotated = await users.rotateKey(email);

      expect(rotated.api_key).not.toBe(created.api_key);
      expect(await users.resolve(created.api_key)).toBeNull();
      expect((await users.resolve(rotated.api_key))?.id).toBe(created.id);
      const stored = await dataSource.getRepository(User).findOneByOrFail({ id: created.id });
      expect(stored.api_key_hash).toBe(hashApiKey(rotated.api_key));
    });
  });
});
