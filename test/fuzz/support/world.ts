import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { AppConfig } from '../../../src/config/configuration';
import { validateEnvironment } from '../../../src/config/env.validation';
import { secretCipher } from '../../../src/common/secrets/secrets-key';
import { openDataSource } from '../../../src/database/data-source';
import {
  makeConditionalGroup,
  makeContact,
  makeGroup,
  makePhoneGroup,
  makeReceived,
  makeSended,
} from '../../support/factories';
import { PNG } from '../../support/scheduled.factories';
import { multipart } from './params';
import { Providers } from './providers';
import { ROOT } from './server';
import { sendHttp } from './wire';

/*
 * What exists before the first generated request: users made by the CLI (one active, one
 * suspended, another active one whose entries the first must not reach), and entries of each
 * type for both active users, so that generated ids hit real rows as well as missing ones.
 */

export const KEYS = {
  main: 'f0220000000000000000000000000001',
  suspended: 'f0220000000000000000000000000002',
  other: 'f0220000000000000000000000000003',
  /** Well-formed, but nobody's. */
  unknown: 'f0220000000000000000000000000004',
};

/**
 * The one user with a password, for the console's sessions. Its key is not among KEYS, so that
 * the other families do not spend it; its e-mail is not among those the sign-in family fails
 * with, so that the brute-force limit of an e-mail never locks it.
 */
export const CONSOLE_USER = {
  email: 'console@example.test',
  key: 'f0220000000000000000000000000005',
  password: 'fuzz console passphrase 7',
};

export interface Ids {
  phone: number[];
  scheduled: number[];
  contact: number[];
  group: number[];
  conditionalGroup: number[];
  phoneGroup: number[];
  sended: number[];
  received: number[];
  webhook: number[];
}

export interface World {
  port: () => number;
  users: { main: number; suspended: number; other: number };
  /** The main user's entries, and the other user's (which the main user must not reach). */
  own: Ids;
  foreign: Ids;
  /** `uid`s of sent entries, for delivery receipts. */
  uids: string[];
  /** `user/file` of stored medias. */
  medias: string[];
  providers: Providers;
  /** Values the server must never write to its log nor give to another request. */
  secrets: Set<string>;
}

interface PrintedUser {
  id: number;
}

/** `smsgw user create` as an operator runs it, against the server's database. */
function createUser(
  env: Record<string, string>,
  cwd: string,
  email: string,
  key: string,
  status: string,
  password?: string,
) {
  return new Promise<PrintedUser>((resolve, reject) => {
    const child = execFile(
      process.execPath,
      [
        join(ROOT, 'bin', 'smsgw.js'),
        'user',
        'create',
        '--email',
        email,
        '--api-key',
        key,
        '--status',
        status,
        ...(password === undefined ? [] : ['--password-stdin']),
      ],
      { cwd, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 60_000 },
      (error, stdout, stderr) => {
        if (error) {
          reject(new Error(`smsgw user create failed: ${stderr || error.message}`));
        } else {
          resolve(JSON.parse(stdout) as PrintedUser);
        }
      },
    );
    child.stdin?.end(password === undefined ? '' : `${password}\n`);
  });
}

export async function createUsers(
  env: Record<string, string>,
  cwd: string,
): Promise<World['users']> {
  const main = await createUser(env, cwd, 'fuzz@example.test', KEYS.main, 'active');
  const suspended = await createUser(
    env,
    cwd,
    'suspended@example.test',
    KEYS.suspended,
    'suspended',
  );
  const other = await createUser(env, cwd, 'other@example.test', KEYS.other, 'active');
  await createUser(env, cwd, CONSOLE_USER.email, CONSOLE_USER.key, 'active', CONSOLE_USER.password);
  return { main: main.id, suspended: suspended.id, other: other.id };
}

/** A request through the API that must succeed; its `response`. */
async function call(
  port: number,
  method: string,
  path: string,
  key: string,
  body?: { type: string; data: Buffer },
): Promise<unknown> {
  const answer = await sendHttp(
    port,
    {
      kind: 'http',
      method,
      path: `${path}${path.includes('?') ? '&' : '?'}api_key=${key}`,
      headers: body ? [['Content-Type', body.type]] : [],
      body: body?.data ?? null,
    },
    30_000,
  );
  const text = answer.body.toString('utf8');
  if (!answer.status || answer.status >= 300) {
    throw new Error(`Setting up the fuzz: ${method} ${path} answered ${answer.status}: ${text}`);
  }
  return (JSON.parse(text) as { response: unknown }).response;
}

const json = (value: unknown) => ({
  type: 'application/json',
  data: Buffer.from(JSON.stringify(value)),
});

