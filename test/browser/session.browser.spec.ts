import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import {
  browserAvailable,
  createBrowserDatabase,
  type ConsoleUser,
  launchChromium,
  makeConsoleUser,
  pageErrors,
  signedInPage,
} from '../support/browser';
import type { TestDatabase } from '../support/databases';

/*
 * What the console does around its pages, in Chromium against the real server on SQLite (or
 * MariaDB, BROWSER_DATABASE): the return to the page after a lost session, the message when smsgw
 * cannot be reached, signing out, and a page of another origin that tries to act with the person's
 * session.
 */
const describeInBrowser = browserAvailable() ? describe : describe.skip;

describeInBrowser('the console’s session, in Chromium', () => {
  let database: TestDatabase;
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    database = await createBrowserDatabase();
    t = await startApp(database);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
  });

  const sessionsOf = async (user: ConsoleUser) =>
    Number(
      (
        await t.dataSource.query<Array<{ n: number }>>(
          'SELECT COUNT(*) AS n FROM session WHERE id_user = ?',
          [user.id],
        )
      )[0].n,
    );

  /**
   * What TanStack Query takes for the person coming back to the tab: its focus manager listens
   * on the window, which a `visibilitychange` dispatched at the document does not reach.
   */
  const comeBackToTheTab = (page: Page) =>
    page.evaluate("window.dispatchEvent(new Event('visibilitychange'))");

  it('brings sign-in back when the session ends while a page is open, then that page', async () => {
    const user = await makeConsoleUser(t.dataSource);
    const page = await signedInPage(browser, t.url, user, '/messages/received');
    const errors = pageErrors(page);
    try {
      // Loaded first, so that only the session's check on coming back can find it gone.
      await page.getByText('No messages yet.').waitFor();
      await t.dataSource.query('DELETE FROM session WHERE id_user = ?', [user.id]);
      await comeBackToTheTab(page);

      await page.getByRole('heading', { name: 'Sign in to smsgw' }).waitFor();
      expect(new URL(page.url()).searchParams.get('next')).toBe('/messages/received');
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill('correct horse battery staple');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.waitForURL((url) => url.pathname === '/messages/received');
      await page.getByRole('heading', { name: 'Received messages' }).waitFor();
      expect(errors.filter((error) => !error.includes('401'))).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('says smsgw cannot be reached instead of showing a blank page, and recovers', async () => {
    const user = await makeConsoleUser(t.dataSource);
    const page = await signedInPage(browser, t.url, user, '/dashboard');
    try {
      await page.route('**/api/**', (route) => route.abort('connectionrefused'));
      await page.reload();

      const alert = page.getByRole('alert');
      await alert.waitFor();
      await expect(alert.textContent()).resolves.toContain('smsgw cannot be reached');

      await page.unroute('**/api/**');
      await page.getByRole('button', { name: 'Try again' }).click();
      await page.getByRole('navigation', { name: 'Pages' }).waitFor();
      await expect(page.getByRole('alert').count()).resolves.toBe(0);
    } finally {
      await page.close();
    }
  });

  it('signs out: the session ends on the server and the console asks to sign in again', async () => {
    const user = await makeConsoleUser(t.dataSource);
    const page = await signedInPage(browser, t.url, user, '/dashboard');
    try {
      expect(await sessionsOf(user)).toBe(1);
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByRole('heading', { name: 'Sign in to smsgw' }).waitFor();
      expect(await sessionsOf(user)).toBe(0);

      await page.goto(`${t.url}/dashboard`);
      await page.getByRole('heading', { name: 'Sign in to smsgw' }).waitFor();
    } finally {
      await page.close();
    }
  });

  describe('a page of another origin, opened by a signed-in person', () => {
    let attacker: Server;
    let attackerUrl: string;

    beforeAll(async () => {
      // Another port of the same host: another origin but the same site, so even a SameSite
      // cookie goes with its requests and only the CSRF token stands in the way.
      attacker = createServer((_request, response) => {
        response.setHeader('Content-Type', 'text/html');
        response.end(`<!doctype html><title>Win a prize</title>
          <form id="f" method="post" action="${t.url}/api/scheduled/">
            <input name="text" value="forged"><input name="numbers[]" value="+33612345678">
          </form>
          <img id="i" src="${t.url}/api/send-sms/?to=%2B33612345678&text=forged">
          <script>
            const submit = () => document.getElementById('f').submit();
            document.getElementById('i').onerror = submit;
            document.getElementById('i').onload = submit;
          </script>`);
      });
      await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
      attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}/`;
    });
    afterAll(() => new Promise<void>((resolve) => attacker.close(() => resolve())));

    it('creates nothing with a form posted to /api/scheduled/ or an image of /api/send-sms/', async () => {
      const user = await makeConsoleUser(t.dataSource);
      const page = await signedInPage(browser, t.url, user, '/dashboard');
      try {
        // Chromium hides the answer to an image of another origin from the page (and from
        // Playwright's response events), so the requests are counted as they leave, and what
        // matters is checked on the server: nothing was created.
        // Leaving the dashboard first, so that only the other origin's requests are counted.
        await page.goto('about:blank');
        const requested: string[] = [];
        const answers: number[] = [];
        page.on('request', (sent) => {
          if (sent.url().startsWith(`${t.url}/api/`)) {
            requested.push(new URL(sent.url()).pathname);
          }
        });
        page.on('response', (response) => {
          if (response.url().startsWith(`${t.url}/api/`)) {
            answers.push(response.status());
          }
        });
        await page.goto(attackerUrl);
        await page.waitForURL((url) => url.pathname === '/api/scheduled/');
        await page.waitForLoadState('load');

        expect(requested.sort()).toEqual(['/api/scheduled/', '/api/send-sms/']);
        expect(answers).toContain(403);
        expect(answers.every((status) => status === 403)).toBe(true);
        const scheduled = await request(t.url)
          .get('/api/list/scheduled/')
          .query({ api_key: user.apiKey });
        expect(scheduled.body.response).toEqual([]);
        expect(await sessionsOf(user)).toBe(1);
      } finally {
        await page.close();
      }
    });
  });
});
