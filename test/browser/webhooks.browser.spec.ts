import { createHmac } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import {
  browserAvailable,
  checkPage,
  createBrowserDatabase,
  ConsoleUser,
  launchChromium,
  makeConsoleUser,
  pageErrors,
  screenshotsFolder,
  signedInPage,
  VIEWPORTS,
} from '../support/browser';
import type { TestDatabase } from '../support/databases';
import { waitFor } from '../support/instruments';

/*
 * The console's Webhooks page in Debian's Chromium, against the real server on SQLite (or MariaDB,
 * BROWSER_DATABASE) with its dispatch and webhook deliveries running inline: a webhook added to a
 * receiver this test runs on 127.0.0.1, tested, fed by a message sent through a `test` phone,
 * failed and retried from its delivery log, disabled, changed and deleted, each effect checked
 * through the API.
 */
const describeInBrowser = browserAvailable() ? describe : describe.skip;

/** What the receiver got: the form fields of a `raspisms` delivery, or the raw JSON body. */
interface Received {
  path: string;
  fields: URLSearchParams;
  body: string;
}

/** A plain HTTP receiver of webhooks that answers 200, or 500 while `failing` is set. */
class Receiver {
  readonly received: Received[] = [];
  failing = false;
  private server!: Server;
  url = '';

