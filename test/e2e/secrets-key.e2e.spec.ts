import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { migrate } from '../../src/database/data-source';
import { openTestDataSource } from '../support/app';
import { Exited, requireBuild, runBuilt, startBuiltApp } from '../support/built-app';
import { describeEachDatabase, TestDatabase } from '../support/databases';
import { makePhone, makeUser } from '../support/factories';

/*
 * The key of the stored credentials belongs with the database: a process started with another
 * key refuses to start, in one line naming SECRETS_KEY, rather than write what the others cannot
 * read; `smsgw secrets reset-key --confirm` gives up a lost key.
 */

const ROOT = join(__dirname, '..', '..');
const OTHER_KEY = '5a'.repeat(32);
const REFUSAL =
  "SECRETS_KEY is not the key this database's provider credentials were encrypted with: set " +
  'SECRETS_KEY to that key (restore it from the backup made with the database), or, if it is ' +
  "lost, run `smsgw secrets reset-key --confirm` and enter the phones' credentials again.";

/** Runs the real `smsgw` bin. */
function smsgw(args: string[], env: Record<string, string>): Promise<Exited> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, 'bin', 'smsgw.js'), ...args],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: 30_000 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}

describeEachDatabase('the secrets key a database was encrypted with', (database) => {
  let phoneId: number;
  const env = (db: TestDatabase, extra: Record<string, string> = {}) => ({
    DATABASE_URL: db.url,
    DATA_DIR: db.dataDir,
    LOG_LEVEL: 'info',
    ...extra,
  });

  beforeAll(async () => {
    requireBuild();
    // Migrated with the key the first process made in DATA_DIR, with a phone's password.
    const ds = await openTestDataSource(database());
    await migrate(ds);
    const { user } = await makeUser(ds);
    phoneId = (
      await makePhone(ds, user.id, {
        adapter: 'kannel',
        adapter_data: JSON.stringify({ username: 'smsgw', password: 'pw', from: 'x' }),
      })
    ).id;
    await ds.destroy();
  });

  it.each([
    ['the API', 'main.js', 'smsgw could not start: '],
    ['the worker', 'worker.js', 'The smsgw worker could not start: '],
  ])(
    'stops %s started with another key, in one line naming SECRETS_KEY',
    async (_, script, prefix) => {
      const run = await runBuilt(
        script,
        env(database(), { SECRETS_KEY: OTHER_KEY }),
        database().dataDir,
      );

      expect(run).toEqual({ code: 1, stdout: '', stderr: `${prefix}${REFUSAL}\n` });
    },
  );

  it('stops the CLI with another key, in one line', async () => {
    const run = await smsgw(['user', 'list'], env(database(), { SECRETS_KEY: OTHER_KEY }));

    expect(run).toEqual({ code: 1, stdout: '', stderr: `smsgw: ${REFUSAL}\n` });
  });

  it('gives up a lost key only when told to, and lists the phones to enter again', async () => {
    const unconfirmed = await smsgw(
      ['secrets', 'reset-key'],
      env(database(), { SECRETS_KEY: OTHER_KEY }),
    );
    expect(unconfirmed.code).toBe(1);
    expect(unconfirmed.stderr).toBe(
      "smsgw: this gives up the key the phones' credentials were encrypted with: they will " +
        'have to be entered again. Run it again with --confirm if that key is lost.\n',
    );

    const reset = await smsgw(
      ['secrets', 'reset-key', '--confirm'],
      env(database(), { SECRETS_KEY: OTHER_KEY }),
    );

    expect({ code: reset.code, stderr: reset.stderr }).toEqual({ code: 0, stderr: '' });
    expect(JSON.parse(reset.stdout)).toEqual({
      key_replaced: true,
      phones_to_update: [
        {
          id: phoneId,
          id_user: expect.any(Number),
          name: expect.any(String),
          adapter: 'kannel',
          fields: ['password'],
        },
      ],
    });
    // The new key is the database's now; the old one is refused in its turn.
    const app = await startBuiltApp(
      env(database(), { SECRETS_KEY: OTHER_KEY }),
      database().dataDir,
    );
    await app.stop();
    const old = await smsgw(['user', 'list'], env(database()));
    expect(old.stderr).toMatch(
      /^smsgw: The key in .*secrets\.key \(SECRETS_KEY is unset\) is not the key/,
    );
  }, 60_000);
});
