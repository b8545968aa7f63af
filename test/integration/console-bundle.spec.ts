import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { CONSOLE_DIR } from '../../src/web-console/console-files';

/** At most this much JavaScript, gzip-compressed, before the console shows its first page. */
const INITIAL_JS_LIMIT_BYTES = 250_000;

interface ManifestChunk {
  file: string;
  isEntry?: boolean;
  imports?: string[];
}

/**
 * The console's initial JavaScript: the page's entry chunk and every chunk it imports
 * statically, which the browser loads before running anything. What the pages import
 * dynamically (each route) comes later and does not count. Read from the build's manifest.
 */
function initialChunks(manifest: Record<string, ManifestChunk>): string[] {
  const seen = new Set<string>();
  const visit = (key: string) => {
    if (seen.has(key)) {
      return;
    }
    seen.add(key);
    manifest[key].imports?.forEach(visit);
  };
  Object.keys(manifest)
    .filter((key) => manifest[key].isEntry)
    .forEach(visit);
  return [...seen].map((key) => manifest[key].file).filter((file) => file.endsWith('.js'));
}

describe('the console’s build (npm run build)', () => {
  const manifestFile = join(CONSOLE_DIR, '.vite', 'manifest.json');

  it('keeps the initial JavaScript within 250 KB gzip: pages load what they need later', () => {
    expect(existsSync(manifestFile)).toBe(true);
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<
      string,
      ManifestChunk
    >;
    const chunks = initialChunks(manifest);
    const sizes = chunks.map((file) => gzipSync(readFileSync(join(CONSOLE_DIR, file))).length);
    const total = sizes.reduce((sum, size) => sum + size, 0);

    console.log(
      `The console's initial JavaScript: ${(total / 1000).toFixed(1)} KB gzip ` +
        `(limit ${INITIAL_JS_LIMIT_BYTES / 1000} KB), in ${chunks.join(', ')}`,
    );
    expect(chunks.length).toBeGreaterThan(0);
    expect(total).toBeLessThanOrEqual(INITIAL_JS_LIMIT_BYTES);
  });

  it('names in the page the entry the manifest names: the size measured is what loads', () => {
    const page = readFileSync(join(CONSOLE_DIR, 'index.html'), 'utf8');
    const manifest = JSON.parse(readFileSync(manifestFile, 'utf8')) as Record<
      string,
      ManifestChunk
    >;
    const entries = Object.values(manifest).filter((chunk) => chunk.isEntry);

    expect(entries).toHaveLength(1);
    expect(page).toContain(`src="./${entries[0].file}"`);
  });
});
