import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import {
  browserAvailable,
  createBrowserDatabase,
  checkPage,
  CONSOLE_PASSWORD,
  launchChromium,
  makeConsoleUser,
  screenshotsFolder,
  VIEWPORTS,
} from '../support/browser';
import type { TestDatabase } from '../support/databases';

/*
 * The built console's sign-in page in Debian's Chromium, against the real server on SQLite (or
 * MariaDB, BROWSER_DATABASE), found by label and role as a person finds it. Screenshots go to a
 * folder printed at the start.
 */
const describeInBrowser = browserAvailable() ? describe : describe.skip;

describeInBrowser('the sign-in page, in Chromium', () => {
  let database: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    screenshotsFolder();
    database = await createBrowserDatabase();
    t = await startApp(database);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
  });

  /** Opens `path` at `viewport`, failing the test on any error the page logs (a CSP refusal). */
  async function open(path: string, viewport: (typeof VIEWPORTS)[number]): Promise<Page> {
    const page = await browser.newPage({ viewport });
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') {
        errors.push(message.text());
      }
    });
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${t.url}${path}`);
    await page.getByRole('heading', { name: 'Sign in to smsgw' }).waitFor();
    expect(errors).toEqual([]);
    return page;
  }

  it.each(VIEWPORTS)(
    'shows its labelled fields at $width × $height without horizontal scrolling',
    async (viewport) => {
      const page = await open('/sign-in', viewport);
      try {
        await expect(page.getByLabel('Email').isVisible()).resolves.toBe(true);
        await expect(page.getByLabel('Password').isVisible()).resolves.toBe(true);
        await expect(page.getByRole('button', { name: 'Sign in' }).isEnabled()).resolves.toBe(true);
        await checkPage(page, 'sign-in');
      } finally {
        await page.close();
      }
    },
  );

  it('shows the API’s own message when it refuses the sign-in', async () => {
    const credentials = { email: 'nobody@example.com', password: 'not the password' };
    const answer = await request(t.url).post('/api/login/').send(credentials);
    const page = await open('/sign-in', VIEWPORTS[1]);
    try {
      await page.getByLabel('Email').fill(credentials.email);
      await page.getByLabel('Password').fill(credentials.password);
      await page.getByRole('button', { name: 'Sign in' }).click();

      await expect(page.getByRole('alert').textContent()).resolves.toBe(answer.body.message);
    } finally {
      await page.close();
    }
  });

  /** Signs in through the page and answers what the page then shows in its alert. */
  async function refusal(email: string, password: string): Promise<string | null> {
    const page = await open('/sign-in', VIEWPORTS[0]);
    try {
      await page.getByLabel('Email').fill(email);
      await page.getByLabel('Password').fill(password);
      await page.getByRole('button', { name: 'Sign in' }).click();
      return await page.getByRole('alert').textContent();
    } finally {
      await page.close();
    }
  }

  it('says when too many sign-ins failed, with the time to wait', async () => {
    const user = await makeConsoleUser(t.dataSource);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      await expect(refusal(user.email, 'wrong password')).resolves.toBe(
        'Invalid email or password.',
      );
    }
    await expect(refusal(user.email, CONSOLE_PASSWORD)).resolves.toMatch(
      /^Too many failed sign-ins .*: try again in \d+ seconds\.$/,
    );
  });

  it('says when the account is suspended', async () => {
    const user = await makeConsoleUser(t.dataSource, { status: 'suspended' });
    const answer = await request(t.url)
      .post('/api/login/')
      .send({ email: user.email, password: CONSOLE_PASSWORD });
    expect(answer.status).toBe(403);
    await expect(refusal(user.email, CONSOLE_PASSWORD)).resolves.toBe(answer.body.message);
  });

  it('signs in and goes to the dashboard, or to the page the person was sent from', async () => {
    const user = await makeConsoleUser(t.dataSource);
    const page = await open('/sign-in?next=%2Fmessages%3Fstatus%3Dfailed', VIEWPORTS[1]);
    try {
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.pathname === '/messages');
      expect(new URL(page.url()).search).toBe('?status=failed');
      await expect(page.getByRole('banner').textContent()).resolves.toContain(user.email);
    } finally {
      await page.close();
    }
  });
});
