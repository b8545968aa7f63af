import type { Browser, Page } from 'playwright-core';
import request from 'supertest';
import { AdapterDataCipher } from '../../src/adapters/adapter-data.cipher';
import { Phone } from '../../src/phones/entities/phone.entity';
import { FakeServer, startFakeServer } from '../support/adapters.factories';
import { startApp, TestApp } from '../support/app';
import {
  browserAvailable,
  createBrowserDatabase,
  checkPage,
  CONSOLE_PASSWORD,
  ConsoleUser,
  launchChromium,
  makeConsoleUser,
  pageErrors,
  screenshotsFolder,
  signedInPage,
  type Viewport,
  VIEWPORTS,
} from '../support/browser';
import type { TestDatabase } from '../support/databases';
import { waitFor } from '../support/instruments';

/*
 * The console's Phones page in Debian's Chromium, against the real server on SQLite (or MariaDB,
 * BROWSER_DATABASE): a phone added through the form made from its adapter's descriptor sends the
 * next message, editing starts from the stored values (get_phone) while a secret is never shown
 * back and is kept when left empty, a status forced, a phone group with its phones, the API's
 * refusal at its field, and the callback URLs with their copy buttons. Each effect is checked
 * through the API with the user's key.
 */
const describeInBrowser = browserAvailable() ? describe : describe.skip;

type Row = Record<string, unknown>;

interface AdapterField {
  name: string;
  required: boolean;
  secret: boolean;
  number: boolean;
}

const KANNEL_PASSWORD = 'kannel-pw-7f3a';

/** The label the form gives a descriptor field. */
const labelOf = (field: AdapterField) => `${field.name}${field.required ? ' (required)' : ''}`;

