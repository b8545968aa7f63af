import type { Browser, Locator, Page } from 'playwright-core';
import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import {
  browserAvailable,
  createBrowserDatabase,
  checkPage,
  CONSOLE_PASSWORD,
  ConsoleUser,
  launchChromium,
  makeConsoleUser,
  screenshotsFolder,
  signedInPage,
  VIEWPORTS,
} from '../support/browser';
import type { TestDatabase } from '../support/databases';

/*
 * The console's Settings page in Debian's Chromium, against the real server on SQLite (or MariaDB,
 * BROWSER_DATABASE): a setting changed and a bad one refused at its field, the STOP list, the
 * password and the API key, each effect checked through the API with the user's key or over HTTP
 * with the sessions.
 */
const describeInBrowser = browserAvailable() ? describe : describe.skip;

const NEW_PASSWORD = 'a brand new passphrase';

describeInBrowser('the Settings page, in Chromium', () => {
  let database: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  let user: ConsoleUser;

  beforeAll(async () => {
    screenshotsFolder();
    database = await createBrowserDatabase();
    t = await startApp(database);
    browser = await launchChromium();
    user = await makeConsoleUser(t.dataSource);
    // More than a page of the API's 25, so that the list is paged by the server.
    for (let index = 0; index < 26; index++) {
      await request(t.url)
        .post('/api/stop/')
        .set('X-Api-Key', user.apiKey)
        .send({ number: `+336123456${String(index).padStart(2, '0')}` })
        .expect(201);
    }
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
  });

  const withKey = (path: string, key = user.apiKey) =>
    request(t.url).get(path).set('X-Api-Key', key);

  /** The text of what describes a control: its hint and the error shown under it. */
  function descriptionOf(control: Locator): Promise<string> {
    return control.evaluate((element) =>
      (element.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id: string) => element.ownerDocument.getElementById(id)?.textContent ?? '')
        .join(' '),
    );
  }

  /** Each view at both sizes: no accessibility violation, no sideways scroll, a screenshot. */
  async function checkViews(page: Page, views: Array<[string, string, string]>): Promise<void> {
    for (const viewport of VIEWPORTS) {
      await page.setViewportSize(viewport);
      for (const [path, heading, name] of views) {
        await page.goto(`${t.url}${path}`);
        await page.getByRole('heading', { name: heading, exact: true }).waitFor();
        await page.getByRole('status').filter({ hasText: 'Loading' }).waitFor({ state: 'hidden' });
        await checkPage(page, name);
      }
    }
  }

  it('changes a setting, seen through get_setting, and shows a bad value refused at its field', async () => {
    const page = await signedInPage(browser, t.url, user, '/settings/preferences');
    try {
      const sending = page.getByRole('form', { name: 'Sending' });
      const templates = sending.getByRole('checkbox', { name: 'Templates' });
      await expect(templates.isChecked()).resolves.toBe(true);
      await templates.uncheck();
      await sending.getByLabel('Default country').selectOption('fr');
      await sending.getByRole('button', { name: 'Save' }).click();
      await sending.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      const saved = (await withKey('/api/setting/').expect(200)).body.response;
      expect(saved).toMatchObject({ templating: '0', default_phone_country: 'fr' });

      // The meaning and the bounds come from get_setting_definitions.
      const definitions = (await withKey('/api/setting/definitions/').expect(200)).body
        .response as Array<{ name: string; description: string }>;
      const rate = definitions.find((d) => d.name === 'phone_reliability_failed_rate_limit')!;
      const failed = page.getByRole('form', { name: 'Phone reliability: failed messages' });
      const rateField = failed.getByLabel('Rate limit (%)');
      await expect(rateField.getAttribute('type')).resolves.toBe('number');
      await expect(rateField.getAttribute('max')).resolves.toBe('100');
      await expect(descriptionOf(rateField)).resolves.toContain(rate.description);

      await rateField.fill('150');
      await failed.getByRole('button', { name: 'Save' }).click();
      const refusal = await request(t.url)
        .post('/api/setting/')
        .set('X-Api-Key', user.apiKey)
        .send({ phone_reliability_failed_rate_limit: '150' })
        .expect(400);
      await failed.getByRole('alert').filter({ hasText: refusal.body.message }).waitFor();
      await expect(rateField.getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(descriptionOf(rateField)).resolves.toContain(refusal.body.message);
      await checkPage(page, 'settings-refused');
      expect((await withKey('/api/setting/').expect(200)).body.response).toMatchObject({
        phone_reliability_failed_rate_limit: '10',
      });
    } finally {
      await page.close();
    }
  });

  it('saves a send window and its time zone, and shows a window the API cannot read refused at its field', async () => {
    const page = await signedInPage(browser, t.url, user, '/settings/preferences');
    try {
      const sending = page.getByRole('form', { name: 'Sending' });
      const window = sending.getByLabel('Send window');
      const zone = sending.getByLabel('Time zone');
      await expect(zone.inputValue()).resolves.toBe('');
      await window.fill('mon-fri 08:00-20:00');
      await zone.selectOption('Asia/Tokyo');
      await sending.getByRole('button', { name: 'Save' }).click();
      await sending.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      expect((await withKey('/api/setting/').expect(200)).body.response).toMatchObject({
        send_window: 'mon-fri 08:00-20:00',
        timezone: 'Asia/Tokyo',
      });

      await window.fill('x');
      await sending.getByRole('button', { name: 'Save' }).click();
      const refusal = await request(t.url)
        .post('/api/setting/')
        .set('X-Api-Key', user.apiKey)
        .send({ send_window: 'x' })
        .expect(400);
      expect(refusal.body.message).toContain('"x" is not a range');
      await sending.getByRole('alert').filter({ hasText: refusal.body.message }).waitFor();
      await expect(window.getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(descriptionOf(window)).resolves.toContain(refusal.body.message);
      await checkPage(page, 'settings-send-window-refused');
      expect((await withKey('/api/setting/').expect(200)).body.response).toMatchObject({
        send_window: 'mon-fri 08:00-20:00',
      });
    } finally {
      await page.close();
    }
  });

  it('adds a number to the STOP list, refuses a bad one at its field, and removes one after asking', async () => {
    const page = await signedInPage(browser, t.url, user, '/settings/stop-list');
    try {
      const numbers = page.getByRole('list', { name: 'Numbers of the STOP list' });
      await numbers.getByRole('listitem').first().waitFor();
      // The newest page: the 25 newest numbers, the newest first, and a link to the older one.
      await expect(numbers.getByRole('listitem').count()).resolves.toBe(25);
      await expect(numbers.getByRole('listitem').first().textContent()).resolves.toContain(
        '+33612345625',
      );
      await page.getByRole('link', { name: 'Older' }).click();
      await page.waitForURL((url) => url.searchParams.has('before_id'));
      await numbers.getByRole('listitem').nth(1).waitFor({ state: 'detached' });
      await expect(numbers.getByRole('listitem').textContent()).resolves.toContain('+33612345600');
      await page.getByRole('link', { name: 'Newest' }).click();
      // The dates are the API's, in the zone get_session gives.
      await page.getByText(`Dates are in smsgw's time zone, ${t.config.timeZone}.`).waitFor();

      const field = page.getByLabel('Number to stop');
      await field.fill('not a number');
      await page.getByRole('button', { name: 'Add to the STOP list' }).click();
      const refusal = await request(t.url)
        .post('/api/stop/')
        .set('X-Api-Key', user.apiKey)
        .send({ number: 'not a number' })
        .expect(400);
      await page.getByRole('alert').filter({ hasText: refusal.body.message }).waitFor();
      await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(descriptionOf(field)).resolves.toContain(refusal.body.message);

      await field.fill('+33 6 99 00 00 01');
      await page.getByRole('button', { name: 'Add to the STOP list' }).click();
      const added = numbers.getByRole('listitem').filter({ hasText: '+33699000001' });
      await added.waitFor();
      const listed = async () =>
        (
          (await withKey('/api/stop/?before_id=2147483647').expect(200)).body.response as Array<{
            number: string;
          }>
        ).map((entry) => entry.number);
      await expect(listed()).resolves.toContain('+33699000001');

      await added.getByRole('button', { name: 'Remove +33699000001' }).click();
      await page.getByRole('group', { name: /Remove \+33699000001 from the STOP list/ }).waitFor();
      await checkPage(page, 'settings-stop-list-confirm');
      await page.getByRole('button', { name: 'Yes, remove it' }).click();
      await added.waitFor({ state: 'detached' });
      await expect(listed()).resolves.not.toContain('+33699000001');
    } finally {
      await page.close();
    }
  });

  it('makes a new API key after a warning, shown once with a copy button; the old key is refused', async () => {
    const page = await signedInPage(browser, t.url, user, '/settings/api-key');
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write']);
    try {
      await page.getByRole('button', { name: 'Make a new API key' }).click();
      await page
        .getByRole('alert')
        .filter({ hasText: 'The current key stops working at once' })
        .waitFor();
      const password = page.getByLabel('Your password');
      await password.fill('not my password');
      await page.getByRole('button', { name: 'Replace my API key' }).click();
      await page.getByRole('alert').filter({ hasText: "password is not the user's" }).waitFor();
      await expect(password.getAttribute('aria-invalid')).resolves.toBe('true');
      await checkPage(page, 'settings-api-key-refused');
      await withKey('/api/me/').expect(200);

      await password.fill(CONSOLE_PASSWORD);
      await page.getByRole('button', { name: 'Replace my API key' }).click();
      const shown = page.getByLabel('Your new API key');
      await shown.waitFor();
      const key = await shown.inputValue();
      expect(key).toMatch(/^[0-9a-f]{32}$/);
      await expect(shown.getAttribute('readonly')).resolves.not.toBeNull();
      await page.getByRole('button', { name: 'Copy the key' }).click();
      await page.getByRole('status').filter({ hasText: 'Copied.' }).waitFor();
      await expect(page.evaluate('navigator.clipboard.readText()')).resolves.toBe(key);
      for (const viewport of VIEWPORTS) {
        await page.setViewportSize(viewport);
        await checkPage(page, 'settings-api-key-new');
      }

      await withKey('/api/me/').expect(401);
      await withKey('/api/me/', key).expect(200);
      user = { ...user, apiKey: key };

      // Once the page is left, the key is not shown again.
      await page.getByRole('link', { name: 'Password' }).click();
      await page.getByRole('link', { name: 'API key' }).click();
      await page.getByRole('button', { name: 'Make a new API key' }).waitFor();
      await expect(page.getByLabel('Your new API key').count()).resolves.toBe(0);
    } finally {
      await page.close();
    }
  });

  it('shows every view without sideways scrolling or accessibility violations, at both sizes', async () => {
    const page = await signedInPage(browser, t.url, user, '/settings/preferences');
    try {
      await checkViews(page, [
        ['/settings/preferences', 'Settings', 'settings'],
        ['/settings/stop-list', 'STOP list', 'settings-stop-list'],
        ['/settings/password', 'Password', 'settings-password'],
        ['/settings/api-key', 'API key', 'settings-api-key'],
      ]);
    } finally {
      await page.close();
    }
  });

  it('changes the password: another session ends, this one goes on, the new password signs in', async () => {
    const other = await signedInPage(browser, t.url, user, '/settings/preferences');
    const page = await signedInPage(browser, t.url, user, '/settings/password');
    const sessionStatus = (of: Page) =>
      of.evaluate("fetch('api/session/').then((answer) => answer.status)");
    try {
      await expect(sessionStatus(other)).resolves.toBe(200);
      const current = page.getByLabel('Current password');
      const fresh = page.getByLabel('New password', { exact: true });
      const again = page.getByLabel('New password again');

      // The confirmation is compared in the browser: nothing is sent.
      await current.fill(CONSOLE_PASSWORD);
      await fresh.fill(NEW_PASSWORD);
      await again.fill('something else entirely');
      await page.getByRole('button', { name: 'Change the password' }).click();
      await page.getByRole('alert').filter({ hasText: 'The two new passwords differ' }).waitFor();
      await expect(again.getAttribute('aria-invalid')).resolves.toBe('true');

      await current.fill('not my password');
      await again.fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Change the password' }).click();
      await page.getByRole('alert').filter({ hasText: 'current_password is not' }).waitFor();
      await expect(current.getAttribute('aria-invalid')).resolves.toBe('true');

      await current.fill(CONSOLE_PASSWORD);
      await fresh.fill('short');
      await again.fill('short');
      await page.getByRole('button', { name: 'Change the password' }).click();
      await page.getByRole('alert').filter({ hasText: 'new_password must have' }).waitFor();
      await expect(fresh.getAttribute('aria-invalid')).resolves.toBe('true');
      await checkPage(page, 'settings-password-refused');

      await fresh.fill(NEW_PASSWORD);
      await again.fill(NEW_PASSWORD);
      await page.getByRole('button', { name: 'Change the password' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: 'Every other session of your account was ended' })
        .waitFor();

      await expect(sessionStatus(other)).resolves.toBe(401);
      await expect(sessionStatus(page)).resolves.toBe(200);
      await page.getByRole('link', { name: 'STOP list' }).click();
      await page.getByRole('heading', { name: 'STOP list', exact: true }).waitFor();
      // The ended session's page brings the sign-in back at its next request.
      await other.reload();
      await other.getByRole('button', { name: 'Sign in' }).waitFor();

      await request(t.url)
        .post('/api/login/')
        .send({ email: user.email, password: CONSOLE_PASSWORD })
        .expect(401);
      await request(t.url)
        .post('/api/login/')
        .send({ email: user.email, password: NEW_PASSWORD })
        .expect(200);
    } finally {
      await other.close();
      await page.close();
    }
  });
});
