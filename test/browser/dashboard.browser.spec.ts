import type { Browser, Locator, Page } from 'playwright-core';
import request from 'supertest';
import { startApp, TestApp } from '../support/app';
import {
  browserAvailable,
  createBrowserDatabase,
  checkPage,
  type ConsoleUser,
  launchChromium,
  makeConsoleUser,
  pageErrors,
  screenshotsFolder,
  signedInPage,
  VIEWPORTS,
} from '../support/browser';
import { countExisting } from '../../src/database/migrations/1765200000000-DashboardStatistics';
import type { SendedStatus } from '../../src/sended/entities/sended.entity';
import { PhoneReliabilityHistory } from '../../src/reliability/entities/phone-reliability-history.entity';
import type { TestDatabase } from '../support/databases';
import {
  makePhone,
  makeQuota,
  makeReceived,
  makeScheduled,
  makeSended,
} from '../support/factories';

/*
 * The dashboard in Chromium against the real server on SQLite (or MariaDB, BROWSER_DATABASE): a
 * user with two phones, messages sent and received on several days, scheduled messages due and to
 * come, and a quota. Every figure the page shows is compared with the API's answer for the same
 * period, fetched with the user's key, never written here.
 */
const describeInBrowser = browserAvailable() ? describe : describe.skip;

const DAY_MS = 24 * 60 * 60 * 1000;

/** The day `daysAgo` days before today (UTC, the test server's time zone), as `YYYY-MM-DD`. */
function dayBefore(daysAgo: number): string {
  return new Date(Date.now() - daysAgo * DAY_MS).toISOString().slice(0, 10);
}

/** A datetime as the schema stores it, `offsetMs` from now. */
function stamp(offsetMs: number): string {
  return new Date(Date.now() + offsetMs).toISOString().slice(0, 19).replace('T', ' ');
}

interface DayCounts {
  day: string;
  delivered: number;
  failed: number;
  unknown: number;
  received: number;
}

interface Daily {
  days: DayCounts[];
  phones: Array<Omit<DayCounts, 'day'> & { id_phone: number | null }>;
}

interface Alert {
  id_phone: number;
  type: string;
  at: string;
  total: number | null;
  unreliable: number | null;
}

