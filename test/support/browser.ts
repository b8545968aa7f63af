import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { DataSource } from 'typeorm';
import { User } from '../../src/users/entities/user.entity';
import { hashPassword } from '../../src/users/password';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from './databases';
import { makeUser } from './factories';

/*
 * A browser flow is many round trips through Chromium, the server and the database, on a machine
 * whose two cores another suite shares: it gets twice the other specs' time. Set here, at the
 * import of every browser suite.
 */
jest.setTimeout(60_000);

/** Debian's Chromium, which `.ci/run` installs where it is missing. */
export const CHROMIUM = '/usr/bin/chromium';

/** The two sizes every page must work at: a phone and a laptop. */
export const VIEWPORTS = [
  { width: 390, height: 844 },
  { width: 1440, height: 900 },
] as const;

/**
 * The engine of the server the browser suites drive: SQLite, which `npm start` gives a new user,
 * or MariaDB for the pass of the whole console on it (the `browser on MariaDB` project of
 * jest.config.js when TEST_MYSQL_URL is set, or `npm run test:browser:mariadb` alone).
 */
export const BROWSER_DATABASE: DatabaseKind = browserDatabaseKind();

function browserDatabaseKind(): DatabaseKind {
  const kind = process.env.BROWSER_DATABASE ?? 'sqlite';
  if (kind !== 'sqlite' && kind !== 'mariadb') {
    throw new Error(`BROWSER_DATABASE must be sqlite or mariadb, not "${kind}".`);
  }
  return kind;
}

/** A new database of the browser suites' engine for one suite's server. */
export function createBrowserDatabase(): Promise<TestDatabase> {
  return createTestDatabase(BROWSER_DATABASE);
}

/**
 * Whether the browser tests can run here. Without Chromium they are skipped with a warning,
 * except in CI, where `.ci/run` has installed it and its absence is a failure. The MariaDB run
 * is skipped, saying so, without TEST_MYSQL_URL.
 */
export function browserAvailable(): boolean {
  if (BROWSER_DATABASE === 'mariadb' && !process.env.TEST_MYSQL_URL) {
    console.warn('Browser tests on MariaDB SKIPPED: TEST_MYSQL_URL is not set.');
    return false;
  }
  if (existsSync(CHROMIUM)) {
    return true;
  }
  if (process.env.CI === 'true') {
    throw new Error(`${CHROMIUM} is missing: .ci/run installs it (apt-get install -y chromium).`);
  }
  console.warn(
    `Browser tests SKIPPED: ${CHROMIUM} is missing (apt-get install -y chromium, as .ci/run does).`,
  );
  return false;
}

/** Chromium headless, without the sandbox (containers) and without any call home. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/**
 * The folder the browser tests write their screenshots to, one file per page and size, so that a
 * person can look at every page after a run; printed once by each suite that writes there. The
 * MariaDB run writes beside them, in `mariadb/`.
 */
export const SCREENSHOTS = join(
  tmpdir(),
  'smsgw-screenshots',
  ...(BROWSER_DATABASE === 'mariadb' ? ['mariadb'] : []),
);

export function screenshotsFolder(): string {
  mkdirSync(SCREENSHOTS, { recursive: true });
  console.log(`Screenshots of the console: ${SCREENSHOTS}`);
  return SCREENSHOTS;
}

export const CONSOLE_PASSWORD = 'correct horse battery staple';

/** A user of the console: signed in with `CONSOLE_PASSWORD`, and their API key for checks. */
export interface ConsoleUser {
  id: number;
  email: string;
  apiKey: string;
}

export async function makeConsoleUser(
  dataSource: DataSource,
  overrides: Parameters<typeof makeUser>[1] = {},
): Promise<ConsoleUser> {
  const { user, apiKey } = await makeUser(dataSource, overrides);
  await dataSource
    .getRepository(User)
    .update({ id: user.id }, { password_hash: await hashPassword(CONSOLE_PASSWORD) });
  return { id: user.id, email: user.email, apiKey };
}

/** The errors a page logs (a CSP refusal, an exception), which a test expects to be none. */
export function pageErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on('console', (message) => {
    if (message.type() === 'error') {
      errors.push(message.text());
    }
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return errors;
}

/**
 * A new page at `viewport`, signed in as `user` through the sign-in page and brought to `path`,
 * as a person arriving at a link of the console is.
 */
export async function signedInPage(
  browser: Browser,
  baseUrl: string,
  user: ConsoleUser,
  path: string,
  viewport: Viewport = VIEWPORTS[1],
): Promise<Page> {
  const page = await browser.newPage({ viewport });
  await page.goto(`${baseUrl}${path}`);
  await page.getByLabel('Email').fill(user.email);
  await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL((url) => url.pathname === path.split('?')[0]);
  return page;
}

export type Viewport = (typeof VIEWPORTS)[number];

/** An accessibility violation axe-core reports, as much of it as a failure message needs. */
interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: string[] }>;
}

/**
 * What a person needs of every page, checked where it stands: axe-core finds no `serious` or
 * `critical` violation, the page does not scroll sideways, and its screenshot is written to
 * SCREENSHOTS as `<name>-<width>x<height>.png`.
 */
export async function checkPage(page: Page, name: string): Promise<void> {
  // Evaluated through the DevTools protocol, which the page's CSP does not govern.
  await page.evaluate(readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8'));
  const violations = await page.evaluate<Violation[]>(
    `axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations.map((v) =>
      ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target })) })))`,
  );
  const grave = violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help} at ${violation.nodes
          .map((node) => node.target.join(' '))
          .join(', ')}`,
    );
  expect(grave).toEqual([]);
  // A string: the root tsconfig has no DOM types; this runs in the page.
  const overflow = Number(
    await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    ),
  );
  expect(overflow).toBeLessThanOrEqual(0);
  const viewport = page.viewportSize();
  await page.screenshot({
    path: join(SCREENSHOTS, `${name}-${viewport?.width}x${viewport?.height}.png`),
    fullPage: true,
  });
}
