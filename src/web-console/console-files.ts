import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Where `npm run build` puts the console (Vite's output): the package's `dist/console/`, found
 * two folders up from this file whether it runs compiled (dist/web-console/) or from its
 * source (src/web-console/, in the tests).
 */
export const CONSOLE_DIR = join(__dirname, '..', '..', 'dist', 'console');

/** Where Vite puts the files it names by their content hash. */
export const ASSETS_FOLDER = 'assets';

/**
 * The console's page as served under `basePath`, or undefined when the console is not built.
 * Vite writes the page's URLs relative (`./assets/…`); the `<base>` written here makes them
 * resolve under BASE_PATH from any client-side route, however deep (`/raspisms/messages/sent`),
 * and tells the console's router where it is mounted.
 */
export function readConsolePage(dir: string, basePath: string): string | undefined {
  const file = join(dir, 'index.html');
  if (!existsSync(file)) {
    return undefined;
  }
  // BASE_PATH is validated as letters, digits and `._~-` segments: nothing to escape in HTML.
  return readFileSync(file, 'utf8').replace(/<head>/i, `$&<base href="${basePath}/">`);
}
