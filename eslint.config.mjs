import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import prettier from 'eslint-config-prettier';

/*
 * Which way dependencies run: the entry points (main, worker, cli, app.module) import the API
 * features, the callbacks and dispatch; those import inbound storage, the data modules and the
 * adapters; everything may import database/, common/ and config/. Never the other way: each row
 * names folders of src/ and what they must not import, so that a wrong arrow fails
 * `npm run lint` instead of waiting for a review. A bare name forbids a whole folder,
 * `folder/*.service` one kind of file in it. Specs are exempt: a test may wire a piece to the
 * real modules around it.
 */
const API_FEATURES = [
  'entries',
  'phones',
  'scheduled',
  'stats',
  'usage',
  'invalid-numbers',
  'sended',
  'received',
  'stop-list',
  'account',
  'conditional-groups',
  'phone-groups',
  'groups',
  'webhooks',
  'conversations',
  'sessions',
  'idempotency',
];
/**
 * The code of the API features, their `entities/` aside: an entity lives with the feature that
 * serves it, and the layers below may read and write its table.
 */
const API_FEATURE_CODE = API_FEATURES.map((feature) => `${feature}!entities`);
const DATA_MODULES = ['users', 'contacts', 'messages', 'media', 'events'];
/** contacts/ also serves the contacts' API: what others use of it is its entities. */
const CONTACTS_API = ['contacts/*.service', 'contacts/*.controller', 'contacts/*.module'];
export const FORBIDDEN_IMPORTS = [
  {
    folders: ['common'],
    forbidden: [
      ...API_FEATURES,
      'callbacks',
      'dispatch',
      'inbound',
      ...DATA_MODULES,
      'adapters',
      'health',
      'metrics',
    ],
    why: 'common/ is plumbing that knows no feature',
  },
  {
    folders: ['adapters'],
    forbidden: [...API_FEATURES, 'callbacks', 'dispatch', 'inbound', ...DATA_MODULES, 'database'],
    why: 'an adapter knows only its provider, the adapter contract, common/ and config/',
  },
  {
    folders: ['dispatch'],
    forbidden: [...API_FEATURE_CODE, 'callbacks', ...CONTACTS_API],
    why:
      'dispatch runs without the HTTP face: a rule it shares with a feature lives below both ' +
      '(common/limits, common/text), and what listening adapters report goes to inbound/',
  },
  {
    folders: ['text'],
    forbidden: [...API_FEATURES, 'dispatch', 'callbacks', 'inbound', ...DATA_MODULES],
    why:
      'templates and conditions are evaluated the same for the dispatch and the API features ' +
      'that preview them: text/ sits below both and knows neither',
  },
  {
    folders: ['inbound'],
    forbidden: [
      'callbacks',
      'dispatch',
      'entries',
      'stats',
      'usage',
      'invalid-numbers',
      'phones/*.service',
      'phones/*.controller',
      'phones/*.module',
      'scheduled/*.service',
      'scheduled/*.controller',
      'scheduled/*.module',
      ...CONTACTS_API,
    ],
    why:
      'inbound storage serves the HTTP callbacks and the dispatch worker alike: it may use ' +
      "features' entities and repositories, not their services, controllers or modules",
  },
  {
    folders: DATA_MODULES.filter((folder) => folder !== 'contacts'),
    forbidden: [...API_FEATURE_CODE, 'callbacks', 'dispatch', 'inbound', ...CONTACTS_API],
    why: 'data modules sit below the features, callbacks and dispatch that use them',
  },
  {
    folders: ['contacts'],
    forbidden: [
      ...API_FEATURES.filter((feature) => feature !== 'entries'),
      'callbacks',
      'dispatch',
      'inbound',
    ],
    why:
      'contacts sit below the features, callbacks and dispatch that use them; their API reads ' +
      'one entry as get_entries lists it, through entries/',
  },
  {
    folders: ['health', 'metrics'],
    forbidden: [...API_FEATURES, 'callbacks', 'dispatch', 'inbound', ...DATA_MODULES, 'adapters'],
    why:
      'the operator endpoints read the database and common/worker-heartbeat: they must run the ' +
      'same in an API replica, with or without the worker',
  },
  {
    folders: ['webhook-delivery'],
    forbidden: [...API_FEATURE_CODE, 'callbacks', 'dispatch', 'inbound', ...CONTACTS_API],
    why:
      'the deliverer runs in the dispatch worker, below it: it reads what src/events queued and ' +
      'knows no feature',
  },
  {
    folders: ['reliability'],
    forbidden: [...API_FEATURE_CODE, 'callbacks', 'dispatch', 'inbound', ...CONTACTS_API],
    why:
      'the reliability check runs in the dispatch worker, below it: it reads sent entries and ' +
      'queues events through the data modules, never through a feature of the API',
  },
  {
    folders: [...API_FEATURES, 'callbacks'],
    forbidden: ['dispatch', 'webhook-delivery'],
    why: 'the API hands work to dispatch through the database and common/dispatch-signal',
  },
];

