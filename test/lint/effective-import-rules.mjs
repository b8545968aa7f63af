// Prints what eslint.config.mjs makes of its import rules, for test/lint/import-rules.spec.ts:
// the rows it builds them from, and the `no-restricted-imports` setting it gives each file named
// on the command line, as ESLint merges its blocks. ESLint loads a configuration file with
// import(), which Jest's CommonJS sandbox cannot run, hence a separate Node process.
import { join } from 'node:path';
import { ESLint } from 'eslint';
import { FOLDERS_WITHOUT_RULES, FORBIDDEN_IMPORTS } from '../../eslint.config.mjs';

const eslint = new ESLint({ cwd: join(import.meta.dirname, '..', '..') });
const rules = {};
for (const path of process.argv.slice(2)) {
  const config = await eslint.calculateConfigForFile(path);
  rules[path] = config?.rules?.['no-restricted-imports'] ?? null;
}
process.stdout.write(
  JSON.stringify({ rows: FORBIDDEN_IMPORTS, withoutRules: FOLDERS_WITHOUT_RULES, rules }),
);
