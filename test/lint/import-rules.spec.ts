import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint, Linter } from 'eslint';
import tseslint from 'typescript-eslint';

/**
 * The import rules of eslint.config.mjs reject what their rows forbid and only that: for every
 * folder of src/, a file that does not exist (so that no real import decides the outcome) is
 * linted at each depth where the folder holds code, once importing every target its rows forbid
 * and once importing what they leave open. Each file gets the `no-restricted-imports` setting
 * ESLint computes for it from the real configuration, so a row that stops applying (a key
 * written twice in its object, a later block replacing an earlier one) fails here.
 */
const ROOT = join(__dirname, '..', '..');
const SRC = join(ROOT, 'src');
const PROBE = 'zz-rule-probe.ts';

interface Row {
  folders: string[];
  forbidden: string[];
  why: string;
}

interface ImportRules {
  rows: Row[];
  withoutRules: Record<string, string>;
  rules: Record<string, Linter.RuleEntry | null>;
}

const folders = readdirSync(SRC, { withFileTypes: true })
  .filter((entry) => entry.isDirectory())
  .map((entry) => entry.name)
  .sort();

/** How deep a folder's code goes (1: files right in it), and never less than 2. */
function deepest(folder: string): number {
  const depths = readdirSync(join(SRC, folder), { recursive: true, encoding: 'utf8' })
    .filter((path) => path.endsWith('.ts') && !path.endsWith('.spec.ts'))
    .map((path) => path.split('/').length);
  return Math.max(2, ...depths);
}

/** `src/<folder>/sub/…/zz-rule-probe.ts` at each depth where the folder holds code. */
function probePaths(folder: string): string[] {
  return Array.from(
    { length: deepest(folder) },
    (_, index) => `src/${folder}/${'sub/'.repeat(index)}${PROBE}`,
  );
}

const rules = JSON.parse(
  execFileSync(
    process.execPath,
    [join(__dirname, 'effective-import-rules.mjs'), ...folders.flatMap(probePaths)],
    { cwd: ROOT, encoding: 'utf8' },
  ),
) as ImportRules;

const ruledFolders = [...new Set(rules.rows.flatMap((row) => row.folders))].sort();

function targetsOf(folder: string): string[] {
  return rules.rows.filter((row) => row.folders.includes(folder)).flatMap((row) => row.forbidden);
}

/**
 * Paths under src/ that a row's target forbids: `folder` the whole folder, `folder!sub` the
 * folder but for `sub/`, `folder/*.kind` one kind of file in it.
 */
function forbiddenPaths(target: string): string[] {
  const [path, kind] = target.split('/*');
  if (kind !== undefined) {
    return [`${path}/zz-probe${kind}`];
  }
  const [folder] = path.split('!');
  return [folder, `${folder}/zz-probe`];
}

/** Paths under src/ that a target leaves open, unless another target forbids the whole folder. */
function openPaths(target: string, targets: string[]): string[] {
  const [folder, allowed] = target.split('!');
  if (allowed !== undefined) {
    return targets.includes(folder) ? [] : [`${folder}/${allowed}/zz-probe`];
  }
  const [kindFolder, kind] = target.split('/*');
  return kind === undefined || targets.includes(kindFolder)
    ? []
    : [`${kindFolder}/entities/zz-probe.entity`];
}

/** The same path of src/ as a probe file at `depth` writes it: relative, and through `src/`. */
function specifiers(path: string, depth: number): string[] {
  return [`${'../'.repeat(depth)}${path}`, `src/${path}`];
}

function depthOf(probePath: string): number {
  return probePath.split('/').length - 2;
}

const eslint = new ESLint({
  cwd: ROOT,
  overrideConfigFile: true,
  baseConfig: [
    { files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } },
    ...Object.entries(rules.rules)
      .filter((entry): entry is [string, Linter.RuleEntry] => entry[1] !== null)
      .map(([path, rule]) => ({ files: [path], rules: { 'no-restricted-imports': rule } })),
  ],
});

/** The imports of `code` that the import rules reject, by their specifier. */
async function rejected(probePath: string, imports: string[]): Promise<string[]> {
  const code = imports.map((specifier) => `import '${specifier}';\n`).join('');
  const [result] = await eslint.lintText(code, { filePath: join(ROOT, probePath) });
  expect(result.messages.filter((message) => message.ruleId !== 'no-restricted-imports')).toEqual(
    [],
  );
  return result.messages.map((message) => imports[message.line - 1]);
}

describe('the import rules of eslint.config.mjs', () => {
  it('name every folder of src/ in a row, or say why it has none', () => {
    const withoutRules = Object.keys(rules.withoutRules).sort();
    expect(ruledFolders.filter((folder) => withoutRules.includes(folder))).toEqual([]);
    expect([...ruledFolders, ...withoutRules].sort()).toEqual(folders);
  });

  it('forbid something to every folder a row names', () => {
    for (const row of rules.rows) {
      expect(row.folders.length).toBeGreaterThan(0);
      expect(row.forbidden.length).toBeGreaterThan(0);
      expect(row.why).not.toEqual('');
    }
  });

  it.each(ruledFolders)(
    'reject in src/%s, at every depth, each import its rows forbid',
    async (folder) => {
      const paths = targetsOf(folder).flatMap(forbiddenPaths);
      for (const probePath of probePaths(folder)) {
        const imports = paths.flatMap((path) => specifiers(path, depthOf(probePath)));
        const caught = await rejected(probePath, imports);
        const missed = imports.filter((specifier) => !caught.includes(specifier));
        expect({ probePath, missed }).toEqual({ probePath, missed: [] });
      }
    },
  );

  it.each(ruledFolders)('accept in src/%s what its rows leave open', async (folder) => {
    const targets = targetsOf(folder);
    const paths = [
      'config/configuration',
      ...targets.flatMap((target) => openPaths(target, targets)),
    ];
    for (const probePath of probePaths(folder)) {
      const imports = [
        './zz-sibling',
        ...paths.flatMap((path) => specifiers(path, depthOf(probePath))),
      ];
      expect({ probePath, rejected: await rejected(probePath, imports) }).toEqual({
        probePath,
        rejected: [],
      });
    }
  });
});