async function apiEntries(
  port: number,
  key: string,
  suffix: string,
): Promise<Pick<Ids, 'phone' | 'scheduled' | 'webhook'>> {
  const phone: number[] = [];
  const scheduled: number[] = [];
  const webhook = [
    (await call(
      port,
      'POST',
      '/api/webhook/',
      key,
      json({ url: 'https://203.0.113.10/fuzz', type: 'receive_sms' }),
    )) as number,
  ];
  for (let i = 1; i <= 3; i++) {
    phone.push(
      (await call(
        port,
        'POST',
        '/api/phone/',
        key,
        json({ name: `fuzz ${suffix} ${i}`, adapter: 'test' }),
      )) as number,
    );
    scheduled.push(
      (await call(
        port,
        'POST',
        '/api/scheduled/',
        key,
        json({
          text: 'Hello {{ contact.firstname }}',
          numbers: ['+33612345678'],
          at: '2099-01-01 00:00:00',
        }),
      )) as number,
    );
  }
  return { phone, scheduled, webhook };
}

export async function seedWorld(options: {
  port: () => number;
  env: Record<string, string>;
  dataDir: string;
  users: World['users'];
  providers: Providers;
}): Promise<World> {
  const { users } = options;
  const port = options.port();
  const own = await apiEntries(port, KEYS.main, 'own');
  const foreign = await apiEntries(port, KEYS.other, 'foreign');
  // A message with a media, so that the media route has a file to serve.
  const boundary = 'fuzzseedboundary';
  own.scheduled.push(
    (await call(port, 'POST', '/api/scheduled/', KEYS.main, {
      type: `multipart/form-data; boundary=${boundary}`,
      data: multipart(
        boundary,
        [
          ['text', 'With a picture'],
          ['numbers[]', '+33612345678'],
          ['at', '2099-01-01 00:00:00'],
          ['mms', '1'],
        ],
        [{ field: 'medias[]', filename: 'seed.png', type: 'image/png', content: PNG }],
      ),
    })) as number,
  );
  const config = new AppConfig(validateEnvironment({ ...options.env, LOG_LEVEL: 'silent' }));
  const ds = await openDataSource(config.database, secretCipher(config));
  const rest = async (userId: number) => {
    const contacts = [
      await makeContact(ds, userId),
      await makeContact(ds, userId, {
        number: '+447700900123',
        data: '{"firstname":"Ann","gender":"female"}',
      }),
    ];
    const group = await makeGroup(
      ds,
      userId,
      contacts.map(({ id }) => id),
    );
    const conditional = await makeConditionalGroup(ds, userId);
    return { contacts, group, conditional };
  };
  const ownRest = await rest(users.main);
  const foreignRest = await rest(users.other);
  const ownPhoneGroup = await makePhoneGroup(ds, users.main, own.phone.slice(0, 2));
  const foreignPhoneGroup = await makePhoneGroup(ds, users.other, foreign.phone.slice(0, 1));
  const uids: string[] = [];
  const ownSended: number[] = [];
  for (const phoneId of own.phone) {
    const sent = await makeSended(ds, users.main, { id_phone: phoneId });
    uids.push(sent.uid ?? '');
    ownSended.push(sent.id);
  }
  const foreignSended = [(await makeSended(ds, users.other, { id_phone: foreign.phone[0] })).id];
  const ownReceived = [(await makeReceived(ds, users.main, { id_phone: own.phone[0] })).id];
  const foreignReceived = [
    (await makeReceived(ds, users.other, { id_phone: foreign.phone[0] })).id,
  ];
  await ds.destroy();
  const medias = (
    (await call(port, 'GET', '/api/list/media/', KEYS.main)) as Array<{ path: string }>
  ).map(({ path }) => path);
  return {
    port: options.port,
    users,
    own: {
      ...own,
      contact: ownRest.contacts.map(({ id }) => id),
      group: [ownRest.group.id],
      conditionalGroup: [ownRest.conditional.id],
      phoneGroup: [ownPhoneGroup.id],
      sended: ownSended,
      received: ownReceived,
    },
    foreign: {
      ...foreign,
      contact: foreignRest.contacts.map(({ id }) => id),
      group: [foreignRest.group.id],
      conditionalGroup: [foreignRest.conditional.id],
      phoneGroup: [foreignPhoneGroup.id],
      sended: foreignSended,
      received: foreignReceived,
    },
    uids,
    medias,
    providers: options.providers,
    secrets: new Set([
      KEYS.main,
      KEYS.suspended,
      KEYS.other,
      CONSOLE_USER.key,
      CONSOLE_USER.password,
      options.providers.ovhData.app_secret,
      options.providers.ovhData.consumer_key,
    ]),
  };
}

/** Every id of both users, plus ids that exist nowhere. */
export function idPool(world: World, kind: keyof Ids): number[] {
  return [...world.own[kind], ...world.foreign[kind], 0, 999_999];
}
