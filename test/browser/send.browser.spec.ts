import type { Browser, Locator, Page, Request } from 'playwright-core';
import request from 'supertest';
import { measureSms, toGsmAlphabet } from '../../src/common/text/gsm';
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
import { makeConditionalGroup, makeContact, makeGroup, makePhone } from '../support/factories';
import { waitFor } from '../support/instruments';
import { PNG } from '../support/scheduled.factories';

/*
 * The built console's Send page in Debian's Chromium, against the real server on SQLite (or
 * MariaDB, BROWSER_DATABASE) with its dispatch worker inline and a phone of the `test` adapter:
 * what the page counts, previews and sends is held against measureSms and what the API then lists.
 */
const describeInBrowser = browserAvailable() ? describe : describe.skip;

interface SentEntry {
  destination: string;
  mms: number;
  medias: unknown[];
  status: string;
  segments: number;
  encoding: string;
  text: string;
}

/** The fields of a multipart/form-data body the page posted, files left out. */
function fieldsPosted(posted: Request): Record<string, string> {
  const body = posted.postData() ?? '';
  const fields: Record<string, string> = {};
  for (const [, name, value] of body.matchAll(/name="([^"]+)"\r\n\r\n([^\r]*)\r\n/g)) {
    fields[name] = value;
  }
  return fields;
}

/** What the page shows under the text for `text`, from the dispatch's own count. */
function countOf(text: string): string {
  const { segments, encoding } = measureSms(text);
  return `${[...text].length} / 1000 characters · ${segments} SMS ${
    segments === 1 ? 'segment' : 'segments'
  } · ${encoding}`;
}

