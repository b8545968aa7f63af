import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeServer, sendJson, startFakeServer } from '../support/adapters.factories';
import { BuiltApp, requireBuild, startBuiltApp } from '../support/built-app';
import { createTestDatabase, TestDatabase } from '../support/databases';
import { DocExample, difference, readExamples, readPattern } from '../support/doc-examples';
import { FakeSmsc } from '../support/fake-smsc';

/*
 * The examples of README.md and docs/*.md, run in file order as a reader would run them: the
 * built server on a fresh SQLite database, the user made with the CLI, each command in bash with
 * the real curl, and each answer compared with the one the docs show (README, "Examples are
 * tests", says how they are written and matched). Providers and webhook receivers are local
 * fakes that take only the credentials the docs show; the docs' host names are replaced by
 * theirs in the commands, and back in the answers (`hosts`). The server keeps the default
 * outbound policy, which lets users reach loopback addresses, so the fakes on 127.0.0.1 pass it.
 */

const ROOT = join(__dirname, '..', '..');
const CURL = '/usr/bin/curl';

/** The credentials the README's phones show: the fakes refuse any other. */
const TWILIO = {
  sid: 'AC8f3e5b2c9d1a4e6f7b8c9d0e1f2a3b4c',
  token: '9f8e7d6c5b4a39281716151413121110',
  number: '+15017122661',
};
const KANNEL = { username: 'smsgw', password: 'k4nn3l-s3cr3t' };
const SMPP = { systemId: 'acme', password: 'pw4acme' };

/** How long a GET whose answer waits on the worker is tried again. */
const SETTLE_MS = 5_000;

/** Twilio's REST API for the README's account: its number, its status, messages accepted. */
function twilioFake(): Promise<FakeServer> {
  const expected = `Basic ${Buffer.from(`${TWILIO.sid}:${TWILIO.token}`).toString('base64')}`;
  return startFakeServer((request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    if (request.headers.authorization !== expected) {
      sendJson(response, 401, { code: 20003, message: 'Authenticate', status: 401 });
    } else if (url.pathname === `/2010-04-01/Accounts/${TWILIO.sid}/IncomingPhoneNumbers.json`) {
      const asked = url.searchParams.get('PhoneNumber');
      sendJson(response, 200, {
        incoming_phone_numbers: asked === TWILIO.number ? [{ phone_number: TWILIO.number }] : [],
      });
    } else if (url.pathname === `/2010-04-01/Accounts/${TWILIO.sid}.json`) {
      sendJson(response, 200, { status: 'active' });
    } else if (request.method === 'POST' && url.pathname.endsWith('/Messages.json')) {
      sendJson(response, 201, { sid: 'SM0123456789abcdef0123456789abcdef', status: 'queued' });
    } else {
      sendJson(response, 404, { code: 20404, message: 'not found', status: 404 });
    }
  });
}

/** A Kannel smsbox: 403 for other credentials; without a receiver, 400 ("Missing receiver"). */
function kannelFake(): Promise<FakeServer> {
  return startFakeServer((request, response) => {
    const query = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams;
    const known =
      query.get('username') === KANNEL.username && query.get('password') === KANNEL.password;
    const status = !known ? 403 : query.get('to') ? 202 : 400;
    response.writeHead(status, { 'Content-Type': 'text/plain' });
    response.end(
      { 202: '0: Accepted for delivery', 400: 'Missing receiver', 403: 'Authorization failed' }[
        status
      ],
    );
  });
}

