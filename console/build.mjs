// Builds the console into dist/console/ with Vite, after checking its types. `npm run build`
// (and so `npm start`) runs it every time: it does nothing when neither the console's sources
// nor the installed packages changed since the last build, which Vite cannot tell by itself.
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const consoleDir = dirname(fileURLToPath(import.meta.url));
const rootDir = dirname(consoleDir);
const outDir = join(rootDir, 'dist', 'console');
const stampFile = join(outDir, '.sources-hash');

/** Every file the build reads: the console's sources and the lock file of its packages. */
function sourceFiles(dir) {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(path) : [path];
  });
}

function sourcesHash() {
  const hash = createHash('sha256');
  for (const file of [...sourceFiles(consoleDir), join(rootDir, 'package-lock.json')].sort()) {
    hash.update(relative(rootDir, file)).update('\0').update(readFileSync(file)).update('\0');
  }
  return hash.digest('hex');
}

const hash = sourcesHash();
const built = existsSync(stampFile) && existsSync(join(outDir, 'index.html'));
if (built && readFileSync(stampFile, 'utf8') === hash) {
  process.exit(0);
}

const typecheck = spawnSync(
  process.execPath,
  [
    join(rootDir, 'node_modules', 'typescript', 'bin', 'tsc'),
    '-p',
    join(consoleDir, 'tsconfig.json'),
  ],
  { stdio: 'inherit' },
);
if (typecheck.status !== 0) {
  process.exit(typecheck.status ?? 1);
}

const { build } = await import('vite');
await build({
  root: consoleDir,
  // Relative: the server writes its BASE_PATH into the page's <base>, which these resolve against.
  base: './',
  configFile: false,
  logLevel: 'warn',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir,
    emptyOutDir: true,
    manifest: true,
    rolldownOptions: {
      // TanStack Query marks its modules "use client" for React Server Components, which a
      // single-page application does not use: the warning is noise at every `npm start`.
      onLog(level, log, handler) {
        if (log.code !== 'MODULE_LEVEL_DIRECTIVE') {
          handler(level, log);
        }
      },
    },
  },
});
writeFileSync(stampFile, hash);
