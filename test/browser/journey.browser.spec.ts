import type { Browser } from 'playwright-core';
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
import { makePhone } from '../support/factories';
import { waitFor } from '../support/instruments';

/*
 * One message across the console, as a person follows it: written on the Send page, sent by the
 * dispatch through the `test` adapter, then found delivered in Messages, in its conversation and
 * in the dashboard's count of the day, each page reading what the API says of it.
 */
const describeInBrowser = browserAvailable() ? describe : describe.skip;

describeInBrowser('a message from Send to Messages, Conversations and the dashboard', () => {
  let database: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  let user: ConsoleUser;

  beforeAll(async () => {
    database = await createBrowserDatabase();
    t = await startApp(database, { WORKER: 'inline', DISPATCH_POLL_MS: '20' });
    browser = await launchChromium();
    user = await makeConsoleUser(t.dataSource);
    await makePhone(t.dataSource, user.id, {
      name: 'Front desk',
      adapter_data: '{"delivery":"delivered"}',
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
  });

  it('is delivered by the test adapter and shown delivered on every page', async () => {
    const number = '+33611223344';
    const text = 'Your table for four is booked at 8 pm.';
    const page = await signedInPage(browser, t.url, user, '/send');
    const errors = pageErrors(page);
    try {
      await page.getByLabel('Numbers', { exact: true }).fill(number);
      await page.getByLabel('Text', { exact: true }).fill(text);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await page.getByRole('heading', { name: /^Scheduled message \d+$/ }).waitFor();

      type Sent = { id: number; at: string; destination: string; text: string; status: string };
      const sentEntries = async () =>
        (await request(t.url).get('/api/list/sended/').query({ api_key: user.apiKey })).body
          .response as Sent[];
      await waitFor(
        async () => (await sentEntries()).some((entry) => entry.status === 'delivered'),
        'the test adapter to deliver the message',
      );
      const [sent] = await sentEntries();
      expect(sent).toMatchObject({ destination: number, text });

      await page.getByRole('link', { name: 'Messages', exact: true }).click();
      const row = page.getByRole('row').filter({ hasText: text });
      await row.waitFor();
      await expect(row.textContent()).resolves.toContain(number);
      await expect(row.textContent()).resolves.toContain('delivered');

      await page.getByRole('link', { name: 'Conversations', exact: true }).click();
      await page.getByRole('link', { name: new RegExp(`\\${number}`) }).click();
      const thread = page.getByRole('log', { name: `Messages with ${number}` });
      await thread.getByRole('listitem').filter({ hasText: text }).waitFor();
      await expect(
        thread.getByRole('listitem').filter({ hasText: text }).textContent(),
      ).resolves.toContain('delivered');

      await page.getByRole('link', { name: 'Dashboard', exact: true }).click();
      await page.getByRole('heading', { name: 'Messages sent per day' }).waitFor();
      const today = sent.at.slice(0, 10);
      const daily = await request(t.url)
        .get('/api/stats/daily/')
        .query({ api_key: user.apiKey, start: today, end: today });
      expect(daily.body.response.days).toEqual([
        { day: today, delivered: 1, failed: 0, unknown: 0, received: 0 },
      ]);
      await page.getByText('Show as a table').first().click();
      const dayRow = page
        .getByRole('table', { name: 'Messages sent per day' })
        .getByRole('row')
        .filter({ has: page.getByRole('rowheader', { name: today, exact: true }) });
      await expect(dayRow.getByRole('cell').allTextContents()).resolves.toEqual(['1', '0', '0']);
      // The Send page reads the message it created, which the dispatch may already have taken:
      // the API's 404 then tells it to show the sent entries, and Chromium logs that answer.
      expect(errors.filter((error) => !error.includes('status of 404'))).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