describeInBrowser('the Send page, in Chromium', () => {
  let database: TestDatabase;
  let t: TestApp;
  let browser: Browser;
  let user: ConsoleUser;
  let phoneName: string;
  const contact = { name: 'Ada Lovelace', number: '+33612345679', firstname: 'Ada' };

  beforeAll(async () => {
    screenshotsFolder();
    database = await createBrowserDatabase();
    t = await startApp(database, { WORKER: 'inline', DISPATCH_POLL_MS: '20' });
    browser = await launchChromium();
    user = await makeConsoleUser(t.dataSource);
    phoneName = (
      await makePhone(t.dataSource, user.id, {
        name: 'Test phone',
        adapter_data: '{"delivery":"delivered"}',
      })
    ).name;
    const ada = await makeContact(t.dataSource, user.id, {
      name: contact.name,
      number: contact.number,
      data: JSON.stringify({ firstname: contact.firstname }),
    });
    await makeGroup(t.dataSource, user.id, [ada.id], { name: 'Mathematicians' });
    await makeGroup(t.dataSource, user.id, [], { name: 'Poets' });
    await makeConditionalGroup(t.dataSource, user.id, {
      name: 'Named Ada',
      condition: "contact.firstname == 'Ada'",
    });
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await database?.drop();
  });

  /** The text area, found by its label. */
  const textField = (page: Page) => page.getByLabel('Text', { exact: true });

  /** What the field's description says: its hint (the live count) and its error, if any. */
  async function described(field: Locator, part: 'hint' | 'error'): Promise<string> {
    const ids = ((await field.getAttribute('aria-describedby')) ?? '').split(' ');
    const id = ids.find((candidate) => candidate.endsWith(`-${part}`));
    if (!id) {
      return '';
    }
    return (await field.page().locator(`[id="${id}"]`).textContent()) ?? '';
  }

  async function sentFor(scheduledId: number): Promise<SentEntry[]> {
    const answer = await request(t.url)
      .get('/api/list/sended/')
      .query({ originating_scheduled: scheduledId })
      .set('X-Api-Key', user.apiKey);
    return (answer.body as { response: SentEntry[] }).response;
  }

  /** The id the page shows for the message it created. */
  async function createdId(page: Page): Promise<number> {
    const heading = page.getByRole('heading', { name: /^Scheduled message \d+$/ });
    await heading.waitFor();
    return Number(((await heading.textContent()) ?? '').replace(/\D/g, ''));
  }

  it('counts characters, segments and encoding as the dispatch does, live as the text changes', async () => {
    const page = await signedInPage(browser, t.url, user, '/send');
    const errors = pageErrors(page);
    try {
      const texts = [
        'Hello, see you at 5pm!',
        'Price: 10€ ~ [promo]',
        '€'.repeat(81),
        'a'.repeat(161),
        'Bon anniversaire 🎉',
        'Hello 😀 '.repeat(10),
      ];
      for (const text of texts) {
        await textField(page).fill(text);
        await expect(described(textField(page), 'hint')).resolves.toBe(countOf(text));
      }
      // Typed key by key, the count follows each character.
      await textField(page).fill('');
      await textField(page).pressSequentially('Hé😀');
      await expect(described(textField(page), 'hint')).resolves.toBe(countOf('Hé😀'));
      expect(measureSms('€'.repeat(81))).toEqual({ segments: 2, encoding: 'GSM-7' });
      expect(measureSms('Hello 😀 '.repeat(10))).toEqual({ segments: 2, encoding: 'UCS-2' });
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('counts the text as transliterated when the setting force_gsm_alphabet is on', async () => {
    const gsmUser = await makeConsoleUser(t.dataSource, { settings: { force_gsm_alphabet: '1' } });
    const page = await signedInPage(browser, t.url, gsmUser, '/send');
    try {
      const text = 'Ça coûte 5€ – à bientôt 😀';
      const sent = toGsmAlphabet(text);
      expect(sent).toBe('Ça coute 5€ - à bientot ?');
      const { segments, encoding } = measureSms(sent);
      await textField(page).fill(text);
      await expect(described(textField(page), 'hint')).resolves.toBe(
        `${[...text].length} / 1000 characters · ${segments} SMS segment · ${encoding}` +
          ' (counted as transliterated to the GSM alphabet)',
      );
      expect(encoding).toBe('GSM-7');
    } finally {
      await page.close();
    }
  });

  it('previews the template rendered for a chosen contact', async () => {
    const page = await signedInPage(browser, t.url, user, '/send');
    try {
      await textField(page).fill('Hello {{ contact.firstname }} ({{ contact_metas.name }}) 🎉');
      const preview = page.getByRole('region', { name: 'Preview for a contact' });
      await preview.getByLabel('Search contacts by name').fill('lovelace');
      await preview
        .getByRole('button', { name: `Choose ${contact.name} (${contact.number})` })
        .click();
      const rendered = preview.getByLabel(`Text for ${contact.name}`);
      await rendered.waitFor();
      const expected = 'Hello Ada (Ada Lovelace) 🎉';
      await expect(rendered.textContent()).resolves.toBe(expected);
      const { segments, encoding } = measureSms(expected);
      await expect(preview.getByRole('figure').textContent()).resolves.toContain(
        `(${segments} SMS segment, ${encoding})`,
      );
    } finally {
      await page.close();
    }
  });

  it('sends to a number and a contact through the chosen phone, which the test adapter sends with the segments and encoding shown', async () => {
    const page = await signedInPage(browser, t.url, user, '/send');
    try {
      await page.getByLabel('Numbers', { exact: true }).fill('+33612345678');
      await page.getByText('Contacts (0)').click();
      const contacts = page.getByRole('group', { name: 'Contacts', exact: true });
      await contacts.getByLabel('Search contacts by name').fill('Ada');
      await contacts
        .getByRole('button', { name: `Add ${contact.name} (${contact.number})` })
        .click();
      const text =
        'Meeting moved to 10:00 in room B — please bring the Q3 slides and the budget 🎉';
      await textField(page).fill(text);
      const shown = await described(textField(page), 'hint');
      expect(shown).toBe(countOf(text));
      await page.getByLabel('Phone', { exact: true }).selectOption({ label: phoneName });
      await page.getByRole('button', { name: 'Send', exact: true }).click();

      const id = await createdId(page);
      let sent: SentEntry[] = [];
      await waitFor(async () => {
        sent = await sentFor(id);
        return sent.length === 2 && sent.every((entry) => entry.status === 'delivered');
      }, 'the two messages delivered by the test adapter');
      const { segments, encoding } = measureSms(text);
      expect(shown).toContain(`${segments} SMS segments · ${encoding}`);
      expect(
        sent.map((entry) => [entry.destination, entry.text, entry.segments, entry.encoding]),
      ).toEqual([
        ['+33612345678', text, segments, encoding],
        [contact.number, text, segments, encoding],
      ]);
      // The page shows them too, once the dispatch has sent them.
      const table = page.getByRole('table', { name: 'Sent messages' });
      await page.getByRole('cell', { name: contact.number }).waitFor();
      await expect(table.getByRole('row').count()).resolves.toBe(3);
      await checkPage(page, 'send-sent');
    } finally {
      await page.close();
    }
  });

  it('sends to the numbers of a CSV file, each with its own template data', async () => {
    const page = await signedInPage(browser, t.url, user, '/send');
    try {
      await page.getByLabel('Numbers from a CSV file').setInputFiles({
        name: 'numbers.csv',
        mimeType: 'text/csv',
        buffer: Buffer.from('number,firstname\n+33612345671,Grace\n+33612345672,Alan\n'),
      });
      await textField(page).fill('Hi {{ contact.firstname }}, the results are out.');
      await page.getByRole('button', { name: 'Send', exact: true }).click();

      const id = await createdId(page);
      let sent: SentEntry[] = [];
      await waitFor(async () => {
        sent = await sentFor(id);
        return sent.length === 2;
      }, 'the two messages of the CSV');
      expect(sent.map((entry) => [entry.destination, entry.text])).toEqual([
        ['+33612345671', 'Hi Grace, the results are out.'],
        ['+33612345672', 'Hi Alan, the results are out.'],
      ]);
    } finally {
      await page.close();
    }
  });

  it('sends an MMS with a media file, and offers none when the setting mms is off', async () => {
    const page = await signedInPage(browser, t.url, user, '/send');
    try {
      await page.getByLabel('Numbers', { exact: true }).fill('+33612345673');
      await textField(page).fill('The plan');
      await page.getByLabel('MMS, with media files').check();
      await page.getByLabel('Media files', { exact: true }).setInputFiles({
        name: 'plan.png',
        mimeType: 'image/png',
        buffer: PNG,
      });
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      const id = await createdId(page);
      let sent: SentEntry[] = [];
      await waitFor(async () => {
        sent = await sentFor(id);
        return sent.length === 1;
      }, 'the MMS sent');
      expect(sent[0]).toMatchObject({ destination: '+33612345673', text: 'The plan', mms: 1 });
      expect(sent[0].medias).toHaveLength(1);
    } finally {
      await page.close();
    }
    const smsOnly = await makeConsoleUser(t.dataSource, { settings: { mms: '0' } });
    const other = await signedInPage(browser, t.url, smsOnly, '/send');
    try {
      await textField(other).waitFor();
      await expect(other.getByLabel('MMS, with media files').count()).resolves.toBe(0);
    } finally {
      await other.close();
    }
  });

  it('schedules a message for later, shown as get_scheduled answers it', async () => {
    const page = await signedInPage(browser, t.url, user, '/send');
    try {
      await page.getByLabel('Numbers', { exact: true }).fill('+33612345670');
      await textField(page).fill('See you next year');
      await page.getByLabel('Later').check();
      await page.getByLabel('Date and time').fill('2099-01-31T08:30:00');
      await page.getByLabel('Tag').fill('reminders');
      await page.getByLabel('Phone', { exact: true }).selectOption({ label: phoneName });
      await page.getByText('Groups (0)', { exact: true }).click();
      const groups = page.getByRole('group', { name: 'Groups', exact: true });
      await groups.getByRole('button', { name: 'Add Poets (0)' }).waitFor();
      await groups.getByLabel('Search groups by name').fill('MATH');
      // The API's search, once the typing pauses, leaves Poets out.
      await groups.getByRole('button', { name: 'Add Poets (0)' }).waitFor({ state: 'detached' });
      await expect(groups.getByRole('list', { name: 'Groups found' }).textContent()).resolves.toBe(
        'Mathematicians (1)',
      );
      await groups.getByRole('button', { name: 'Add Mathematicians (1)' }).click();
      await page.getByText('Conditional groups (0)').click();
      await page
        .getByRole('group', { name: 'Conditional groups', exact: true })
        .getByRole('button', { name: 'Add Named Ada' })
        .click();
      await page.getByRole('button', { name: 'Schedule' }).click();

      const id = await createdId(page);
      const answer = await request(t.url)
        .get(`/api/scheduled/${id}/`)
        .set('X-Api-Key', user.apiKey)
        .expect(200);
      expect(answer.body.response).toMatchObject({
        at: '2099-01-31 08:30:00',
        text: 'See you next year',
        tag: 'reminders',
        numbers: [{ number: '+33612345670' }],
        groups: [{ name: 'Mathematicians' }],
        conditional_groups: [{ name: 'Named Ada' }],
      });
      const details = page.getByRole('region', { name: `Scheduled message ${id}` });
      // The panel reads the message back through get_scheduled: "Loading…" until it answers.
      await details.getByText('2099-01-31 08:30:00').waitFor();
      await expect(details.textContent()).resolves.toContain('2099-01-31 08:30:00');
      await expect(details.textContent()).resolves.toContain('+33612345670');
      await expect(details.textContent()).resolves.toContain(`the phone ${phoneName}`);
      await checkPage(page, 'send-scheduled');
    } finally {
      await page.close();
    }
  });

  /** The next post_scheduled the page makes. */
  function nextPost(page: Page): Promise<Request> {
    return page.waitForRequest(
      (posted) => posted.method() === 'POST' && new URL(posted.url()).pathname === '/api/scheduled',
    );
  }

  /** The folded delivery options, opened or closed by their summary as a person does. */
  const deliverySummary = (page: Page) => page.locator('summary', { hasText: 'Delivery options' });

  it.each([
    { viewport: VIEWPORTS[0], choice: 'Any time', window: 'none' },
    { viewport: VIEWPORTS[1], choice: 'Only in this window', window: 'mon-fri 08:00-20:00' },
  ])(
    'schedules a message with high priority, a validity of 30 minutes and the send window “$choice” at $viewport.width px',
    async ({ viewport, choice, window }) => {
      const page = await signedInPage(browser, t.url, user, '/send', viewport);
      const errors = pageErrors(page);
      try {
        await page.getByLabel('Numbers', { exact: true }).fill('+33612345674');
        await textField(page).fill('Your code is 482913');
        await page.getByLabel('Later').check();
        await page.getByLabel('Date and time').fill('2099-02-01T09:00:00');
        await deliverySummary(page).click();
        await page.getByRole('group', { name: 'Priority' }).getByLabel('High').check();
        await page.getByLabel('Validity in minutes').fill('30');
        const windows = page.getByRole('group', { name: 'Send window' });
        await windows.getByLabel(choice).check();
        if (window !== 'none') {
          await windows.getByLabel('Window', { exact: true }).fill(window);
        }
        await checkPage(page, 'send-delivery-options');
        // Closed, the options say what differs from the defaults.
        await deliverySummary(page).click();
        await expect(deliverySummary(page).textContent()).resolves.toBe(
          `Delivery options: high priority · valid 30 minutes · ${
            window === 'none' ? 'any time' : `only ${window}`
          }`,
        );
        await checkPage(page, 'send-delivery-summary');

        const posted = nextPost(page);
        await page.getByRole('button', { name: 'Schedule' }).click();
        const id = await createdId(page);
        expect(fieldsPosted(await posted)).toMatchObject({
          priority: 'high',
          validity: '30',
          window,
        });
        const listed = await request(t.url)
          .get('/api/list/scheduled/')
          .query({ after_id: id - 1 })
          .set('X-Api-Key', user.apiKey)
          .expect(200);
        expect(listed.body.response[0]).toMatchObject({
          id,
          at: '2099-02-01 09:00:00',
          priority: 'high',
          validity: 30,
          window,
        });
        const details = page.getByRole('region', { name: `Scheduled message ${id}` });
        await details.getByText('High priority, expires 30 minutes after it is due').waitFor();
        expect(errors).toEqual([]);
      } finally {
        await page.close();
      }
    },
  );

  it.each([
    { validity: '0', viewport: VIEWPORTS[0] },
    { validity: '20000', viewport: VIEWPORTS[1] },
  ])(
    'shows the API’s refusal of the validity $validity at its field, opening the options folded since',
    async ({ validity, viewport }) => {
      // As multipart/form-data, as the page posts it: the message quotes the value as it came.
      const refused = await request(t.url)
        .post('/api/scheduled/')
        .set('X-Api-Key', user.apiKey)
        .field('text', 'Your code is 482913')
        .field('numbers[0]', '+33612345678')
        .field('validity', validity)
        .expect(400);
      const page = await signedInPage(browser, t.url, user, '/send', viewport);
      try {
        await page.getByLabel('Numbers', { exact: true }).fill('+33612345678');
        await textField(page).fill('Your code is 482913');
        await deliverySummary(page).click();
        const field = page.getByLabel('Validity in minutes');
        await field.fill(validity);
        await deliverySummary(page).click();
        await field.waitFor({ state: 'hidden' });
        const posted = nextPost(page);
        await page.getByRole('button', { name: 'Send', exact: true }).click();
        await field.waitFor();
        await expect(described(field, 'error')).resolves.toBe(refused.body.message);
        await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');
        // The options left as they were are not sent: the API's defaults apply.
        const fields = fieldsPosted(await posted);
        expect(fields.validity).toBe(validity);
        expect(Object.keys(fields)).not.toContain('priority');
        expect(Object.keys(fields)).not.toContain('window');
        await checkPage(page, 'send-bad-validity');
      } finally {
        await page.close();
      }
    },
  );

  it.each([
    ['a text over 1000 characters', 'a'.repeat(1001), 'send-too-long'],
    ['a template that does not compile', 'Hello {{ contact.firstname', 'send-bad-template'],
  ])('shows the API’s refusal of %s at the text field', async (_, text, screenshot) => {
    const refused = await request(t.url)
      .post('/api/scheduled/')
      .set('X-Api-Key', user.apiKey)
      .send({ text, numbers: ['+33612345678'] })
      .expect(400);
    const page = await signedInPage(browser, t.url, user, '/send');
    try {
      await page.getByLabel('Numbers', { exact: true }).fill('+33612345678');
      await textField(page).fill(text);
      await page.getByRole('button', { name: 'Send', exact: true }).click();
      await page.getByRole('alert').first().waitFor();
      await expect(described(textField(page), 'error')).resolves.toBe(refused.body.message);
      await expect(textField(page).getAttribute('aria-invalid')).resolves.toBe('true');
      await checkPage(page, screenshot);
    } finally {
      await page.close();
    }
  });

  it.each(VIEWPORTS)('works at $width × $height', async (viewport) => {
    const page = await signedInPage(browser, t.url, user, '/send', viewport);
    const errors = pageErrors(page);
    try {
      await page.getByLabel('Numbers', { exact: true }).fill('+33612345678');
      await page.getByText('Contacts (0)').click();
      const contacts = page.getByRole('group', { name: 'Contacts', exact: true });
      await contacts
        .getByRole('button', { name: `Add ${contact.name} (${contact.number})` })
        .click();
      await textField(page).fill('Hello {{ contact.firstname }}, your order has shipped 📦');
      const preview = page.getByRole('region', { name: 'Preview for a contact' });
      await preview
        .getByRole('button', { name: `Choose ${contact.name} (${contact.number})` })
        .click();
      await preview.getByLabel(`Text for ${contact.name}`).waitFor();
      await checkPage(page, 'send');
      expect(errors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
