import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import {
  browserAvailable,
  checkPage,
  CONSOLE_PASSWORD,
  type ConsoleUser,
  createBrowserDatabase,
  launchChromium,
  makeConsoleUser,
  pageErrors,
  SCREENSHOTS,
  VIEWPORTS,
} from '../support/browser';
import type { TestDatabase } from '../support/databases';
import { waitFor } from '../support/instruments';

/*
 * The README's "First steps in the console", walked exactly as written: sign in, add a phone,
 * import contacts, make a group, send it a templated message, read a reply, add a webhook. Each
 * step's effect is checked through the API, and each step leaves one screenshot; with
 * DOCS_SCREENSHOTS=1 they are written to docs/first-steps/, where the README shows them.
 */
const describeInBrowser = browserAvailable() ? describe : describe.skip;

const DOCS_FOLDER = join(__dirname, '..', '..', 'docs', 'first-steps');

const CONTACTS_CSV =
  'name,number,firstname\n' +
  'Ada Lovelace,+33612340001,Ada\n' +
  'Alan Turing,+33612340002,Alan\n' +
  'Grace Hopper,+33612340003,Grace\n';

interface Listed {
  id: number;
  name?: string;
  destination?: string;
  text?: string;
  status?: string;
}

/** A receiver on 127.0.0.1 that keeps the bodies it is sent and answers 200. */
async function startReceiver(): Promise<{ url: string; bodies: string[]; server: Server }> {
  const bodies: string[] = [];
  const server = createServer((incoming: IncomingMessage, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', () => {
      bodies.push(Buffer.concat(chunks).toString('utf8'));
      response.writeHead(200, { 'Content-Type': 'text/plain' }).end('received');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, bodies, server };
}

describeInBrowser('the first steps in the console, as the README gives them', () => {
  let database: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  let user: ConsoleUser;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    mkdirSync(join(SCREENSHOTS, 'first-steps'), { recursive: true });
    if (process.env.DOCS_SCREENSHOTS === '1') {
      mkdirSync(DOCS_FOLDER, { recursive: true });
    }
    database = await createBrowserDatabase();
    t = await startApp(database, {
      WORKER: 'inline',
      DISPATCH_POLL_MS: '20',
      OUTBOUND_BLOCK_PRIVATE: 'false',
    });
    browser = await launchChromium();
    user = await makeConsoleUser(t.dataSource);
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
    await new Promise((resolve) => receiver?.server.close(resolve));
  });

  async function listed(type: string, query: Record<string, string> = {}): Promise<Listed[]> {
    const answer = await request(t.url)
      .get(`/api/list/${type}/`)
      .query(query)
      .set('X-Api-Key', user.apiKey);
    expect(answer.status).toBe(200);
    return answer.body.response as Listed[];
  }

  /** The step's checks (axe, no sideways scrolling) and its screenshot, for docs/ when asked. */
  async function step(page: Page, name: string): Promise<void> {
    await checkPage(page, join('first-steps', name));
    if (process.env.DOCS_SCREENSHOTS === '1') {
      await page.screenshot({ path: join(DOCS_FOLDER, `${name}.png`) });
    }
  }

  const navigateTo = (page: Page, name: string) =>
    page.getByRole('navigation', { name: 'Pages' }).getByRole('link', { name }).click();

  it('signs in, adds a phone, imports contacts, makes a group, sends to it, reads a reply and adds a webhook', async () => {
    const page = await browser.newPage({ viewport: VIEWPORTS[1] });
    try {
      // 1. Sign in.
      await page.goto(t.url);
      await page.getByLabel('Email').fill(user.email);
      await page.getByLabel('Password').fill(CONSOLE_PASSWORD);
      await step(page, '1-sign-in');
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('navigation', { name: 'Pages' }).waitFor();
      // Before signing in, the session's check is refused (401), as it should be.
      const errors = pageErrors(page);

      // 2. Add a phone: the `test` adapter, which delivers without a provider.
      await navigateTo(page, 'Phones');
      await page.getByRole('link', { name: 'Add a phone' }).click();
      await page.getByLabel('Name', { exact: true }).fill('My first phone');
      await page.getByLabel('Adapter').selectOption('test');
      await page.getByLabel('delivery').fill('delivered');
      await step(page, '2-add-a-phone');
      await page.getByRole('button', { name: 'Add the phone' }).click();
      await page.getByRole('heading', { name: 'My first phone' }).waitFor();
      const [phone] = await listed('phone');
      expect(phone).toMatchObject({ name: 'My first phone' });

      // 3. Import contacts from a CSV file.
      await navigateTo(page, 'Contacts and groups');
      await page.getByRole('link', { name: 'Import CSV' }).click();
      await page.getByLabel('CSV file', { exact: true }).setInputFiles({
        name: 'contacts.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from(CONTACTS_CSV, 'utf8'),
      });
      await page.getByRole('button', { name: 'Import' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: 'Imported 3 contacts: 3 created, 0 updated.' })
        .waitFor();
      await step(page, '3-import-contacts');
      expect((await listed('contact')).map((contact) => contact.name).sort()).toEqual([
        'Ada Lovelace',
        'Alan Turing',
        'Grace Hopper',
      ]);

      // 4. Make a group of two of them.
      await page.getByRole('link', { name: 'Groups', exact: true }).click();
      await page.getByRole('link', { name: 'New group' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Pioneers');
      const search = page.getByLabel('Search contacts by name');
      await search.fill('ada');
      await page.getByRole('button', { name: 'Add Ada Lovelace (+33612340001)' }).click();
      await search.fill('grace');
      await page.getByRole('button', { name: 'Add Grace Hopper (+33612340003)' }).click();
      await step(page, '4-make-a-group');
      await page.getByRole('button', { name: 'Create group' }).click();
      await page.getByRole('heading', { name: 'Pioneers' }).waitFor();
      const [group] = await listed('group');
      expect(group).toMatchObject({ name: 'Pioneers' });

      // 5. Send the group a templated message.
      await navigateTo(page, 'Send');
      await page.getByText('Groups (0)', { exact: true }).click();
      await page
        .getByRole('group', { name: 'Groups', exact: true })
        .getByRole('button', { name: 'Add Pioneers (2)' })
        .click();
      await page
        .getByLabel('Text', { exact: true })
        .fill('Hello {{ contact.firstname }}, the lab opens at 9 tomorrow. Coming?');
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await page.getByRole('heading', { name: /^Scheduled message \d+$/ }).waitFor();
      let sent: Listed[] = [];
      await waitFor(async () => {
        sent = await listed('sended');
        return sent.length === 2 && sent.every((entry) => entry.status === 'delivered');
      }, 'the two messages delivered');
      expect(sent.map((entry) => [entry.destination, entry.text]).sort()).toEqual([
        ['+33612340001', 'Hello Ada, the lab opens at 9 tomorrow. Coming?'],
        ['+33612340003', 'Hello Grace, the lab opens at 9 tomorrow. Coming?'],
      ]);
      await page.getByRole('cell', { name: '+33612340003' }).waitFor();
      await step(page, '5-send-to-the-group');

      // 6. Read a reply: Ada answers through the phone's provider.
      const reception = await request(t.url)
        .post(`/callback/reception/test/${phone.id}/`)
        .query({ api_key: user.apiKey })
        .type('form')
        .send({ origin: '+33612340001', text: 'Count me in!' });
      expect(reception.status).toBe(200);
      await navigateTo(page, 'Conversations');
      await page.getByRole('link', { name: /Ada Lovelace/ }).click();
      await page
        .getByRole('log', { name: 'Messages with Ada Lovelace' })
        .getByText('Count me in!')
        .waitFor();
      await step(page, '6-read-a-reply');
      await waitFor(
        async () => (await listed('received', { status: 'unread' })).length === 0,
        'the reply marked read',
      );

      // 7. Add a webhook, which tells a system of yours about each message received.
      await navigateTo(page, 'Webhooks');
      await page.getByRole('link', { name: 'Add a webhook' }).click();
      await page.getByLabel('URL').fill(`${receiver.url}/sms-received`);
      await page.getByLabel('Events', { exact: true }).selectOption('receive_sms');
      await page.getByRole('button', { name: 'Add the webhook' }).click();
      await page.getByRole('heading', { name: /^Webhook \d+$/ }).waitFor();
      await page.getByRole('button', { name: 'Send a test' }).click();
      await page.getByRole('status').filter({ hasText: 'HTTP 200' }).waitFor();
      await step(page, '7-add-a-webhook');
      const [webhook] = (await request(t.url).get('/api/webhook/').set('X-Api-Key', user.apiKey))
        .body.response as Array<{ url: string; type: string }>;
      expect(webhook).toMatchObject({ url: `${receiver.url}/sms-received`, type: 'receive_sms' });
      expect(receiver.bodies).toHaveLength(1);

      // The next reply reaches the webhook's receiver.
      await request(t.url)
        .post(`/callback/reception/test/${phone.id}/`)
        .query({ api_key: user.apiKey })
        .type('form')
        .send({ origin: '+33612340003', text: 'Me too.' });
      // RaspiSMS's wire format: a form whose `body` field holds the event's JSON.
      const events = () =>
        receiver.bodies
          .map((body) => new URLSearchParams(body))
          .map((form) => ({
            type: form.get('webhook_type'),
            body: JSON.parse(form.get('body') ?? 'null') as { text?: string; origin?: string },
          }));
      await waitFor(() => Promise.resolve(events().length === 2), 'the reply at the webhook');
      expect(events()[1]).toMatchObject({
        type: 'receive_sms',
        body: { text: 'Me too.', origin: '+33612340003' },
      });
      // The Send page reads the message it created until the dispatch has taken it (then 404),
      // and shows its sent entries instead: the browser logs that 404, and nothing else.
      expect(errors.filter((error) => !error.includes('status of 404'))).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
