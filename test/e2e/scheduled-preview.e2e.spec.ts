import request, { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { measureSms } from '../../src/common/text/gsm';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makeContact, makeUser } from '../support/factories';
import { countScheduledRows } from '../support/scheduled.factories';

/*
 * post_scheduled_preview (docs/api.md#post_scheduled_preview) over real HTTP against the real
 * app, on every database engine: each rule in the order of the documentation, and the preview
 * held against what the dispatch makes of the same text (dispatch-text.e2e.spec.ts sends them).
 */

const INVALID_PARAMETER = 2;
const MISSING_PARAMETER = 4;
const INVALID = 'You have specified an invalid parameter : ';
const MISSING = 'One require parameter is missing : ';

function expectError(response: Response, status: number, error: number, message: string): void {
  expect({ status: response.status, body: response.body as unknown }).toEqual({
    status,
    body: { error, message, response: null, next: null, prev: null },
  });
}

function expectPreview(response: Response, text: string): void {
  expect({ status: response.status, body: response.body as unknown }).toEqual({
    status: 200,
    body: {
      error: 0,
      message: null,
      response: { text, ...measureSms(text) },
      next: null,
      prev: null,
    },
  });
}

describeEachDatabase('post_scheduled_preview', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database());
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  const preview = (apiKey: string, body: Record<string, unknown> | string) => {
    const call = api(t, apiKey).post('/api/scheduled/preview/');
    return typeof body === 'string'
      ? call.set('Content-Type', 'application/x-www-form-urlencoded').send(body)
      : call.send(body);
  };

  /** A user with the settings given and one contact, John Doe, whose data has a firstname. */
  async function userWithContact(settings: Record<string, string> = {}) {
    const { user, apiKey } = await makeUser(ds, { settings });
    const contact = await makeContact(ds, user.id, {
      name: 'John Doe',
      data: '{"firstname":"John","city":"Zürich"}',
    });
    return { user, apiKey, contact };
  }

  it('refuses a request without an API key with 401', async () => {
    const response = await request(t.url)
      .post('/api/scheduled/preview/')
      .send({ text: 'Hi', id_contact: 1 });
    expect(response.status).toBe(401);
  });

  it('rule 1: text or id_contact missing is MISSING_PARAMETER naming them', async () => {
    const { apiKey, contact } = await userWithContact();
    expectError(
      await preview(apiKey, {}),
      400,
      MISSING_PARAMETER,
      `${MISSING}text, id_contact : text and id_contact are required.`,
    );
    expectError(
      await preview(apiKey, { text: '', id_contact: contact.id }),
      400,
      MISSING_PARAMETER,
      `${MISSING}text : text is required.`,
    );
    expectError(
      await preview(apiKey, 'text=Hello'),
      400,
      MISSING_PARAMETER,
      `${MISSING}id_contact : id_contact is required.`,
    );
  });

  it('rule 2: a text that is not a string, or longer than 1000 characters, as post_scheduled refuses it', async () => {
    const { apiKey, contact } = await userWithContact();
    expectError(
      await preview(apiKey, { text: ['a', 'b'], id_contact: contact.id }),
      400,
      INVALID_PARAMETER,
      `${INVALID}text must be a string.`,
    );
    const long = '😀'.repeat(1001);
    const refused = await api(t, apiKey).json('/api/scheduled/', {
      text: long,
      numbers: '+33612345678',
    });
    const answer = await preview(apiKey, { text: long, id_contact: contact.id });
    expectError(
      answer,
      400,
      INVALID_PARAMETER,
      `${INVALID}text must be at most 1000 characters long, got 1001.`,
    );
    expect(answer.body).toEqual(refused.body);
  });

  it('rule 3: an id_contact that is not a non-negative integer is INVALID_PARAMETER', async () => {
    const { apiKey } = await userWithContact();
    expectError(
      await preview(apiKey, { text: 'Hi', id_contact: 'john' }),
      400,
      INVALID_PARAMETER,
      `${INVALID}id_contact must be a non-negative integer, got "john".`,
    );
  });

  it('rule 4: with templating on, a template that does not compile is refused with post_scheduled’s message', async () => {
    const { apiKey, contact } = await userWithContact();
    const text = 'Hello {{ contact.firstname';
    const refused = await api(t, apiKey).json('/api/scheduled/', { text, numbers: '+33612345678' });
    const answer = await preview(apiKey, { text, id_contact: contact.id });
    expectError(
      answer,
      400,
      INVALID_PARAMETER,
      `${INVALID}text : The template does not compile: Unable to find closing bracket '}}' ` +
        'opened at line 1, column 7.',
    );
    expect(answer.body).toEqual(refused.body);
  });

  it('rule 5: a contact of another user, or none, is INVALID_PARAMETER, the same for both', async () => {
    const { apiKey } = await userWithContact();
    const other = await userWithContact();
    expectError(
      await preview(apiKey, { text: 'Hi', id_contact: other.contact.id }),
      400,
      INVALID_PARAMETER,
      `${INVALID}id_contact : ${other.contact.id} is not the id of one of your contacts.`,
    );
    expectError(
      await preview(apiKey, { text: 'Hi', id_contact: 999999 }),
      400,
      INVALID_PARAMETER,
      `${INVALID}id_contact : 999999 is not the id of one of your contacts.`,
    );
  });

  it('rule 6: a template that fails for this contact’s data says why, as the dispatch’s failed entry would', async () => {
    const { apiKey, contact } = await userWithContact();
    expectError(
      await preview(apiKey, { text: '{{ contact.nickname }}', id_contact: contact.id }),
      400,
      INVALID_PARAMETER,
      `${INVALID}text : sent to the contact ${contact.id}, it would fail: The rendered text is empty.`,
    );
  });

  it('renders the template with the contact’s data and metas, and counts it as the dispatch does', async () => {
    const { apiKey, contact } = await userWithContact();
    const answer = await preview(apiKey, {
      text: 'Hello {{ contact.firstname }} ({{ contact_metas.name }}, {{ contact.city }}) 😀',
      id_contact: contact.id,
    });
    expectPreview(answer, 'Hello John (John Doe, Zürich) 😀');
    expect(answer.body.response).toMatchObject({ segments: 1, encoding: 'UCS-2' });
  });

  it('counts a long GSM text with extension characters in 153-septet parts', async () => {
    const { apiKey, contact } = await userWithContact();
    const text = `${'€'.repeat(80)}{{ contact.firstname }}`;
    const answer = await preview(apiKey, { text, id_contact: contact.id });
    expectPreview(answer, `${'€'.repeat(80)}John`);
    expect(answer.body.response).toMatchObject({ segments: 2, encoding: 'GSM-7' });
  });

  it('with force_gsm_alphabet on, previews the transliterated text, in GSM-7', async () => {
    const { apiKey, contact } = await userWithContact({ force_gsm_alphabet: '1' });
    const answer = await preview(apiKey, {
      text: 'Bonjour {{ contact.firstname }} – ça va ? 😀',
      id_contact: contact.id,
    });
    expectPreview(answer, 'Bonjour John - ca va ? ?');
    expect(answer.body.response).toMatchObject({ encoding: 'GSM-7' });
  });

  it('with templating off, previews the text as it is, braces included', async () => {
    const { apiKey, contact } = await userWithContact({ templating: '0' });
    expectPreview(
      await preview(apiKey, { text: 'Hello {{ contact.firstname', id_contact: contact.id }),
      'Hello {{ contact.firstname',
    );
  });

  it('takes a form body and creates nothing', async () => {
    const { user, apiKey, contact } = await userWithContact();
    expectPreview(
      await preview(apiKey, `text=Hi+%7B%7B+contact.firstname+%7D%7D&id_contact=${contact.id}`),
      'Hi John',
    );
    expect((await countScheduledRows(ds, user.id)).scheduled).toBe(0);
  });
});