  async start(): Promise<void> {
    this.server = createServer((incoming, response) => {
      const chunks: Buffer[] = [];
      incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
      incoming.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.received.push({ path: incoming.url ?? '/', fields: new URLSearchParams(body), body });
        response.writeHead(this.failing ? 500 : 200, { 'Content-Type': 'text/plain' });
        response.end(this.failing ? 'receiver is down for maintenance' : 'thanks');
      });
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  ofType(type: string): Received[] {
    return this.received.filter((got) => got.fields.get('webhook_type') === type);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

interface ApiWebhook {
  id: number;
  url: string;
  type: string;
  format: string;
  secret: string;
  enabled: boolean;
}

interface ApiDelivery {
  id: number;
  event_type: string;
  status: string;
  attempts: number;
  last_http_status: number | null;
  last_error: string | null;
  attempt_log: Array<{
    started_at: string;
    http_status: number | null;
    answer: string | null;
    error: string | null;
  }>;
  attempt_log_total: number;
}

describeInBrowser('the Webhooks page, in Chromium', () => {
  let database: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  let user: ConsoleUser;
  const receiver = new Receiver();

  beforeAll(async () => {
    screenshotsFolder();
    database = await createBrowserDatabase();
    // The receiver listens on 127.0.0.1: the outbound policy lets webhooks reach private and
    // loopback addresses unless OUTBOUND_BLOCK_PRIVATE is set, as the delivery e2e specs rely on.
    t = await startApp(database, {
      WORKER: 'inline',
      DISPATCH_POLL_MS: '20',
      OUTBOUND_BLOCK_PRIVATE: 'false',
      WEBHOOK_TIMEOUT_MS: '2000',
    });
    browser = await launchChromium();
    user = await makeConsoleUser(t.dataSource);
    await receiver.start();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await receiver.close();
    await database?.drop();
  });

  const withKey = (path: string) => request(t.url).get(path).set('X-Api-Key', user.apiKey);
  const postWithKey = (path: string, fields: Record<string, unknown>) =>
    request(t.url).post(path).set('X-Api-Key', user.apiKey).send(fields);
  const webhooks = async () =>
    (await withKey('/api/webhook/').expect(200)).body.response as ApiWebhook[];
  const deliveries = async (id: number) =>
    (await withKey(`/api/webhook/${id}/deliveries/`).expect(200)).body.response as ApiDelivery[];

  /** The row of the delivery log that shows delivery `id`. */
  const logRow = (page: Page, id: number) =>
    page
      .getByRole('table', { name: /^Deliveries of this webhook/ })
      .getByRole('row')
      .filter({ hasText: new RegExp(`#${id}(?!\\d)`) });

  it('adds a webhook, tests it, shows its deliveries, retries a failed one, disables, changes and deletes it', async () => {
    const page = await signedInPage(browser, t.url, user, '/webhooks');
    const errors = pageErrors(page);
    try {
      await page.getByText('No webhook yet.').waitFor();

      // The API's refusal of a URL, at the URL field.
      await page.getByRole('link', { name: 'Add a webhook' }).click();
      await page.getByRole('heading', { name: 'Add a webhook' }).waitFor();
      const badUrl = 'ftp://127.0.0.1/hook';
      await page.getByLabel('URL').fill(badUrl);
      await page.getByRole('button', { name: 'Add the webhook' }).click();
      const refusal = await postWithKey('/api/webhook/', {
        url: badUrl,
        type: 'receive_sms',
      }).expect(400);
      await page.getByRole('alert').filter({ hasText: refusal.body.message }).waitFor();
      await expect(page.getByLabel('URL').getAttribute('aria-invalid')).resolves.toBe('true');
      expect(await webhooks()).toEqual([]);

      await page.getByLabel('URL').fill(`${receiver.url}/hooks/sms`);
      await page.getByLabel('Events', { exact: true }).selectOption('send_sms');
      await page.getByRole('button', { name: 'Add the webhook' }).click();
      await page.waitForURL((url) => /^\/webhooks\/\d+$/.test(url.pathname));
      const [created] = await webhooks();
      expect(created).toMatchObject({
        url: `${receiver.url}/hooks/sms`,
        type: 'send_sms',
        format: 'raspisms',
        enabled: true,
      });
      expect(created.secret).toMatch(/^[0-9a-f]{32}$/);
      expect(page.url()).toBe(`${t.url}/webhooks/${created.id}`);
      await page.getByRole('heading', { name: `Webhook ${created.id}` }).waitFor();

      // The secret the API generated, out of sight until asked.
      await expect(page.getByText(created.secret).isVisible()).resolves.toBe(false);
      await page.getByRole('button', { name: 'Show secret' }).click();
      await expect(page.getByText(created.secret).isVisible()).resolves.toBe(true);
      await page.getByRole('button', { name: 'Hide secret' }).click();

      // The test button: a ping the receiver gets, signed with that secret, and its answer.
      await page.getByRole('button', { name: 'Send a test' }).click();
      await page
        .getByRole('status')
        .filter({
          hasText: /^Test delivery #\d+ delivered: the endpoint answered HTTP 200: thanks\.$/,
        })
        .waitFor();
      const [ping] = receiver.ofType('ping');
      expect(ping.path).toBe('/hooks/sms');
      expect(ping.fields.get('webhook_signature')).toBe(
        createHmac('sha256', created.secret)
          .update(ping.fields.get('webhook_random_id') ?? '')
          .digest('hex'),
      );
      const [pingDelivery] = await deliveries(created.id);
      expect(pingDelivery).toMatchObject({ event_type: 'ping', status: 'delivered' });
      await expect(logRow(page, pingDelivery.id).textContent()).resolves.toContain('delivered');
      await expect(
        logRow(page, pingDelivery.id).getByRole('cell', { name: 'thanks', exact: true }).count(),
      ).resolves.toBe(1);

      // An event: a message sent by a phone of the `test` adapter, made through the API.
      await postWithKey('/api/phone/', { name: 'Front desk', adapter: 'test' }).expect(201);
      await postWithKey('/api/scheduled/', {
        text: 'Your parcel is on its way.',
        numbers: ['+33611223344'],
      }).expect(201);
      await waitFor(
        () => Promise.resolve(receiver.ofType('send_sms').length === 1),
        'the send_sms event',
      );
      const payload = JSON.parse(receiver.ofType('send_sms')[0].fields.get('body') ?? '{}');
      expect(payload).toMatchObject({
        text: 'Your parcel is on its way.',
        destination: '+33611223344',
      });
      await waitFor(
        async () => (await deliveries(created.id))[0].status === 'delivered',
        'the send_sms delivery to be recorded',
      );
      const [sent] = await deliveries(created.id);
      expect(sent.event_type).toBe('send_sms');
      const sentRow = logRow(page, sent.id);
      await sentRow.filter({ hasText: 'delivered' }).waitFor();
      await expect(sentRow.textContent()).resolves.toContain('send_sms');
      await expect(sentRow.textContent()).resolves.toContain('200');

      // The receiver fails: the attempt's status and the excerpt of its answer in the log.
      receiver.failing = true;
      await page.getByRole('button', { name: 'Send a test' }).click();
      const excerpt = 'The endpoint answered HTTP 500: receiver is down for maintenance.';
      await page.getByRole('status').filter({ hasText: excerpt }).waitFor();
      const [failing] = await deliveries(created.id);
      expect(failing).toMatchObject({
        event_type: 'ping',
        status: 'pending',
        attempts: 1,
        last_http_status: 500,
        last_error: excerpt,
      });
      const failingRow = logRow(page, failing.id);
      await failingRow.filter({ hasText: excerpt }).waitFor();
      await expect(failingRow.textContent()).resolves.toContain('500');
      await expect(
        failingRow
          .getByRole('cell', { name: 'receiver is down for maintenance', exact: true })
          .count(),
      ).resolves.toBe(1);
      await checkPage(page, 'webhooks-detail-failing');

      // Disabled, its waiting delivery fails; the API refuses its retry, in the API's words.
      await page.getByRole('button', { name: 'Disable' }).click();
      await page.getByRole('button', { name: 'Enable' }).waitFor();
      expect((await withKey(`/api/webhook/${created.id}/`).expect(200)).body.response.enabled).toBe(
        false,
      );
      await failingRow.filter({ hasText: 'The webhook was disabled by its user.' }).waitFor();
      await failingRow.getByRole('button', { name: `Retry delivery ${failing.id}` }).click();
      const refused = await postWithKey(
        `/api/webhook/${created.id}/deliveries/${failing.id}/retry/`,
        {},
      ).expect(422);
      await failingRow.getByRole('alert').filter({ hasText: refused.body.message }).waitFor();

      // Enabled again and the receiver back: the retry delivers the same event.
      receiver.failing = false;
      await page.getByRole('button', { name: 'Enable' }).click();
      await page.getByRole('button', { name: 'Disable' }).waitFor();
      await failingRow.getByRole('button', { name: `Retry delivery ${failing.id}` }).click();
      await failingRow.filter({ hasText: 'delivered' }).waitFor();
      const retried = (await deliveries(created.id)).find((row) => row.id === failing.id);
      expect(retried).toMatchObject({ status: 'delivered', attempts: 2, last_http_status: 200 });
      const pings = receiver.ofType('ping');
      expect(pings.at(-1)?.fields.get('webhook_random_id')).toBe(
        pings.at(-2)?.fields.get('webhook_random_id'),
      );
      await expect(failingRow.textContent()).resolves.not.toContain('maintenance');

      // Its two attempts under it, newest first: the retry that delivered, then the failure,
      // each with its time, its HTTP status and its answer, as the API lists them.
      expect(retried).toMatchObject({
        attempt_log_total: 2,
        attempt_log: [
          { http_status: 200, answer: 'thanks', error: null },
          { http_status: 500, answer: 'receiver is down for maintenance', error: excerpt },
        ],
      });
      const toggle = failingRow.getByRole('button', {
        name: `2 attempts of delivery ${failing.id}`,
      });
      await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('false');
      await toggle.click();
      await expect(toggle.getAttribute('aria-expanded')).resolves.toBe('true');
      const attemptRows = page
        .getByRole('table', { name: `Attempts of delivery ${failing.id}, newest first` })
        .getByRole('row');
      await expect(attemptRows.count()).resolves.toBe(3);
      const [newest, oldest] = retried!.attempt_log;
      const delivered = await attemptRows.nth(1).textContent();
      expect(delivered).toContain(newest.started_at);
      expect(delivered).toContain('HTTP 200');
      expect(delivered).toContain('thanks');
      const failed = await attemptRows.nth(2).textContent();
      expect(failed).toContain(oldest.started_at);
      expect(failed).toContain('HTTP 500');
      expect(failed).toContain('receiver is down for maintenance');
      await toggle.click();
      await expect(attemptRows.count()).resolves.toBe(0);

      // Changed: a secret the format refuses, at its field; then a new URL and format.
      await page.getByLabel('New secret').fill('too short');
      await page.getByRole('button', { name: 'Save changes' }).click();
      const badSecret = await postWithKey(`/api/webhook/${created.id}/`, {
        secret: 'too short',
      }).expect(400);
      await page.getByRole('alert').filter({ hasText: badSecret.body.message }).waitFor();
      await expect(page.getByLabel('New secret').getAttribute('aria-invalid')).resolves.toBe(
        'true',
      );
      await page.getByLabel('New secret').fill('');
      await page.getByLabel('URL').fill(`${receiver.url}/hooks/v2`);
      await page.getByLabel('Format').selectOption('standard');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      const changed = (await withKey(`/api/webhook/${created.id}/`).expect(200)).body
        .response as ApiWebhook;
      expect(changed).toMatchObject({ url: `${receiver.url}/hooks/v2`, format: 'standard' });
      expect(changed.secret).toMatch(/^whsec_/);
      await page.getByRole('button', { name: 'Show secret' }).click();
      await page.getByText(changed.secret).waitFor();
      await expect(
        page.getByRole('definition').filter({ hasText: '/hooks/v2' }).count(),
      ).resolves.toBe(1);

      // Deleted, after its confirmation.
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('button', { name: 'Yes, delete it' }).click();
      await page.waitForURL((url) => url.pathname === '/webhooks');
      await page.getByText('No webhook yet.').waitFor();
      expect(await webhooks()).toEqual([]);
      expect(errors.filter((error) => !/status of (400|422)/.test(error))).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('pages the delivery log as the API does', async () => {
    const id = (
      await postWithKey('/api/webhook/', { url: `${receiver.url}/paged`, type: 'quota' }).expect(
        201,
      )
    ).body.response as number;
    const pings: number[] = [];
    for (let i = 0; i < 26; i += 1) {
      pings.push((await postWithKey(`/api/webhook/${id}/test/`, {}).expect(200)).body.response);
    }
    const page = await signedInPage(browser, t.url, user, `/webhooks/${id}`);
    try {
      const rows = page
        .getByRole('table', { name: /^Deliveries of this webhook/ })
        .getByRole('row');
      await logRow(page, pings[25]).waitFor();
      await expect(rows.count()).resolves.toBe(26);
      await expect(logRow(page, pings[0]).count()).resolves.toBe(0);
      await page.getByRole('link', { name: 'Older' }).click();
      await page.waitForURL((url) => url.searchParams.get('page') === '1');
      await logRow(page, pings[0]).waitFor();
      await expect(rows.count()).resolves.toBe(2);
      await page.getByRole('link', { name: 'Newer' }).click();
      await logRow(page, pings[25]).waitFor();
    } finally {
      await page.close();
    }
    await request(t.url).delete(`/api/webhook/${id}/`).set('X-Api-Key', user.apiKey).expect(200);
  });

  it.each(VIEWPORTS)(
    'shows each view at %o without a serious accessibility violation',
    async (viewport) => {
      const size = `${viewport.width}x${viewport.height}`;
      const id = (
        await postWithKey('/api/webhook/', {
          url: `${receiver.url}/views-${size}/a-rather-long-path/that-must-wrap/on-a-phone`,
          type: 'receive_sms',
        }).expect(201)
      ).body.response as number;
      await postWithKey('/api/webhook/', {
        url: `${receiver.url}/views-${size}/off`,
        type: 'quota',
        format: 'standard',
        enabled: false,
      }).expect(201);
      await postWithKey(`/api/webhook/${id}/test/`, {}).expect(200);
      await waitFor(
        async () => (await deliveries(id))[0].status === 'delivered',
        'the first test to be delivered',
      );
      // A test that failed, then delivered by a retry: two attempts to show.
      receiver.failing = true;
      const retried = (await postWithKey(`/api/webhook/${id}/test/`, {}).expect(200)).body
        .response as number;
      await waitFor(
        async () => (await deliveries(id))[0].last_http_status !== null,
        'the second test to be answered',
      );
      await postWithKey(`/api/webhook/${id}/`, { enabled: false }).expect(200);
      await postWithKey(`/api/webhook/${id}/`, { enabled: true }).expect(200);
      receiver.failing = false;
      await postWithKey(`/api/webhook/${id}/deliveries/${retried}/retry/`, {}).expect(200);
      await waitFor(
        async () => (await deliveries(id))[0].status === 'delivered',
        'the retry to be delivered',
      );
      receiver.failing = true;
      await postWithKey(`/api/webhook/${id}/test/`, {}).expect(200);
      await waitFor(
        async () => (await deliveries(id)).every((row) => row.last_http_status !== null),
        'every test to be answered',
      );
      receiver.failing = false;
      await postWithKey(`/api/webhook/${id}/`, { enabled: false }).expect(200);

      const page = await signedInPage(browser, t.url, user, '/webhooks', viewport);
      try {
        await page.getByRole('table', { name: 'Your webhooks' }).waitFor();
        await checkPage(page, 'webhooks-list');

        await page.getByRole('link', { name: 'Add a webhook' }).click();
        await page.getByLabel('URL').fill('not a url');
        await page.getByRole('button', { name: 'Add the webhook' }).click();
        await page.getByRole('alert').filter({ hasText: 'url must be' }).waitFor();
        await checkPage(page, 'webhooks-new');

        await page.goto(`${t.url}/webhooks/${id}`);
        await page.getByRole('table', { name: /^Deliveries of this webhook/ }).waitFor();
        await page.getByRole('button', { name: 'Show secret' }).click();
        await page
          .getByRole('button', { name: /^Retry delivery/ })
          .first()
          .waitFor();
        await checkPage(page, 'webhooks-detail');

        await page.getByRole('button', { name: `2 attempts of delivery ${retried}` }).click();
        await page
          .getByRole('table', { name: `Attempts of delivery ${retried}, newest first` })
          .waitFor();
        await checkPage(page, 'webhooks-detail-attempts');
      } finally {
        await page.close();
      }
      for (const webhook of await webhooks()) {
        await request(t.url).delete(`/api/webhook/${webhook.id}/`).set('X-Api-Key', user.apiKey);
      }
    },
  );
});