/**
 * The folders of src/ that no row above names, and why their own imports go unchecked. Every
 * folder of src/ is in a row or here (test/lint/import-rules.spec.ts checks it), so that a new
 * folder, or a row that stops applying, cannot go unnoticed.
 */
export const FOLDERS_WITHOUT_RULES = {
  config: 'the typed configuration sits at the bottom: every layer reads it',
  database: 'the database plumbing sits below every feature and registers all their entities',
  'web-console':
    'it serves the built console files, beside the API, and only the entry points load it',
};

/**
 * Modules most processes never use, each loaded by a require() in the function that first needs
 * it rather than by an import at start: only these may be required.
 */
const LOADED_ON_FIRST_USE = [
  '^expression-language/lib/(?:Lexer|Parser)$',
  '^\\./twig-sandbox$',
  '^locutus/php/datetime/strtotime$',
];

/**
 * One block per folder and depth, so that the pattern matches what the relative path resolves
 * to (`../../phones` from `src/adapters/ovh/`, not a sibling folder of the same name); imports
 * through the `src/` base URL are caught as well. A folder named by several rows gets all their
 * patterns in one block: of two blocks setting `no-restricted-imports` for the same file, ESLint
 * keeps only the last.
 */
function forbiddenImportBlocks() {
  const escape = (text) => text.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*');
  // `folder!sub` forbids the folder but for its subfolder `sub`.
  const pattern = (target) => {
    const [folder, allowed] = target.split('!');
    return allowed ? `${escape(folder)}(?:/(?!${escape(allowed)}/)|$)` : `${escape(folder)}(?:/|$)`;
  };
  const rowsByFolder = new Map();
  for (const { folders, forbidden, why } of FORBIDDEN_IMPORTS) {
    const row = { targets: forbidden.map(pattern).join('|'), why };
    for (const folder of folders) {
      rowsByFolder.set(folder, [...(rowsByFolder.get(folder) ?? []), row]);
    }
  }
  return [...rowsByFolder].flatMap(([folder, rows]) =>
    [1, 2, 3, 4].map((depth) => ({
      files: [`src/${folder}/${'*/'.repeat(depth - 1)}*.ts`],
      ignores: ['**/*.spec.ts'],
      rules: {
        'no-restricted-imports': [
          'error',
          {
            patterns: rows.map(({ targets, why }) => ({
              regex: `^(?:${'\\.\\./'.repeat(depth)}|src/)(?:${targets})`,
              message: `src/${folder} must not import this: ${why}.`,
            })),
          },
        ],
      },
    })),
  );
}

export default tseslint.config(
  {
    ignores: [
      'dist/**',
      'node_modules/**',
      'data/**',
      'coverage/**',
      'console/src/api/generated/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  prettier,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/switch-exhaustiveness-check': [
        'error',
        { considerDefaultExhaustiveForUnions: true },
      ],
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      eqeqeq: 'error',
      curly: 'error',
      'no-console': 'error',
      '@typescript-eslint/no-require-imports': ['error', { allow: LOADED_ON_FIRST_USE }],
    },
  },
  {
    // This file and the other scripts run by Node as they are, outside the TypeScript project:
    // linted without type information, which still catches a key written twice in an object.
    files: ['**/*.js', '**/*.cjs', '**/*.mjs'],
    extends: [tseslint.configs.disableTypeChecked],
    languageOptions: { globals: { process: 'readonly', console: 'readonly' } },
    rules: { 'no-console': 'off' },
  },
  {
    files: ['**/*.js', '**/*.cjs'],
    languageOptions: {
      sourceType: 'commonjs',
      globals: { require: 'readonly', module: 'writable', __dirname: 'readonly' },
    },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    files: ['**/*.spec.ts', 'test/**/*.ts', 'bench/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/unbound-method': 'off',
      'no-console': 'off',
    },
  },
  ...forbiddenImportBlocks(),
);