interface Run {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * Runs `command` in bash with `env`: `curl` is the system's, and `npx smsgw` this checkout's
 * CLI (npx itself would take seconds to find it).
 */
function bash(command: string, env: Record<string, string>, cwd: string): Promise<Run> {
  const script = [
    'set -o pipefail',
    'npx() { if [ "$1" = smsgw ]; then shift; "$NODE" "$SMSGW_BIN" "$@"; else echo "the examples run only npx smsgw" >&2; return 127; fi; }',
    command,
  ].join('\n');
  return new Promise((resolve) => {
    execFile(
      '/bin/bash',
      ['-c', script],
      { cwd, env, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

/** Whether curl sends `command` as a GET, which may be sent again. */
function isGet(command: string): boolean {
  return (
    command.trim().startsWith('curl') &&
    (/\s-G\s/.test(command) || !/\s(-d|--data[\w-]*|-F|--form|-X)\s/.test(command))
  );
}

const FILES = [
  'README.md',
  ...readdirSync(join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
const EXAMPLES: DocExample[] = FILES.flatMap((file) => readExamples(join(ROOT, file), file));

describe('the examples of README.md and docs/*.md, run in order against the built server', () => {
  let database: TestDatabase;
  let workDir: string;
  let app: BuiltApp;
  let twilio: FakeServer;
  let kannel: FakeServer;
  let hooks: FakeServer;
  const smsc = new FakeSmsc();
  let smscPort = 0;
  let key = '';
  /** The docs' destinations, and the fakes' that replace them when the examples run. */
  let hosts: Array<[string, string]> = [];

  beforeAll(async () => {
    if (!existsSync(CURL)) {
      throw new Error(`curl is needed at ${CURL} to run the documentation's examples.`);
    }
    requireBuild();
    smsc.systemId = SMPP.systemId;
    smsc.password = SMPP.password;
    [twilio, kannel, hooks, smscPort] = await Promise.all([
      twilioFake(),
      kannelFake(),
      startFakeServer((_request, response) => {
        response.end('ok');
      }),
      smsc.start(),
    ]);
    hosts = [
      ['https://kannel.example.com/cgi-bin/sendsms', `${kannel.url}/cgi-bin/sendsms`],
      ['https://hooks.example.com', hooks.url],
      ['adapter_data[host]=smpp.example.com', 'adapter_data[host]=127.0.0.1'],
      ['adapter_data[port]=2775', `adapter_data[port]=${smscPort}`],
    ];
    database = await createTestDatabase('sqlite');
    workDir = mkdtempSync(join(tmpdir(), 'smsgw-examples-'));
    app = await startBuiltApp(
      {
        DATABASE_URL: database.url,
        DATA_DIR: database.dataDir,
        LOG_LEVEL: 'warn',
        DISPATCH_POLL_MS: '50',
        TWILIO_API_URL: twilio.url,
      },
      database.dataDir,
    );
  }, 60_000);

  afterAll(async () => {
    await app?.stop();
    await Promise.all([twilio?.close(), kannel?.close(), hooks?.close(), smsc.stop()]);
    await database?.drop();
    if (workDir) {
      rmSync(workDir, { recursive: true, force: true });
    }
  });

  it('finds the examples, the README first steps and a phone of each adapter shown among them', () => {
    const commands = EXAMPLES.map((example) => example.command);
    expect(commands[0]).toBe('npx smsgw user create --email you@example.com');
    for (const adapter of ['test', 'twilio', 'kannel', 'smpp']) {
      expect(commands.some((command) => command.includes(`-d adapter=${adapter} `))).toBe(true);
    }
  });

  const toLocal = (text: string) =>
    hosts.reduce((result, [shown, local]) => result.split(shown).join(local), text);
  const toShown = (text: string) =>
    hosts.reduce((result, [shown, local]) => result.split(local).join(shown), text);

  for (const example of EXAMPLES) {
    const title = example.command.split('\n')[0].replace(/\s*\\$/, '');
    it(`${example.file}:${example.line} ${title}`, async () => {
      const where = `${example.file}:${example.line}`;
      if (!example.answer && example.command.trim().startsWith('curl')) {
        throw new Error(`${where}: the example shows no answer under its curl command.`);
      }
      const env = {
        PATH: `/usr/bin:/bin`,
        NODE: process.execPath,
        SMSGW_BIN: join(ROOT, 'bin', 'smsgw.js'),
        DATABASE_URL: database.url,
        DATA_DIR: database.dataDir,
        API: app.url,
        KEY: key,
      };
      const deadline = Date.now() + (isGet(example.command) ? SETTLE_MS : 0);
      for (;;) {
        const run = await bash(toLocal(example.command), env, workDir);
        if (run.code !== 0) {
          throw new Error(
            `${where}: the command exited with code ${run.code}.\n${example.command}\n${run.stderr}`,
          );
        }
        const output = toShown(run.stdout).trim();
        let actual: unknown;
        try {
          actual = JSON.parse(output) as unknown;
        } catch {
          actual = undefined;
        }
        if (!key && example.command.includes('smsgw user create')) {
          const printed = (actual as { api_key?: unknown } | undefined)?.api_key;
          key = typeof printed === 'string' ? printed : '';
        }
        if (!example.answer) {
          return;
        }
        const shown = example.answer;
        const why =
          actual === undefined
            ? 'the answer is not JSON'
            : difference(readPattern(shown.text), actual);
        if (!why) {
          return;
        }
        if (Date.now() >= deadline) {
          throw new Error(
            `${where}: the answer differs from the one shown at ${example.file}:${shown.line}: ${why}\n` +
              `command:\n${example.command}\nshown:\n${shown.text}\ngot:\n${output}`,
          );
        }
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
    });
  }
});
