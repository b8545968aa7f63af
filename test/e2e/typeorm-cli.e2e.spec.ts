import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { MIGRATIONS } from '../../src/database/data-source';
import { describeEachDatabase } from '../support/databases';

/*
 * The TypeORM CLI as Nest developers run it, through ormconfig.ts: the migrations it shows, runs
 * and reverts are the server's, on the database the configuration names.
 */
const ROOT = join(__dirname, '..', '..');
const NAMES = MIGRATIONS.map((migration) => migration.name);

function npmRun(script: string, env: Record<string, string>): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      'npm',
      ['run', '--silent', script],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', ...env } },
      (error, stdout, stderr) =>
        error ? reject(new Error(`${script}: ${error.message}\n${stderr}`)) : resolve(stdout),
    );
  });
}

/** `migration:show`'s lines: each migration's name, with whether it was applied. */
function shown(output: string): Array<[string, boolean]> {
  return output
    .split('\n')
    .map((line) => /^\[(X| )\](?: \d+)? (\S+)$/.exec(line.trim()))
    .filter((match): match is RegExpExecArray => match !== null)
    .map((match) => [match[2], match[1] === 'X']);
}

describeEachDatabase('npm run migration:show / run / revert', (database) => {
  it('applies the server’s migrations, reverts the last one and shows them so', async () => {
    const env = { DATABASE_URL: database().url, DATA_DIR: database().dataDir };

    await npmRun('migration:run', env);
    await npmRun('migration:revert', env);

    expect(shown(await npmRun('migration:show', env))).toEqual(
      NAMES.map((name, index) => [name, index < NAMES.length - 1]),
    );
  }, 120_000);
});