describeInBrowser('the dashboard, in Chromium', () => {
  let database: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  let user: ConsoleUser;
  const phoneNames = ['Office modem', 'Backup SIM'];
  /** Each message written, by day: what the API's counts must add up to. */
  const seeded: Array<{ day: string; sent: number; received: number }> = [];

  beforeAll(async () => {
    screenshotsFolder();
    database = await createBrowserDatabase();
    t = await startApp(database);
    browser = await launchChromium();
    const ds = t.dataSource;
    user = await makeConsoleUser(ds);
    const office = await makePhone(ds, user.id, { name: phoneNames[0] });
    const backup = await makePhone(ds, user.id, { name: phoneNames[1], status: 'unavailable' });
    // A working month on both phones, quieter at weekends, with some failures and receipts
    // still unknown, and 35 days back: the default period of 30 days leaves the first out.
    for (let daysAgo = 0; daysAgo < 35; daysAgo++) {
      const day = dayBefore(daysAgo);
      const weekend = [0, 6].includes(new Date(`${day}T12:00:00Z`).getUTCDay());
      for (const [p, phone] of [office, backup].entries()) {
        const counts: Record<SendedStatus, number> = {
          delivered: weekend ? 1 + (daysAgo % 2) : 3 + ((daysAgo * (p + 3)) % 5) - p,
          failed: (daysAgo + p) % 4 === 0 ? 1 + p : 0,
          unknown: daysAgo % 5 === p ? 2 : 0,
        };
        for (const [status, times] of Object.entries(counts) as Array<[SendedStatus, number]>) {
          for (let i = 0; i < times; i++) {
            await makeSended(ds, user.id, {
              id_phone: phone.id,
              status,
              at: `${day} 10:${String(i).padStart(2, '0')}:00`,
            });
            seeded.push({ day, sent: 1, received: 0 });
          }
        }
        const received = weekend ? 0 : (daysAgo * 7 + p) % 4;
        for (let i = 0; i < received; i++) {
          await makeReceived(ds, user.id, {
            id_phone: phone.id,
            at: `${day} 11:${String(i).padStart(2, '0')}:00`,
          });
          seeded.push({ day, sent: 0, received: 1 });
        }
      }
    }
    // The factories write rows as they are stored, without the app's counters: counted here as
    // the migration counts the rows already there.
    await countExisting(ds, ds.options.type === 'mysql');
    // An alert of each kind: one with its figures, one recorded before they were kept.
    const alerts = ds.getRepository(PhoneReliabilityHistory);
    await alerts.save(
      alerts.create({
        id_user: user.id,
        id_phone: backup.id,
        type: 'failed',
        total: 40,
        unreliable: 9,
        created_at: `${dayBefore(4)} 14:30:00`,
      }),
    );
    await alerts.save(
      alerts.create({
        id_user: user.id,
        id_phone: office.id,
        type: 'unknown',
        total: null,
        unreliable: null,
        created_at: `${dayBefore(20)} 09:15:00`,
      }),
    );
    const numbers = [{ number: '+33612345678' }];
    // The app runs without its worker: the due message waits, as it would behind a busy one.
    await makeScheduled(ds, user.id, { at: stamp(-60 * 60 * 1000), numbers });
    await makeScheduled(ds, user.id, { at: stamp(2 * DAY_MS), numbers });
    await makeQuota(ds, user.id, { credit: 1000, consumed: 412 });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
  });

  async function apiGet<T>(path: string, query: Record<string, string> = {}): Promise<T> {
    const response = await request(t.url)
      .get(path)
      .query({ ...query, api_key: user.apiKey });
    expect(response.body).toMatchObject({ error: 0 });
    return response.body.response as T;
  }

  /** The page's rows of the table named `name`, opening it if it is behind "Show as a table". */
  async function rowsOf(page: Page, name: string): Promise<string[][]> {
    // Found hidden too: a closed <details> hides its table from the accessibility tree.
    const table = page.getByRole('table', { name, includeHidden: true });
    const details = page.locator('details').filter({ has: table });
    if ((await details.count()) > 0 && (await details.getAttribute('open')) === null) {
      await details.getByText('Show as a table').click();
    }
    const rows = await table.locator('tbody tr').allInnerTexts();
    return rows.map((row) => row.split('\t').map((cell) => cell.trim()));
  }

  /** Waits for the page's last table, drawn once the statistics and the phones are loaded. */
  const loaded = (page: Page) =>
    page
      .getByRole('table', { name: 'Messages per phone', includeHidden: true })
      .waitFor({ state: 'attached' });

  const definitions = (region: Locator) => region.getByRole('definition').allInnerTexts();

  /** The dashboard's period, as its fields show it. */
  async function shownPeriod(page: Page): Promise<{ start: string; end: string }> {
    return {
      start: await page.getByLabel('From', { exact: true }).inputValue(),
      end: await page.getByLabel('To', { exact: true }).inputValue(),
    };
  }

  /** Every table of the page holds what the API answers for the period the page shows. */
  async function expectFiguresOfTheApi(page: Page): Promise<void> {
    const period = await shownPeriod(page);
    const daily = await apiGet<Daily>('/api/stats/daily/', period);
    const phones = await apiGet<Array<{ id: number; name: string }>>('/api/list/phone/');
    const nameOf = (id: number | null) => phones.find((phone) => phone.id === id)?.name;

    const sentRows = daily.days.map((day) => [
      day.day,
      ...[day.delivered, day.failed, day.unknown].map(String),
    ]);
    await expect(rowsOf(page, 'Messages sent per day')).resolves.toEqual(sentRows);
    await expect(rowsOf(page, 'Messages received per day')).resolves.toEqual(
      daily.days.map((day) => [day.day, String(day.received)]),
    );
    await expect(rowsOf(page, 'Messages per phone')).resolves.toEqual(
      daily.phones.map((volume) => [
        nameOf(volume.id_phone),
        ...[volume.delivered, volume.failed, volume.unknown, volume.received].map(String),
      ]),
    );
    const sent = daily.days.reduce((sum, day) => sum + day.delivered + day.failed + day.unknown, 0);
    // The comparisons above mean something only if the API counted the messages written.
    const inPeriod = seeded.filter(({ day }) => day >= period.start && day <= period.end);
    expect(sent).toBe(inPeriod.reduce((sum, message) => sum + message.sent, 0));
    expect(sent).toBeGreaterThan(0);
    await expect(
      page
        .getByRole('img', { name: new RegExp(`messages sent per day .*: ${sent} in all`) })
        .count(),
    ).resolves.toBe(1);
  }

  it('shows the figures of the last 30 days as the API gives them, queue, phones and quota', async () => {
    const page = await signedInPage(browser, t.url, user, '/dashboard');
    const errors = pageErrors(page);
    try {
      await page.reload();
      await expect(shownPeriod(page)).resolves.toEqual({
        start: dayBefore(29),
        end: dayBefore(0),
      });
      await loaded(page);
      await checkPage(page, 'dashboard');

      await expectFiguresOfTheApi(page);

      const queue = await apiGet<{ due: number; to_come: number; sending: number }>(
        '/api/stats/queue/',
      );
      await expect(definitions(page.getByRole('region', { name: 'Queue now' }))).resolves.toEqual(
        [queue.due, queue.to_come, queue.sending].map(String),
      );

      const phones =
        await apiGet<Array<{ id: number; name: string; status: string }>>('/api/list/phone/');
      const alerts = await apiGet<Alert[]>('/api/stats/reliability/', await shownPeriod(page));
      expect(alerts).toHaveLength(2);
      const statusRows = await rowsOf(page, 'Phones and their reliability alerts in the period');
      expect(
        statusRows.map(([name, status]) => [name, status.toLowerCase().replace(' ', '_')]),
      ).toEqual(phones.map((phone) => [phone.name, phone.status]));
      for (const [i, phone] of phones.entries()) {
        const own = alerts.filter((alert) => alert.id_phone === phone.id);
        const cell = statusRows[i][2];
        if (own.length === 0) {
          expect(cell).toBe('None');
        }
        for (const alert of own) {
          expect(cell).toContain(alert.at.slice(0, 16));
          if (alert.total !== null) {
            expect(cell).toContain(`${alert.unreliable} of ${alert.total}`);
          }
        }
      }

      const { quota } = await apiGet<{ quota: { consumed: number; remaining: number } }>(
        '/api/me/',
      );
      const quotaFigures = await definitions(page.getByRole('region', { name: 'Quota' }));
      expect(quotaFigures.slice(0, 2)).toEqual([String(quota.consumed), String(quota.remaining)]);

      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('follows a new period, kept in the address', async () => {
    const page = await signedInPage(browser, t.url, user, '/dashboard');
    const errors = pageErrors(page);
    try {
      const period = { start: dayBefore(6), end: dayBefore(2) };
      await page.getByLabel('From', { exact: true }).fill(period.start);
      await page.getByLabel('To', { exact: true }).fill(period.end);
      await page.getByRole('button', { name: 'Show' }).click();
      await page.waitForURL((url) => url.searchParams.get('start') === period.start);
      expect(new URL(page.url()).searchParams.get('end')).toBe(period.end);
      await page
        .getByRole('img', { name: new RegExp(`from ${period.start} to ${period.end}`) })
        .first()
        .waitFor();

      await expect(rowsOf(page, 'Messages sent per day')).resolves.toHaveLength(5);
      await expectFiguresOfTheApi(page);

      await page.reload();
      await expect(shownPeriod(page)).resolves.toEqual(period);
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('refuses a period that ends before it starts', async () => {
    const page = await signedInPage(browser, t.url, user, '/dashboard');
    try {
      await page.getByLabel('From', { exact: true }).fill(dayBefore(2));
      await page.getByLabel('To', { exact: true }).fill(dayBefore(6));
      await page.getByRole('button', { name: 'Show' }).click();
      const to = page.getByLabel('To', { exact: true });
      await expect(to.getAttribute('aria-invalid')).resolves.toBe('true');
      await expect(
        page
          .getByRole('alert')
          .filter({ hasText: 'The last day cannot come before the first.' })
          .count(),
      ).resolves.toBe(1);
      expect(new URL(page.url()).searchParams.get('start')).toBeNull();
    } finally {
      await page.close();
    }
  });

  it('lays out at 390 × 844 without scrolling sideways, tables opened', async () => {
    const page = await signedInPage(browser, t.url, user, '/dashboard', VIEWPORTS[0]);
    try {
      await loaded(page);
      await checkPage(page, 'dashboard');
      await rowsOf(page, 'Messages sent per day');
      await rowsOf(page, 'Messages received per day');
      await rowsOf(page, 'Messages per phone');
      await checkPage(page, 'dashboard-tables');
    } finally {
      await page.close();
    }
  });

  it('says so when the account has no quota', async () => {
    const unlimited = await makeConsoleUser(t.dataSource);
    const page = await signedInPage(browser, t.url, unlimited, '/dashboard');
    try {
      const quota = page.getByRole('region', { name: 'Quota' });
      await quota.getByText('No quota').waitFor();
      await expect(quota.textContent()).resolves.toContain('sends without limit');
    } finally {
      await page.close();
    }
  });
});