describeInBrowser('the Phones page, in Chromium', () => {
  let database: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  let kannel: FakeServer;
  /** The passwords the Kannel fake was given, in order. */
  let given: string[];

  beforeAll(async () => {
    screenshotsFolder();
    given = [];
    kannel = await startFakeServer((incoming, response) => {
      const query = new URL(incoming.url ?? '/', 'http://kannel').searchParams;
      given.push(query.get('password') ?? '');
      const status = query.get('password') !== KANNEL_PASSWORD ? 403 : query.get('to') ? 202 : 400;
      response.writeHead(status, { 'Content-Type': 'text/plain' });
      response.end(status === 202 ? '0: Accepted for delivery' : 'Authorization failed');
    });
    database = await createBrowserDatabase();
    t = await startApp(database, { WORKER: 'inline', DISPATCH_POLL_MS: '20' });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
    await kannel?.close();
  });

  const phones = async (user: ConsoleUser) =>
    (await request(t.url).get('/api/list/phone/').set('X-Api-Key', user.apiKey)).body
      .response as Row[];

  /**
   * Runs `steps` on a signed-in page, then checks that the page logged no error but the browser's
   * note of the API refusals the test provokes (`refusals`, HTTP statuses).
   */
  async function onPage(
    user: ConsoleUser,
    path: string,
    steps: (page: Page) => Promise<void>,
    { viewport = VIEWPORTS[1], refusals = [] }: { viewport?: Viewport; refusals?: number[] } = {},
  ) {
    const page = await signedInPage(browser, t.url, user, path, viewport);
    page.setDefaultTimeout(10_000);
    const errors = pageErrors(page);
    try {
      await steps(page);
      const expected = refusals.map((status) => `status of ${status}`);
      expect(errors.filter((error) => !expected.some((note) => error.includes(note)))).toEqual([]);
    } finally {
      await page.close();
    }
  }

  it('a phone added with the test adapter sends the next message', async () => {
    const user = await makeConsoleUser(t.dataSource);
    await onPage(user, '/phones', async (page) => {
      await page.getByText('No phone yet').waitFor();
      await page.getByRole('link', { name: 'Add a phone' }).click();
      await page.getByRole('heading', { name: 'Add a phone' }).waitFor();
      await page.getByLabel('Name', { exact: true }).fill('Front desk');
      await page.getByLabel('Adapter').selectOption('test');
      await page.getByLabel('delivery').fill('delivered');
      await page.getByLabel('Priority').fill('2');
      await page.getByLabel('Rate (messages a second)').fill('5');
      await page.getByRole('button', { name: 'Add a limit' }).click();
      await page.getByLabel('Limit 1: messages').fill('100');
      await page.getByLabel('Limit 1: since').fill('today');
      for (const viewport of VIEWPORTS) {
        await page.setViewportSize(viewport);
        await checkPage(page, 'phones-new');
      }
      await page.getByRole('button', { name: 'Add the phone' }).click();
      await page.getByRole('heading', { name: 'Front desk' }).waitFor();
    });

    const [phone] = await phones(user);
    expect(phone).toMatchObject({
      name: 'Front desk',
      adapter: 'test',
      adapter_data: '{"delivery":"delivered"}',
      priority: 2,
      rate: 5,
      status: 'available',
      limits: [{ volume: 100, startpoint: 'today' }],
    });

    const scheduled = await request(t.url)
      .post('/api/scheduled/')
      .set('X-Api-Key', user.apiKey)
      .send({ text: 'Your parcel is at the front desk.', numbers: ['+33612345678'] });
    expect(scheduled.status).toBe(201);
    const sentBy = async () =>
      (
        await request(t.url)
          .get('/api/list/sended/')
          .query({ id_phone: phone.id as number })
          .set('X-Api-Key', user.apiKey)
      ).body.response as Row[];
    await waitFor(async () => (await sentBy()).length === 1, 'the message sent by the new phone');
    expect((await sentBy())[0]).toMatchObject({
      destination: '+33612345678',
      status: 'delivered',
    });

    for (const viewport of VIEWPORTS) {
      await onPage(
        user,
        '/phones',
        async (page) => {
          const row = page.getByRole('row').filter({ hasText: 'Front desk' });
          await row.getByText('available').waitFor();
          await row.getByText('100 since today').waitFor();
          await checkPage(page, 'phones');
        },
        { viewport },
      );
    }
  });

  it("builds the form from the adapter's descriptor: each field labelled, secrets as passwords, numbers as tel", async () => {
    const user = await makeConsoleUser(t.dataSource);
    const adapters = (await request(t.url).get('/api/adapter/').set('X-Api-Key', user.apiKey)).body
      .response as Array<{ id: string; fields: AdapterField[] }>;
    for (const id of ['twilio', 'kannel']) {
      const adapter = adapters.find((candidate) => candidate.id === id)!;
      await onPage(user, '/phones/new', async (page) => {
        await page.getByLabel('Adapter').selectOption(id);
        for (const field of adapter.fields) {
          const input = page.getByLabel(labelOf(field), { exact: true });
          expect(await input.getAttribute('type')).toBe(
            field.secret ? 'password' : field.number ? 'tel' : 'text',
          );
        }
        if (id === 'twilio') {
          for (const viewport of VIEWPORTS) {
            await page.setViewportSize(viewport);
            await checkPage(page, 'phones-new-twilio');
          }
        }
      });
    }
  });

  it("shows the API's refusal of a number at its field, and creates nothing", async () => {
    const user = await makeConsoleUser(t.dataSource);
    await onPage(
      user,
      '/phones/new',
      async (page) => {
        await page.getByLabel('Name', { exact: true }).fill('Twilio line');
        await page.getByLabel('Adapter').selectOption('twilio');
        await page.getByLabel('account_sid (required)').fill('AC00000000000000000000000000000001');
        await page.getByLabel('auth_token (required)').fill('token');
        const number = page.getByLabel('number (required)', { exact: true });
        await number.fill('not a number');
        await page.getByRole('button', { name: 'Add the phone' }).click();
        await page.getByRole('alert').filter({ hasText: 'adapter_data[number]' }).waitFor();
        expect(await number.getAttribute('aria-invalid')).toBe('true');
        const described = (await number.getAttribute('aria-describedby')) ?? '';
        const error = page.locator(`[id="${described.split(' ').at(-1)}"]`);
        expect(await error.textContent()).toMatch(/adapter_data\[number\].*valid phone number/);
        for (const viewport of VIEWPORTS) {
          await page.setViewportSize(viewport);
          await checkPage(page, 'phones-new-error');
        }
      },
      { refusals: [400] },
    );
    expect(await phones(user)).toEqual([]);
  });

  it('edits a Kannel phone from its stored values: the secret said to be set, changing one field keeps the others', async () => {
    const user = await makeConsoleUser(t.dataSource);
    const stored = {
      kannel_sendsms_url: `${kannel.url}/cgi-bin/sendsms`,
      username: 'smsgw',
      password: KANNEL_PASSWORD,
      from: 'smsgw',
      smsc: 'orange',
      dlr_url: 'http://dlr.example.org/receipt',
    };
    const created = await request(t.url)
      .post('/api/phone/')
      .set('X-Api-Key', user.apiKey)
      .send({ name: 'Kannel box', adapter: 'kannel', adapter_data: stored });
    expect(created.status).toBe(201);
    const id = created.body.response as number;
    const readPhone = async () => {
      const response = await request(t.url).get(`/api/phone/${id}/`).set('X-Api-Key', user.apiKey);
      expect(response.text).not.toContain(KANNEL_PASSWORD);
      return response.body.response as Row;
    };
    given = [];

    await onPage(user, `/phones/${id}`, async (page) => {
      await page.getByRole('heading', { name: 'Kannel box' }).waitFor();
      // Every non-secret field shows its stored value, the optional ones included.
      const { password: _password, ...visible } = stored;
      for (const [name, value] of Object.entries(visible)) {
        const optional = name === 'smsc' || name === 'dlr_url';
        const label = optional ? name : `${name} (required)`;
        expect(await page.getByLabel(label, { exact: true }).inputValue()).toBe(value);
      }
      const password = page.getByLabel('password (required)', { exact: true });
      expect(await password.getAttribute('type')).toBe('password');
      expect(await password.inputValue()).toBe('');
      const hint = page.locator(`[id="${await password.getAttribute('aria-describedby')}"]`);
      expect(await hint.textContent()).toContain('A value is set');
      expect(await page.content()).not.toContain(KANNEL_PASSWORD);
      for (const viewport of VIEWPORTS) {
        await page.setViewportSize(viewport);
        await checkPage(page, 'phone-edit');
      }

      await page.getByLabel('from (required)').fill('Reception');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      expect(await password.inputValue()).toBe('');
      expect(await page.getByLabel('smsc', { exact: true }).inputValue()).toBe('orange');
    });

    // The adapter's test got the stored password; the other fields kept their values.
    expect(given).toEqual([KANNEL_PASSWORD]);
    const { password: _password, ...visible } = stored;
    expect(await readPhone()).toMatchObject({
      adapter_data: { ...visible, from: 'Reception' },
      secrets_set: ['password'],
      unreadable_secrets: [],
      adapter_data_error: null,
    });
    const row = await t.dataSource.getRepository(Phone).findOneByOrFail({ id });
    expect(t.app.get(AdapterDataCipher).open(row).data).toEqual({ ...stored, from: 'Reception' });

    // An optional field emptied on purpose is removed; a required one is asked for.
    given = [];
    await onPage(user, `/phones/${id}`, async (page) => {
      await page.getByRole('heading', { name: 'Kannel box' }).waitFor();
      const username = page.getByLabel('username (required)', { exact: true });
      await username.fill('');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('alert').filter({ hasText: 'username is required' }).waitFor();
      expect(await username.getAttribute('aria-invalid')).toBe('true');
      expect(given).toEqual([]);
      for (const viewport of VIEWPORTS) {
        await page.setViewportSize(viewport);
        await checkPage(page, 'phone-edit-required');
      }
      await username.fill('smsgw');
      await page.getByLabel('dlr_url', { exact: true }).fill('');
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    });
    expect(given).toEqual([KANNEL_PASSWORD]);
    const { dlr_url: _dlr, ...kept } = visible;
    expect((await readPhone()).adapter_data).toEqual({ ...kept, from: 'Reception' });
  });

  it("tells that a phone's stored password can no longer be decrypted, and takes a new one", async () => {
    const user = await makeConsoleUser(t.dataSource);
    const created = await request(t.url)
      .post('/api/phone/')
      .set('X-Api-Key', user.apiKey)
      .send({
        name: 'Old box',
        adapter: 'kannel',
        adapter_data: {
          kannel_sendsms_url: `${kannel.url}/cgi-bin/sendsms`,
          username: 'smsgw',
          password: KANNEL_PASSWORD,
          from: 'smsgw',
        },
      });
    const id = created.body.response as number;
    // What a lost SECRETS_KEY leaves: a password this server cannot open.
    const phone = await t.dataSource.getRepository(Phone).findOneByOrFail({ id });
    const data = JSON.parse(phone.adapter_data ?? '{}') as Record<string, string>;
    await t.dataSource
      .getRepository(Phone)
      .update({ id }, { adapter_data: JSON.stringify({ ...data, password: 'enc:v1:lost:key' }) });
    given = [];

    await onPage(user, `/phones/${id}`, async (page) => {
      await page.getByRole('heading', { name: 'Old box' }).waitFor();
      await page.getByRole('alert').filter({ hasText: 'can no longer be decrypted' }).waitFor();
      const password = page.getByLabel('password (required)', { exact: true });
      const hint = page.locator(`[id="${await password.getAttribute('aria-describedby')}"]`);
      expect(await hint.textContent()).toContain('type it again');
      expect(await page.getByLabel('from (required)').inputValue()).toBe('smsgw');
      for (const viewport of VIEWPORTS) {
        await page.setViewportSize(viewport);
        await checkPage(page, 'phone-edit-unreadable');
      }
      await password.fill(KANNEL_PASSWORD);
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    });
    expect(given).toEqual([KANNEL_PASSWORD]);
    const answer = await request(t.url).get(`/api/phone/${id}/`).set('X-Api-Key', user.apiKey);
    expect(answer.body.response).toMatchObject({
      secrets_set: ['password'],
      unreadable_secrets: [],
      adapter_data_error: null,
    });
  });

  it('checks and forces the status, and deletes a phone after asking', async () => {
    const user = await makeConsoleUser(t.dataSource);
    const created = await request(t.url)
      .post('/api/phone/')
      .set('X-Api-Key', user.apiKey)
      .send({ name: 'Spare line', adapter: 'test' });
    const id = created.body.response as number;

    await onPage(
      user,
      `/phones/${id}`,
      async (page) => {
        await page.getByRole('button', { name: 'Check status' }).click();
        await page.getByText('The provider reports: available.').waitFor();
        await page.getByLabel('Set the status by hand').selectOption('disabled');
        await page.getByRole('button', { name: 'Set status' }).click();
        await page.getByText('The status is now disabled.').waitFor();
        expect((await phones(user))[0].status).toBe('disabled');
        await page.getByRole('button', { name: 'Check status' }).click();
        await page.getByRole('alert').filter({ hasText: 'disabled manually' }).waitFor();
        for (const viewport of VIEWPORTS) {
          await page.setViewportSize(viewport);
          await checkPage(page, 'phone-detail');
        }
        await page.getByRole('button', { name: 'Delete' }).click();
        await page.getByRole('button', { name: 'Yes, delete it' }).click();
        await page.waitForURL((url) => url.pathname === '/phones');
      },
      { refusals: [422] },
    );
    expect(await phones(user)).toEqual([]);
  });

  it('makes a phone group with its phones, changes them, and deletes the group but not its phones', async () => {
    const user = await makeConsoleUser(t.dataSource);
    const ids: number[] = [];
    for (const name of ['North', 'South', 'East']) {
      const created = await request(t.url)
        .post('/api/phone/')
        .set('X-Api-Key', user.apiKey)
        .send({ name, adapter: 'test' });
      ids.push(created.body.response as number);
    }
    const groups = async () =>
      (await request(t.url).get('/api/list/phone_group/').set('X-Api-Key', user.apiKey)).body
        .response as Row[];
    const phoneIds = (group: Row) => (group.phones as Row[]).map((phone) => phone.id);

    await onPage(user, '/phones/groups', async (page) => {
      await page.getByRole('link', { name: 'Add a phone group' }).click();
      await page.getByLabel('Name').fill('Mainland');
      await page.getByLabel('North').check();
      await page.getByLabel('South').check();
      await page.getByRole('button', { name: 'Add the phone group' }).click();
      await page.getByRole('heading', { name: 'Mainland' }).waitFor();
      expect(phoneIds((await groups())[0])).toEqual([ids[0], ids[1]]);

      await page.getByLabel('South').uncheck();
      await page.getByLabel('East').check();
      await page.getByRole('button', { name: 'Save changes' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      expect(phoneIds((await groups())[0])).toEqual([ids[0], ids[2]]);
      for (const viewport of VIEWPORTS) {
        await page.setViewportSize(viewport);
        await checkPage(page, 'phone-group');
      }
      await page.getByRole('link', { name: 'Back to the phone groups' }).click();
      await page.getByRole('row').filter({ hasText: 'North, East' }).waitFor();
      for (const viewport of VIEWPORTS) {
        await page.setViewportSize(viewport);
        await checkPage(page, 'phone-groups');
      }
      await page.getByRole('link', { name: 'Mainland' }).click();
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('button', { name: 'Yes, delete it' }).click();
      await page.waitForURL((url) => url.pathname === '/phones/groups');
      await page.getByText('No phone group yet').waitFor();
    });
    expect(await groups()).toEqual([]);
    expect(await phones(user)).toHaveLength(3);
  });
});

describeInBrowser("a phone's callback URLs, in Chromium", () => {
  const PUBLIC_URL = 'http://sms.example.org';
  let database: TestDatabase;
  let t: TestApp;
  let browser: Browser;

  beforeAll(async () => {
    database = await createBrowserDatabase();
    t = await startApp(database, { PUBLIC_URL });
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
  });

  it('copies each URL, and replaces them with a new token after asking', async () => {
    const user = await makeConsoleUser(t.dataSource);
    const created = await request(t.url)
      .post('/api/phone/')
      .set('X-Api-Key', user.apiKey)
      .send({ name: 'Gateway', adapter: 'test' });
    const id = created.body.response as number;
    const urls = async () =>
      (
        (await request(t.url).get('/api/list/phone/').set('X-Api-Key', user.apiKey)).body
          .response as Row[]
      )[0].callback_urls as { status: string; reception: string };
    const before = await urls();
    expect(before.status).toMatch(/^http:\/\/sms\.example\.org\//);

    // Signing in through the page would send the page's origin, which is not PUBLIC_URL's: the
    // session is opened through the API and given to the browser.
    const login = await request(t.url)
      .post('/api/login/')
      .send({ email: user.email, password: CONSOLE_PASSWORD });
    const [name, value] = (login.headers['set-cookie'] as unknown as string[])[0]
      .split(';')[0]
      .split('=');
    for (const viewport of VIEWPORTS) {
      const context = await browser.newContext({ viewport });
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: t.url });
      await context.addCookies([{ name, value, url: t.url }]);
      const page = await context.newPage();
      const errors = pageErrors(page);
      try {
        await page.goto(`${t.url}/phones/${id}`);
        await page.getByRole('heading', { name: 'Gateway' }).waitFor();
        await page.getByText(before.status).waitFor();
        await page.getByRole('button', { name: 'Copy the Received messages URL' }).click();
        await page.getByText('Received messages URL copied.').waitFor();
        expect(await page.evaluate('navigator.clipboard.readText()')).toBe(before.reception);
        await checkPage(page, 'phone-callback-urls');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    }

    const context = await browser.newContext();
    await context.addCookies([{ name, value, url: t.url }]);
    const page = await context.newPage();
    try {
      await page.goto(`${t.url}/phones/${id}`);
      await page.getByRole('button', { name: 'New callback URLs' }).click();
      await page.getByRole('button', { name: 'Yes, new URLs' }).click();
      await page.getByRole('button', { name: 'New callback URLs' }).waitFor();
      const after = await urls();
      expect(after.status).not.toBe(before.status);
      await page.getByText(after.status).waitFor();
    } finally {
      await context.close();
    }
  });
});
