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
import { makePhone, makeReceived, makeScheduled, makeSended } from '../support/factories';
import { waitFor } from '../support/instruments';

/*
 * The console's Messages page in Debian's Chromium, against the real server on SQLite (or MariaDB,
 * BROWSER_DATABASE): its lists filtered as the API filters them, a message's detail, and a
 * scheduled message changed and deleted, each effect checked through the API with the user's key.
 */
const describeInBrowser = browserAvailable() ? describe : describe.skip;

describeInBrowser('the Messages page, in Chromium', () => {
  let database: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  let user: ConsoleUser;
  let scheduledId: number;
  let failedId: number;
  let reviewId: number;
  let failedOverId: number;
  let windowedId: number;

  beforeAll(async () => {
    screenshotsFolder();
    database = await createBrowserDatabase();
    t = await startApp(database);
    browser = await launchChromium();
    user = await makeConsoleUser(t.dataSource);
    const phone = await makePhone(t.dataSource, user.id, { name: 'Office phone' });
    const scheduled = await makeScheduled(t.dataSource, user.id, {
      at: '2099-06-01 09:30:00',
      text: 'Meeting moved to Thursday',
      tag: 'meetings',
      numbers: [{ number: '+33612345678', data: '{"name":"Ada"}' }, { number: '+33698765432' }],
    });
    scheduledId = scheduled.id;
    const review = await makeScheduled(t.dataSource, user.id, {
      at: '2099-07-01 08:00:00',
      text: 'Quarterly review: bring the figures for the third quarter and the forecast.',
      tag: 'reviews',
      numbers: [{ number: '+33612345678' }, { number: '+33698765432' }],
    });
    reviewId = review.id;
    const statuses = ['delivered', 'failed', 'unknown', 'delivered', 'failed'] as const;
    for (const [index, status] of statuses.entries()) {
      const sended = await makeSended(t.dataSource, user.id, {
        id_phone: phone.id,
        at: `2026-11-2${index} 10:00:00`,
        text: `Reminder number ${index + 1}: your appointment is tomorrow at 10.`,
        destination: `+3361234567${index}`,
        status,
        error: status === 'failed' ? 'Provider refused: destination unreachable' : null,
        tag: index % 2 === 0 ? 'reminders' : 'campaign',
        originating_scheduled: scheduledId,
        segments: 1,
        encoding: 'GSM-7',
      });
      if (status === 'failed') {
        failedId = sended.id;
      }
    }
    // Failover (docs/dispatch.md#failover): two phones refused it for reasons of their own,
    // first to last, before the office phone sent it.
    const refusing = await makePhone(t.dataSource, user.id, { name: 'Backup phone' });
    const lastResort = await makePhone(t.dataSource, user.id, { name: 'Spare phone' });
    const failedOver = await makeSended(t.dataSource, user.id, {
      id_phone: phone.id,
      at: '2026-11-27 10:00:05',
      text: 'Your code is 4821',
      destination: '+33612340000',
      status: 'delivered',
      refusals: JSON.stringify([
        {
          id_phone: refusing.id,
          adapter: 'test',
          at: '2026-11-27 10:00:01',
          reason: 'The provider refused the credentials',
        },
        {
          id_phone: lastResort.id,
          adapter: 'test',
          at: '2026-11-27 10:00:03',
          reason: 'The account has no credit left',
        },
      ]),
    });
    failedOverId = failedOver.id;
    // A Saturday, outside its window: it may go out the Monday after, when the window opens.
    const windowed = await request(t.url)
      .post('/api/scheduled/')
      .set('X-Api-Key', user.apiKey)
      .send({
        text: 'Flash sale on Monday',
        numbers: ['+33612345678'],
        at: '2099-09-05 09:00:00',
        priority: 'high',
        validity: 30,
        window: 'mon-fri 08:00-20:00',
      })
      .expect(201);
    windowedId = windowed.body.response as number;
    await makeReceived(t.dataSource, user.id, {
      id_phone: phone.id,
      at: '2026-11-26 08:15:00',
      origin: '+33611112222',
      text: 'Thanks, see you then!',
      status: 'unread',
    });
    await makeReceived(t.dataSource, user.id, {
      id_phone: phone.id,
      at: '2026-11-26 09:00:00',
      origin: '+33633334444',
      text: 'STOP',
      status: 'read',
    });
    await makeReceived(t.dataSource, user.id, {
      id_phone: phone.id,
      at: '2026-11-26 09:45:00',
      origin: '+33655556666',
      text: 'Could we make it 11 instead? The morning train is always late on Thursdays.',
      status: 'unread',
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
  });

  const withKey = (path: string) => request(t.url).get(path).set('X-Api-Key', user.apiKey);

  /** The texts of the links in the list's table, one a row. */
  async function listedTexts(page: Page): Promise<string[]> {
    return page.getByRole('table').getByRole('link').allTextContents();
  }

  /** A message's facts, each term with its definition's text. */
  async function factsOf(page: Page): Promise<Record<string, string>> {
    const terms = await page.getByRole('term').allTextContents();
    const definitions = await page.getByRole('definition').allTextContents();
    return Object.fromEntries(terms.map((term, index) => [term, definitions[index]]));
  }

  it('filters the sent messages by status as the API does, and opens one', async () => {
    const page = await signedInPage(browser, t.url, user, '/messages/sent');
    const errors = pageErrors(page);
    try {
      await page.getByRole('heading', { name: 'Sent messages' }).waitFor();
      // The heading comes before the list: wait for its rows (a header and six messages).
      const all = page.getByRole('table').getByRole('row');
      await waitFor(async () => (await all.count()) === 7, 'the list of sent messages');

      await page.getByLabel('Status').selectOption('failed');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      await page.waitForURL((url) => url.searchParams.get('status') === 'failed');
      const api = await withKey('/api/list/sended/?status=failed').expect(200);
      const expected = (api.body.response as Array<{ text: string }>).map((row) => row.text);
      expect(expected).toHaveLength(2);
      // The whole list stays shown until the filtered one comes: wait for its rows to go.
      const rows = page.getByRole('table').getByRole('row');
      await waitFor(async () => (await rows.count()) === expected.length + 1, 'the filtered list');
      await expect(listedTexts(page)).resolves.toEqual([...expected].reverse());

      // The filter is in the address: the back button returns to the whole list.
      await page.goBack();
      await page.waitForURL((url) => !url.searchParams.has('status'));
      await expect(page.getByLabel('Status').inputValue()).resolves.toBe('');
      await page.goForward();
      await page.getByRole('table').getByRole('link').first().click();

      await page.waitForURL((url) => url.pathname === `/messages/sent/${failedId}`);
      await page.getByRole('heading', { name: /Sent message to/ }).waitFor();
      const detail = (await withKey(`/api/sended/${failedId}/`).expect(200)).body.response;
      await expect(page.getByText(detail.error as string).isVisible()).resolves.toBe(true);
      // A link once a second request says the message is still scheduled.
      await page.getByRole('link', { name: `Scheduled message ${scheduledId}` }).waitFor();
      // No phone refused it: the fact is left out.
      await expect(factsOf(page)).resolves.not.toHaveProperty('Refused first');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('lists the phones that refused a sent message first, in the order they refused it', async () => {
    const page = await signedInPage(browser, t.url, user, `/messages/sent/${failedOverId}`);
    const errors = pageErrors(page);
    try {
      await page.getByRole('heading', { name: 'Sent message to +33612340000' }).waitFor();
      const detail = (await withKey(`/api/sended/${failedOverId}/`).expect(200)).body.response;
      const refusals = detail.refusals as Array<{ at: string; reason: string }>;
      expect(refusals).toHaveLength(2);
      const names = ['Backup phone', 'Spare phone'];
      const listed = page.getByRole('definition').filter({ has: page.getByRole('list') });
      // Named once the phones are loaded.
      await listed.getByRole('listitem').filter({ hasText: names[1] }).waitFor();
      await expect(listed.getByRole('listitem').allTextContents()).resolves.toEqual(
        refusals.map((refusal, index) => `${names[index]} · ${refusal.at} · ${refusal.reason}`),
      );
      await expect(factsOf(page)).resolves.toMatchObject({ Phone: 'Office phone' });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('shows a scheduled message’s priority, validity and window, and when it may go out', async () => {
    const page = await signedInPage(browser, t.url, user, `/messages/scheduled/${windowedId}`);
    try {
      await page.getByRole('heading', { name: `Scheduled message ${windowedId}` }).waitFor();
      const scheduled = (await withKey(`/api/scheduled/${windowedId}/`).expect(200)).body.response;
      expect(scheduled.send_after).not.toBe(scheduled.at);
      await expect(factsOf(page)).resolves.toMatchObject({
        'Send at': scheduled.at,
        'May go out from': scheduled.send_after,
        Priority: 'high',
        Validity: '30 minutes after it is due',
        'Send window': 'mon-fri 08:00-20:00',
      });

      // A message without a window of its own waits for the user's usual one; it goes when due.
      await page.goto(`${t.url}/messages/scheduled/${reviewId}`);
      await page.getByRole('heading', { name: `Scheduled message ${reviewId}` }).waitFor();
      const review = await factsOf(page);
      expect(review).toMatchObject({
        Priority: 'normal',
        Validity: 'no limit',
        'Send window': 'your usual window, from your settings',
      });
      expect(review).not.toHaveProperty('May go out from');

      // The list says it waits, beside its time.
      await page.goto(`${t.url}/messages/scheduled`);
      await page
        .getByRole('row')
        .filter({ hasText: 'Flash sale on Monday' })
        .getByText(`waits for its window until ${scheduled.send_after}`)
        .waitFor();
    } finally {
      await page.close();
    }
  });

  it('refuses a filter the API refuses, with its message at that filter', async () => {
    const page = await signedInPage(browser, t.url, user, '/messages/sent');
    try {
      await page.getByLabel('To number').fill('not a number');
      await page.getByRole('button', { name: 'Apply filters' }).click();
      const api = await withKey('/api/list/sended/?destination=not%20a%20number').expect(400);
      const field = page.getByLabel('To number');
      await page.getByRole('alert').filter({ hasText: api.body.message }).waitFor();
      await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');
    } finally {
      await page.close();
    }
  });

  it('marks a received message read', async () => {
    const page = await signedInPage(browser, t.url, user, '/messages/received');
    try {
      await page.getByRole('link', { name: 'Thanks, see you then!' }).click();
      await page.getByRole('button', { name: 'Mark as read' }).click();
      await page.getByRole('button', { name: 'Mark as unread' }).waitFor();
      const api = await withKey('/api/list/received/?status=read&origin=%2B33611112222');
      expect(api.body.response).toHaveLength(1);
    } finally {
      await page.close();
    }
  });

  it('changes a scheduled message, shows a refusal at its field, and deletes it', async () => {
    const page = await signedInPage(browser, t.url, user, '/messages/scheduled');
    const errors = pageErrors(page);
    try {
      await page.getByRole('link', { name: 'Meeting moved to Thursday' }).click();
      await page.getByRole('heading', { name: `Scheduled message ${scheduledId}` }).waitFor();

      await page.getByLabel('Text').fill('Meeting moved to Friday');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      const changed = (await withKey(`/api/scheduled/${scheduledId}/`).expect(200)).body.response;
      expect(changed.text).toBe('Meeting moved to Friday');
      // The numbers were not changed: their template data stays.
      expect(changed.numbers[0].data).toBe('{"name":"Ada"}');

      // A number kept keeps its template data; one the API cannot read is dropped, and said so.
      await page.getByLabel('Numbers').fill('+33612345678\n+33611223344\nnot a number');
      await page.getByLabel('Send at').fill('2099-06-02T10:15:00');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'not a number' }).waitFor();
      const renumbered = (await withKey(`/api/scheduled/${scheduledId}/`).expect(200)).body
        .response;
      expect(renumbered.at).toBe('2099-06-02 10:15:00');
      expect(renumbered.text).toBe('Meeting moved to Friday');
      expect(
        (renumbered.numbers as Array<{ number: string; data: string }>).map((row) => [
          row.number,
          row.data,
        ]),
      ).toEqual([
        ['+33612345678', '{"name":"Ada"}'],
        ['+33611223344', '[]'],
      ]);

      const tooLong = 'x'.repeat(1001);
      const refusal = await request(t.url)
        .post(`/api/scheduled/${scheduledId}/`)
        .set('X-Api-Key', user.apiKey)
        .send({ text: tooLong })
        .expect(400);
      await page.getByLabel('Text').fill(tooLong);
      await page.getByRole('button', { name: 'Save changes' }).click();
      const text = page.getByLabel('Text');
      await page.getByRole('alert').filter({ hasText: refusal.body.message }).waitFor();
      await expect(text.getAttribute('aria-invalid')).resolves.toBe('true');
      const describedBy = (await text.getAttribute('aria-describedby')) ?? '';
      const described = await Promise.all(
        describedBy.split(' ').map((id) => page.locator(`[id="${id}"]`).textContent()),
      );
      expect(described).toContain(refusal.body.message);

      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('button', { name: 'Yes, delete it' }).click();
      await page.waitForURL((url) => url.pathname === '/messages/scheduled');
      await withKey(`/api/scheduled/${scheduledId}/`).expect(404);
      await page.getByRole('link', { name: /Quarterly review/ }).waitFor();
      await expect(page.getByRole('link', { name: /Meeting moved/ }).count()).resolves.toBe(0);
      expect(errors.filter((error) => !error.includes('400'))).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('pages through the API’s cursors, newest first, with the page in the address', async () => {
    const reader = await makeConsoleUser(t.dataSource);
    for (let index = 1; index <= 30; index++) {
      await makeSended(t.dataSource, reader.id, { text: `Message ${index}` });
    }
    const page = await signedInPage(browser, t.url, reader, '/messages/sent');
    try {
      await page.getByRole('link', { name: 'Message 30', exact: true }).waitFor();
      const newest = await listedTexts(page);
      expect(newest).toHaveLength(25);
      expect(newest[0]).toBe('Message 30');
      expect(newest[24]).toBe('Message 6');
      await expect(page.getByRole('link', { name: 'Newer' }).count()).resolves.toBe(0);

      await page.getByRole('link', { name: 'Older' }).click();
      await page.waitForURL((url) => url.searchParams.has('before_id'));
      const before = new URL(page.url()).searchParams.get('before_id');
      const api = await request(t.url)
        .get(`/api/list/sended/before/${before}/`)
        .set('X-Api-Key', reader.apiKey)
        .expect(200);
      const expected = (api.body.response as Array<{ text: string }>)
        .map((row) => row.text)
        .reverse();
      expect(expected).toEqual(['Message 5', 'Message 4', 'Message 3', 'Message 2', 'Message 1']);
      await page.getByRole('link', { name: 'Message 1', exact: true }).waitFor();
      await expect(listedTexts(page)).resolves.toEqual(expected);
      await expect(page.getByRole('link', { name: 'Older' }).count()).resolves.toBe(0);

      await page.getByRole('link', { name: 'Newer' }).click();
      await page.waitForURL((url) => url.searchParams.has('after_id'));
      await page.getByRole('link', { name: 'Message 6', exact: true }).waitFor();
      await expect(listedTexts(page)).resolves.toHaveLength(25);
      await page.goBack();
      await page.getByRole('link', { name: 'Message 1', exact: true }).waitFor();
    } finally {
      await page.close();
    }
  });

  it('shows the API’s refusal of a change once the message has left the schedule', async () => {
    const leaving = await makeScheduled(t.dataSource, user.id, {
      at: '2099-08-01 08:00:00',
      text: 'About to be taken',
      numbers: [{ number: '+33612345678' }],
    });
    const page = await signedInPage(browser, t.url, user, `/messages/scheduled/${leaving.id}`);
    try {
      await page.getByLabel('Text').fill('Too late for this');
      // What the dispatch does when it takes the message: it is no longer scheduled.
      await request(t.url)
        .delete(`/api/scheduled/${leaving.id}/`)
        .set('X-Api-Key', user.apiKey)
        .expect(200);
      const refusal = await request(t.url)
        .post(`/api/scheduled/${leaving.id}/`)
        .set('X-Api-Key', user.apiKey)
        .send({ text: 'Too late for this' })
        .expect(404);
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('alert').filter({ hasText: refusal.body.message }).waitFor();
    } finally {
      await page.close();
    }
  });

  it.each(VIEWPORTS)('shows every view at $width × $height', async (viewport) => {
    const page = await signedInPage(browser, t.url, user, '/messages/sent', viewport);
    try {
      await page.getByRole('table').waitFor();
      await checkPage(page, 'messages-sent');

      await page.getByRole('link', { name: 'Received', exact: true }).click();
      await page.getByRole('table').waitFor();
      await checkPage(page, 'messages-received');

      await page.getByRole('link', { name: 'Scheduled', exact: true }).click();
      await page.getByRole('link', { name: /Quarterly review/ }).waitFor();
      await checkPage(page, 'messages-scheduled');

      await page.goto(`${t.url}/messages/sent/${failedId}`);
      await page.getByRole('heading', { name: /Sent message to/ }).waitFor();
      await checkPage(page, 'message-detail');

      await page.goto(`${t.url}/messages/sent/${failedOverId}`);
      await page.getByRole('listitem').filter({ hasText: 'Backup phone' }).waitFor();
      await checkPage(page, 'message-detail-refusals');

      await page.goto(`${t.url}/messages/scheduled/${reviewId}`);
      await page.getByRole('button', { name: 'Save changes' }).waitFor();
      await checkPage(page, 'message-scheduled-detail');

      await page.goto(`${t.url}/messages/scheduled/${windowedId}`);
      await page.getByRole('button', { name: 'Save changes' }).waitFor();
      await checkPage(page, 'message-scheduled-window');
    } finally {
      await page.close();
    }
  });
});
