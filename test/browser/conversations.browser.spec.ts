import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import {
  browserAvailable,
  createBrowserDatabase,
  checkPage,
  ConsoleUser,
  launchChromium,
  makeConsoleUser,
  pageErrors,
  screenshotsFolder,
  signedInPage,
  VIEWPORTS,
} from '../support/browser';
import type { TestDatabase } from '../support/databases';
import { makeContact, makePhone, makeReceived, makeSended } from '../support/factories';

/*
 * The Conversations page of the built console in Debian's Chromium, against the real server on
 * SQLite (or MariaDB, BROWSER_DATABASE) with the inline worker sending through a `test` phone: a
 * reply from the page is delivered and shown in its thread, a message received through the phone's
 * reception callback shows up in the open thread without a reload, and opening a thread marks it
 * read, each seen through the API too.
 */
const describeInBrowser = browserAvailable() ? describe : describe.skip;

const ADA = '+33612345678';
const BOB = '+33698765432';

type Row = Record<string, unknown>;

describeInBrowser('the Conversations page, in Chromium', () => {
  let database: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  beforeAll(async () => {
    screenshotsFolder();
    database = await createBrowserDatabase();
    t = await startApp(database, { WORKER: 'inline', DISPATCH_POLL_MS: '50' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
  });

  /** A user with a `test` phone that delivers, a contact Ada, and a conversation with each. */
  async function aUserWithConversations(): Promise<{ user: ConsoleUser; phoneId: number }> {
    const ds = t.dataSource;
    const user = await makeConsoleUser(ds);
    const phone = await makePhone(ds, user.id, { adapter_data: '{"delivery":"delivered"}' });
    await makeContact(ds, user.id, { name: 'Ada Lovelace', number: ADA });
    await makeSended(ds, user.id, {
      id_phone: phone.id,
      destination: BOB,
      at: '2026-01-01 09:00:00',
      text: 'Your parcel leaves today.',
      status: 'delivered',
    });
    await makeSended(ds, user.id, {
      id_phone: phone.id,
      destination: ADA,
      at: '2026-01-01 10:00:00',
      text: 'Hello Ada, is the engine ready?',
      status: 'delivered',
    });
    await makeReceived(ds, user.id, {
      id_phone: phone.id,
      origin: ADA,
      at: '2026-01-01 10:05:00',
      text: 'Nearly: the cards are punched.',
    });
    return { user, phoneId: phone.id };
  }

  /** The caller's entries of a listing, through the API with their key. */
  async function listed(user: ConsoleUser, type: string, query: Row): Promise<Row[]> {
    const response = await request(t.url)
      .get(`/api/list/${type}/`)
      .query({ api_key: user.apiKey, ...query });
    return response.body.response as Row[];
  }

  /** Asks the API until `check` holds, for what the page does in the background. */
  async function eventually(check: () => Promise<boolean>): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      if (await check()) {
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    throw new Error('the API never showed what the page should have done');
  }

  const adaLink = (page: Page) => page.getByRole('link', { name: /Ada Lovelace/ });

  it('replies from the thread, shows a message received while open, and marks it read', async () => {
    const { user, phoneId } = await aUserWithConversations();
    // A phone the dispatch would rather choose: the reply goes through the conversation's own.
    await makePhone(t.dataSource, user.id, {
      priority: 10,
      adapter_data: '{"delivery":"delivered"}',
    });
    const page = await signedInPage(browser, t.url, user, '/conversations');
    const errors = pageErrors(page);
    try {
      // The newest conversation first, by the contact's name, with its unread message counted.
      const links = page.getByRole('navigation', { name: 'Conversations' }).getByRole('link');
      await adaLink(page).waitFor();
      await expect(links.allTextContents()).resolves.toEqual([
        expect.stringMatching(
          /^Ada Lovelace.*\+33612345678.*Nearly: the cards are punched\.1 unread$/,
        ),
        expect.stringMatching(/^\+33698765432.*You: Your parcel leaves today\.$/),
      ]);

      await adaLink(page).click();
      await page.waitForURL((url) => url.pathname === `/conversations/${encodeURIComponent(ADA)}`);
      const thread = page.getByRole('log', { name: 'Messages with Ada Lovelace' });
      await thread.getByText('Nearly: the cards are punched.').waitFor();
      await expect(thread.getByRole('listitem').allTextContents()).resolves.toEqual([
        expect.stringContaining('Hello Ada, is the engine ready?'),
        expect.stringContaining('Nearly: the cards are punched.'),
      ]);
      // Opened: the unread message is read, and the list no longer counts it.
      await eventually(
        async () =>
          (await listed(user, 'received', { origin: ADA, status: 'unread' })).length === 0,
      );
      await page.getByText('1 unread').waitFor({ state: 'detached' });
      // While the thread stays open, the message that was unread keeps its mark.
      const answer = thread.getByRole('listitem').filter({ hasText: 'Nearly' });
      await expect(answer.textContent()).resolves.toMatch(/· New$/);

      // A reply, sent by the phone, joins the thread.
      await page.getByLabel('Reply').fill('Splendid, run it tonight.');
      await page.getByRole('button', { name: 'Send' }).click();
      await thread.getByText('Splendid, run it tonight.').waitFor();
      await expect(page.getByLabel('Reply').inputValue()).resolves.toBe('');
      const sent = await listed(user, 'sended', { destination: ADA });
      expect(sent.map((row) => [row.text, row.status, row.id_phone])).toEqual([
        ['Hello Ada, is the engine ready?', 'delivered', phoneId],
        ['Splendid, run it tonight.', 'delivered', phoneId],
      ]);

      // A message received while the thread is open shows within 5 seconds, without a reload.
      const reception = await request(t.url)
        .post(`/callback/reception/test/${phoneId}/`)
        .query({ api_key: user.apiKey })
        .type('form')
        .send({ origin: ADA, text: 'It computed Bernoulli numbers!' });
      expect(reception.status).toBe(200);
      await thread.getByText('It computed Bernoulli numbers!').waitFor({ timeout: 5000 });
      await eventually(
        async () =>
          (await listed(user, 'received', { origin: ADA, status: 'unread' })).length === 0,
      );
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it.each(VIEWPORTS)(
    'shows the list, then a thread, at $width × $height without horizontal scrolling',
    async (viewport) => {
      const { user } = await aUserWithConversations();
      const page = await signedInPage(browser, t.url, user, '/conversations', viewport);
      try {
        await adaLink(page).waitFor();
        await checkPage(page, 'conversations');

        await adaLink(page).click();
        const thread = page.getByRole('log', { name: 'Messages with Ada Lovelace' });
        await thread.getByText('Nearly: the cards are punched.').waitFor();
        const back = page.getByRole('link', { name: 'Back to conversations' });
        // A phone shows the thread on its own, with the way back; a laptop keeps the list beside.
        await expect(back.isVisible()).resolves.toBe(viewport.width < 768);
        await expect(adaLink(page).isVisible()).resolves.toBe(viewport.width >= 768);
        await checkPage(page, 'conversation-thread');
      } finally {
        await page.close();
      }
    },
  );
});
