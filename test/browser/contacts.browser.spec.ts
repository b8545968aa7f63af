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
import type { TestDatabase } from '../support/databases';
import { waitFor } from '../support/instruments';

/*
 * The built console's Contacts and groups page in Debian's Chromium, against the real server on
 * SQLite (or MariaDB, BROWSER_DATABASE) with its dispatch worker inline: what the page creates,
 * imports and selects is checked through the API with the user's key, and a contact imported from a
 * CSV file receives a templated message sent to the group the page made.
 */
const describeInBrowser = browserAvailable() ? describe : describe.skip;

interface ContactEntry {
  id: number;
  name: string;
  number: string;
  data: string;
}

describeInBrowser('the Contacts and groups page, in Chromium', () => {
  let database: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  let user: ConsoleUser;
  let groupId = 0;
  let conditionalGroupId = 0;

  beforeAll(async () => {
    screenshotsFolder();
    database = await createBrowserDatabase();
    t = await startApp(database, { WORKER: 'inline', DISPATCH_POLL_MS: '20' });
    browser = await launchChromium();
    user = await makeConsoleUser(t.dataSource);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
  });

  const api = (path: string, query: Record<string, string> = {}) =>
    request(t.url).get(path).query(query).set('X-Api-Key', user.apiKey);

  async function contactNamed(name: string): Promise<ContactEntry | undefined> {
    const answer = await api('/api/list/contact/', { name });
    return (answer.body as { response: ContactEntry[] }).response.find(
      (contact) => contact.name === name,
    );
  }

  /** The error a field's description shows, as a person using a screen reader hears it. */
  async function errorOf(field: Locator): Promise<string> {
    const ids = ((await field.getAttribute('aria-describedby')) ?? '').split(' ');
    const id = ids.find((candidate) => candidate.endsWith('-error'));
    // Without waiting: the error may go between reading the field and reading it.
    return id ? (await field.page().locator(`[id="${id}"]`).allTextContents()).join('') : '';
  }

  async function waitForError(field: Locator): Promise<string> {
    let error = '';
    await waitFor(async () => (error = await errorOf(field)) !== '', 'the field to show its error');
    return error;
  }

  function csv(name: string, text: string) {
    return { name, mimeType: 'text/csv', buffer: Buffer.from(text, 'utf8') };
  }

  it('creates a contact through its form, edits it, and shows the API refusal at its field', async () => {
    const page = await signedInPage(browser, t.url, user, '/contacts');
    const errors = pageErrors(page);
    try {
      await page.getByText('No contacts yet').waitFor();
      await page.getByRole('link', { name: 'New contact' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Grace Hopper');
      await page.getByLabel('Number', { exact: true }).fill('+33612340001');
      await page.getByLabel('Data', { exact: true }).fill('{"firstname": "Grace", "vip": true}');
      await page.getByRole('button', { name: 'Create contact' }).click();
      await page.getByRole('status').filter({ hasText: 'Contact created.' }).waitFor();

      const created = await contactNamed('Grace Hopper');
      expect(created).toMatchObject({ number: '+33612340001' });
      expect(JSON.parse(created!.data)).toEqual({ firstname: 'Grace', vip: true });
      expect(new URL(page.url()).pathname).toBe(`/contacts/${created!.id}`);

      await page.getByLabel('Number', { exact: true }).fill('+33612340002');
      await page
        .getByLabel('Data', { exact: true })
        .fill('{"firstname": "Grace", "city": "Paris"}');
      await page.getByRole('button', { name: 'Save contact' }).click();
      await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      const edited = await contactNamed('Grace Hopper');
      expect(edited).toMatchObject({ id: created!.id, number: '+33612340002' });
      expect(JSON.parse(edited!.data)).toEqual({ firstname: 'Grace', city: 'Paris' });

      const number = page.getByLabel('Number', { exact: true });
      await number.fill('12');
      await page.getByRole('button', { name: 'Save contact' }).click();
      const refused = await waitForError(number);
      expect(refused).toMatch(
        /^You have specified an invalid parameter : number : "12" is not a valid phone number/,
      );
      await expect(errorOf(page.getByLabel('Name', { exact: true }))).resolves.toBe('');
      expect((await contactNamed('Grace Hopper'))?.number).toBe('+33612340002');

      // Data the API does not take (a nested object) is refused at the data field.
      await number.fill('+33612340002');
      const data = page.getByLabel('Data', { exact: true });
      await data.fill('{"address": {"city": "Paris"}}');
      await page.getByRole('button', { name: 'Save contact' }).click();
      await expect(waitForError(data)).resolves.toMatch(/data|address/);

      // Searched by the API's number filter, the list shows the contact; its address keeps it.
      await page.getByRole('link', { name: '← Back to contacts' }).click();
      await page.getByLabel('Number', { exact: true }).fill('+33612340002');
      await page.getByRole('button', { name: 'Search' }).click();
      await page.waitForURL((url) => url.searchParams.get('number') === '+33612340002');
      await page.getByRole('link', { name: 'Grace Hopper' }).waitFor();
      // The browser logs the two refusals the test asked for, and nothing else.
      expect(errors.filter((error) => !error.includes('status of 400'))).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('imports a CSV file with its progress and result, and tells the line and reason of a refused one', async () => {
    const page = await signedInPage(browser, t.url, user, '/contacts/import');
    const errors = pageErrors(page);
    try {
      const file = page.getByLabel('CSV file', { exact: true });
      await file.setInputFiles(
        csv(
          'contacts.csv',
          'name,number,firstname,city\n' +
            'Ada Lin,+33612340011,Ada,Lyon\n' +
            'Alan Ray,+33612340012,Alan,\n' +
            'Bob Stone,+33612340013,,Paris\n',
        ),
      );
      await page.getByRole('button', { name: 'Import' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: 'Imported 3 contacts: 3 created, 0 updated.' })
        .waitFor();
      const progress = page.getByRole('progressbar', { name: 'Upload' });
      await expect(progress.getAttribute('value')).resolves.toBe(
        await progress.getAttribute('max'),
      );

      const ada = await contactNamed('Ada Lin');
      expect(ada).toMatchObject({ number: '+33612340011' });
      expect(JSON.parse(ada!.data)).toEqual({ firstname: 'Ada', city: 'Lyon' });
      expect(JSON.parse((await contactNamed('Alan Ray'))!.data)).toEqual({ firstname: 'Alan' });
      expect(JSON.parse((await contactNamed('Bob Stone'))!.data)).toEqual({ city: 'Paris' });

      await file.setInputFiles(
        csv('refused.csv', 'name,number\nCarl Sand,+33612340021\n,+33612340022\n'),
      );
      await page.getByRole('button', { name: 'Import' }).click();
      const refusal = page.getByRole('alert').filter({ hasText: 'The file was refused' });
      await refusal.waitFor();
      const facts = (await refusal.locator('dt, dd').allTextContents()).join('|');
      expect(facts).toBe('Line|3|Reason|name must not be empty.');
      expect(await contactNamed('Carl Sand')).toBeUndefined();
      expect(errors.filter((error) => !error.includes('status of 400'))).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('makes a group whose members are chosen by a search on the server', async () => {
    const page = await signedInPage(browser, t.url, user, '/contacts/groups');
    try {
      await page.getByRole('link', { name: 'New group' }).click();
      await page.getByLabel('Name', { exact: true }).fill('Imported');
      const search = page.getByLabel('Search contacts by name');
      await search.fill('ada');
      await page.getByRole('button', { name: 'Add Ada Lin (+33612340011)' }).click();
      await search.fill('stone');
      await page.getByRole('button', { name: 'Add Bob Stone (+33612340013)' }).click();
      const members = page.getByRole('list', { name: 'Members', exact: true });
      await expect(members.getByRole('listitem').allTextContents()).resolves.toEqual([
        'Ada Lin (+33612340011)Remove',
        'Bob Stone (+33612340013)Remove',
      ]);
      await page.getByRole('button', { name: 'Remove Bob Stone (+33612340013)' }).click();
      await page.getByRole('button', { name: 'Create group' }).click();
      await page.getByRole('heading', { name: 'Imported' }).waitFor();
      groupId = Number(new URL(page.url()).pathname.split('/').pop());

      const group = (await api(`/api/group/${groupId}/`)).body.response as {
        name: string;
        contacts: ContactEntry[];
      };
      expect(group.name).toBe('Imported');
      expect(group.contacts.map((contact) => contact.name)).toEqual(['Ada Lin']);
    } finally {
      await page.close();
    }
  });

  it('makes a conditional group with the live preview of its contacts and the parser’s message for a bad condition', async () => {
    const page = await signedInPage(browser, t.url, user, '/contacts/conditional-groups/new');
    try {
      await page.getByLabel('Name', { exact: true }).fill('In Lyon');
      const condition = page.getByLabel('Condition', { exact: true });
      await condition.fill("contact.city == 'Lyon'");
      const selected = page.getByRole('list', { name: 'Selected contacts' });
      await selected.getByText('Ada Lin (+33612340011)').waitFor();
      await expect(selected.getByRole('listitem').count()).resolves.toBe(1);

      await condition.fill("contact.city == 'Lyon' and");
      const message = await waitForError(condition);
      expect(message).toMatch(
        /condition : The condition does not parse: .+ around position \d+\.$/,
      );

      await condition.fill("contact.city == 'Paris' or contact.firstname == 'Ada'");
      await waitFor(async () => (await errorOf(condition)) === '', 'the error to go');
      await selected.getByText('Bob Stone (+33612340013)').waitFor();
      await expect(selected.getByRole('listitem').allTextContents()).resolves.toEqual([
        'Grace Hopper (+33612340002)',
        'Ada Lin (+33612340011)',
        'Bob Stone (+33612340013)',
      ]);
      await page.getByRole('button', { name: 'Create conditional group' }).click();
      await page.getByRole('heading', { name: 'In Lyon' }).waitFor();
      conditionalGroupId = Number(new URL(page.url()).pathname.split('/').pop());
      const group = (await api(`/api/conditional_group/${conditionalGroupId}/`)).body.response as {
        condition: string;
      };
      expect(group.condition).toBe("contact.city == 'Paris' or contact.firstname == 'Ada'");
    } finally {
      await page.close();
    }
  });

  it('sends a templated message to the group, which the contact imported from the CSV receives rendered', async () => {
    const phone = await request(t.url)
      .post('/api/phone/')
      .set('X-Api-Key', user.apiKey)
      .send({ name: 'Test phone', adapter: 'test', adapter_data: { delivery: 'delivered' } });
    expect([phone.status, phone.body.message]).toEqual([201, null]);
    const scheduled = await request(t.url)
      .post('/api/scheduled/')
      .set('X-Api-Key', user.apiKey)
      .send({ text: 'Hello {{ contact.firstname }} from {{ contact.city }}', groups: [groupId] });
    expect([scheduled.status, scheduled.body.message]).toEqual([201, null]);
    type Sent = { destination: string; text: string; status: string };
    let sent: Sent[] = [];
    await waitFor(async () => {
      sent = (
        await api('/api/list/sended/', { originating_scheduled: String(scheduled.body.response) })
      ).body.response as Sent[];
      return sent.some((entry) => entry.status === 'delivered');
    }, 'the test adapter to deliver the message');
    expect(sent).toEqual([
      expect.objectContaining({
        destination: '+33612340011',
        text: 'Hello Ada from Lyon',
        status: 'delivered',
      }),
    ]);
  });

  it('pages the contacts with the API’s cursors, kept in the address', async () => {
    const many = await makeConsoleUser(t.dataSource);
    const contacts = Array.from({ length: 30 }, (_, index) => ({
      name: `Person ${String(index + 1).padStart(2, '0')}`,
      number: `+336123450${String(index + 1).padStart(2, '0')}`,
    }));
    const imported = await request(t.url)
      .post('/api/contact/import/')
      .set('X-Api-Key', many.apiKey)
      .send({ contacts });
    expect(imported.body.response).toEqual({ created: 30, updated: 0 });
    const page = await signedInPage(browser, t.url, many, '/contacts');
    try {
      const names = () => page.getByRole('table').getByRole('link').allTextContents();
      await page.getByRole('link', { name: 'Person 30' }).waitFor();
      const first = await names();
      expect(first).toHaveLength(25);
      expect(first[0]).toBe('Person 30');
      expect(first[24]).toBe('Person 06');
      await page.getByRole('link', { name: 'Older' }).click();
      await page.getByRole('link', { name: 'Person 01' }).waitFor();
      expect(new URL(page.url()).searchParams.has('before_id')).toBe(true);
      await expect(names()).resolves.toEqual([
        'Person 05',
        'Person 04',
        'Person 03',
        'Person 02',
        'Person 01',
      ]);
      // The address is the page: opened again, it shows the same contacts.
      await page.reload();
      await page.getByRole('link', { name: 'Person 01' }).waitFor();
      await expect(names()).resolves.toHaveLength(5);
      await page.getByRole('link', { name: 'Newest' }).click();
      await page.getByRole('link', { name: 'Person 30' }).waitFor();
    } finally {
      await page.close();
    }
  });

  it('deletes a contact once asked to confirm, and the API no longer has it', async () => {
    const alan = await contactNamed('Alan Ray');
    const page = await signedInPage(browser, t.url, user, `/contacts/${alan!.id}`);
    try {
      await page.getByRole('button', { name: 'Delete' }).click();
      const question = page.getByRole('group', { name: /Delete the contact Alan Ray\?/ });
      await question.getByRole('button', { name: 'Cancel' }).click();
      expect(await contactNamed('Alan Ray')).toBeDefined();
      await page.getByRole('button', { name: 'Delete' }).click();
      await page.getByRole('button', { name: 'Yes, delete it' }).click();
      await page.waitForURL((url) => url.pathname === '/contacts');
      await page.getByRole('link', { name: 'Ada Lin' }).waitFor();
      await expect(page.getByRole('link', { name: 'Alan Ray' }).count()).resolves.toBe(0);
      expect((await api(`/api/contact/${alan!.id}/`)).status).toBe(404);
    } finally {
      await page.close();
    }
  });

  it.each(VIEWPORTS)(
    'passes the page checks at $width x $height',
    async (viewport) => {
      const page: Page = await signedInPage(browser, t.url, user, '/contacts', viewport);
      try {
        const contact = await contactNamed('Grace Hopper');
        const views: Array<[string, string, () => Promise<unknown>]> = [
          [
            'contacts-list',
            '/contacts',
            () => page.getByRole('link', { name: 'Ada Lin' }).waitFor(),
          ],
          [
            'contacts-detail',
            `/contacts/${contact!.id}`,
            () => page.getByRole('heading', { name: 'Grace Hopper' }).waitFor(),
          ],
          [
            'contacts-new',
            '/contacts/new',
            () => page.getByRole('button', { name: 'Create contact' }).waitFor(),
          ],
          [
            'contacts-import',
            '/contacts/import',
            () => page.getByLabel('CSV file', { exact: true }).waitFor(),
          ],
          [
            'contacts-groups',
            '/contacts/groups',
            () => page.getByRole('link', { name: 'Imported' }).waitFor(),
          ],
          [
            'contacts-group',
            `/contacts/groups/${groupId}`,
            () => page.getByRole('list', { name: 'Members', exact: true }).waitFor(),
          ],
          [
            'contacts-conditional-groups',
            '/contacts/conditional-groups',
            () => page.getByRole('link', { name: 'In Lyon' }).waitFor(),
          ],
          [
            'contacts-conditional-group',
            `/contacts/conditional-groups/${conditionalGroupId}`,
            () => page.getByRole('list', { name: 'Selected contacts' }).waitFor(),
          ],
        ];
        for (const [name, path, ready] of views) {
          await page.goto(`${t.url}${path}`);
          await ready();
          await checkPage(page, name);
        }
        // A refused import and a refused condition, as a person sees them.
        await page.goto(`${t.url}/contacts/import`);
        await page
          .getByLabel('CSV file', { exact: true })
          .setInputFiles(csv('bad.csv', 'name,number\nX,12\n'));
        await page.getByRole('button', { name: 'Import' }).click();
        await page.getByRole('alert').filter({ hasText: 'The file was refused' }).waitFor();
        await checkPage(page, 'contacts-import-refused');
        await page
          .getByLabel('CSV file', { exact: true })
          .setInputFiles(csv('one.csv', 'name,number,firstname\nDora Vale,+33612340031,Dora\n'));
        await page.getByRole('button', { name: 'Import' }).click();
        await page
          .getByRole('status')
          .filter({ hasText: /^Imported 1 contact: / })
          .waitFor();
        await checkPage(page, 'contacts-import-done');
        await page.goto(`${t.url}/contacts/conditional-groups/${conditionalGroupId}`);
        const condition = page.getByLabel('Condition', { exact: true });
        await condition.fill('contact.city ==');
        await waitForError(condition);
        await checkPage(page, 'contacts-condition-refused');
      } finally {
        await page.close();
      }
    },
    120_000,
  );
});
