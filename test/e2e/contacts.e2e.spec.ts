import request from 'supertest';
import { DataSource } from 'typeorm';
import { IMPORT_CHUNK } from '../../src/contacts/contacts-import';
import { Contact } from '../../src/contacts/entities/contact.entity';
import { GroupContact } from '../../src/groups/entities/group.entity';
import { ScheduledContact } from '../../src/scheduled/entities/scheduled.entity';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makeContact, makeGroup, makeScheduled, makeUser } from '../support/factories';
import {
  INVALID_CREDENTIALS,
  INVALID_PARAMETER,
  MISSING_PARAMETER,
  CANNOT_DELETE,
  CANNOT_UPLOAD_FILE,
  CANNOT_UPDATE,
  INVALID,
  MISSING,
  expectSuccess,
  expectError,
} from '../support/envelope';

/*
 * post_contact, get_contact, post_update_contact, delete_contact and post_import_contacts
 * (docs/api.md) over real HTTP against the real app, on every database engine. Each test makes
 * its own users.
 */

/** Small enough that a test can go past it. */
const MAX_ROWS = 3000;
/** Files other than CSVs are limited to 1 KiB here: a larger contacts_csv shows the CSV limit. */
const MAX_FILE_BYTES = 1024;
const MAX_CSV_BYTES = 200_000;

describeEachDatabase('contacts', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database(), {
      MAX_CSV_ROWS: String(MAX_ROWS),
      MAX_FILE_BYTES: String(MAX_FILE_BYTES),
      MAX_CSV_BYTES: String(MAX_CSV_BYTES),
    });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  const contactsOf = (id_user: number) =>
    ds.getRepository(Contact).find({ where: { id_user }, order: { id: 'ASC' } });
  const contactRow = (id: number) => ds.getRepository(Contact).findOneBy({ id });
  const importCsv = (apiKey: string, csv: string) =>
    api(t, apiKey)
      .post('/api/contact/import/')
      .attach('contacts_csv', Buffer.from(csv), 'contacts.csv');

  describe('post_contact (POST /api/contact/)', () => {
    it('answers 401 INVALID_CREDENTIALS without an API key and creates nothing', async () => {
      const { user } = await makeUser(ds);

      const response = await request(t.url)
        .post('/api/contact/')
        .type('form')
        .send({ name: 'No key', number: '+33612345678' });

      expectError(response, 401, INVALID_CREDENTIALS, /^Invalid API Key/);
      expect(await contactsOf(user.id)).toEqual([]);
    });

    it('creates a contact from a form with bracket data, name trimmed, with HTTP 201 and its id', async () => {
      const { user, apiKey } = await makeUser(ds);

      const response = await api(t, apiKey)
        .form('/api/contact/')
        .send('name=  John Doe  &number=%2B33 6 12 34 56 78&data[firstname]=John&data[age]=42');

      expectSuccess(response, 201, expect.any(Number));
      expect(await contactRow(response.body.response as number)).toMatchObject({
        id_user: user.id,
        name: 'John Doe',
        name_key: 'john doe',
        number: '+33612345678',
        data: '{"firstname":"John","age":"42"}',
        updated_at: null,
      });
    });

    it('takes data as a JSON object, or as a JSON object in a string, and defaults it to {}', async () => {
      const { apiKey } = await makeUser(ds);

      const object = await api(t, apiKey).json('/api/contact/', {
        name: 'Object',
        number: '+33612345678',
        data: { firstname: 'Ann', vip: true, score: 1.5 },
      });
      const text = await api(t, apiKey).form('/api/contact/').send({
        name: 'Text',
        number: '+33612345679',
        data: '{"city":"Lyon"}',
      });
      const none = await api(t, apiKey)
        .form('/api/contact/')
        .send({
          name: 'None',
          number: '+3361234567' + '0',
        });

      expectSuccess(object, 201, expect.any(Number));
      expectSuccess(text, 201, expect.any(Number));
      expectSuccess(none, 201, expect.any(Number));
      expect((await contactRow(object.body.response as number))?.data).toBe(
        '{"firstname":"Ann","vip":true,"score":1.5}',
      );
      expect((await contactRow(text.body.response as number))?.data).toBe('{"city":"Lyon"}');
      expect((await contactRow(none.body.response as number))?.data).toBe('{}');
    });

    it("reads national numbers in the user's default_phone_country", async () => {
      const { apiKey } = await makeUser(ds, { settings: { default_phone_country: 'fr' } });
      const { apiKey: noCountry } = await makeUser(ds);

      const national = await api(t, apiKey).form('/api/contact/').send({
        name: 'National',
        number: '06 12 34 56 78',
      });
      const refused = await api(t, noCountry).form('/api/contact/').send({
        name: 'National',
        number: '06 12 34 56 78',
      });

      expectSuccess(national, 201, expect.any(Number));
      expect((await contactRow(national.body.response as number))?.number).toBe('+33612345678');
      expectError(
        refused,
        400,
        INVALID_PARAMETER,
        `${INVALID}number : "06 12 34 56 78" is not a valid phone number; use the international format (+…).`,
      );
    });

    it('refuses a missing name or number with MISSING_PARAMETER naming them', async () => {
      const { user, apiKey } = await makeUser(ds);

      expectError(
        await api(t, apiKey).form('/api/contact/').send({ number: '+33612345678' }),
        400,
        MISSING_PARAMETER,
        `${MISSING}name is required.`,
      );
      expectError(
        await api(t, apiKey).form('/api/contact/').send({ name: 'No number', number: '' }),
        400,
        MISSING_PARAMETER,
        `${MISSING}number is required.`,
      );
      expectError(
        await api(t, apiKey).form('/api/contact/').send({}),
        400,
        MISSING_PARAMETER,
        `${MISSING}name and number are required.`,
      );
      expect(await contactsOf(user.id)).toEqual([]);
    });

    it('refuses an invalid number with INVALID_PARAMETER naming number, never dropping it', async () => {
      const { user, apiKey } = await makeUser(ds, { settings: { default_phone_country: 'fr' } });

      const response = await api(t, apiKey).form('/api/contact/').send({
        name: 'Bad number',
        number: '+3361234',
      });

      expectError(
        response,
        400,
        INVALID_PARAMETER,
        `${INVALID}number : "+3361234" is not a valid phone number; use the international format (+…) or a national number of FR.`,
      );
      expect(await contactsOf(user.id)).toEqual([]);
    });

    it("refuses a name differing only by case or blanks from one of the caller's contacts, not another user's", async () => {
      const { user, apiKey } = await makeUser(ds);
      const { apiKey: otherKey } = await makeUser(ds);
      expectSuccess(
        await api(t, apiKey).form('/api/contact/').send({ name: 'Bob', number: '+33612345678' }),
        201,
        expect.any(Number),
      );

      const sameCase = await api(t, apiKey).form('/api/contact/').send({
        name: 'bOB',
        number: '+33612345679',
      });
      const blanks = await api(t, apiKey).form('/api/contact/').send({
        name: '  Bob ',
        number: '+33612345679',
      });
      const other = await api(t, otherKey).form('/api/contact/').send({
        name: 'BOB',
        number: '+33612345679',
      });

      expectError(
        sameCase,
        400,
        INVALID_PARAMETER,
        `${INVALID}name : you already have a contact named "bOB".`,
      );
      expectError(
        blanks,
        400,
        INVALID_PARAMETER,
        /^You have specified an invalid parameter : name /,
      );
      expectSuccess(other, 201, expect.any(Number));
      expect((await contactsOf(user.id)).map((contact) => contact.name)).toEqual(['Bob']);
    });

    it('refuses data of more than 64 keys, more than 8 KiB, or non-scalar values, naming data', async () => {
      const { user, apiKey } = await makeUser(ds);
      const keys = Object.fromEntries(Array.from({ length: 65 }, (_, i) => [`k${i}`, 'v']));

      expectError(
        await api(t, apiKey).json('/api/contact/', {
          name: 'A',
          number: '+33612345678',
          data: keys,
        }),
        400,
        INVALID_PARAMETER,
        `${INVALID}data must have at most 64 keys, got 65.`,
      );
      expectError(
        await api(t, apiKey).json('/api/contact/', {
          name: 'A',
          number: '+33612345678',
          data: { note: 'x'.repeat(8200) },
        }),
        400,
        INVALID_PARAMETER,
        /^You have specified an invalid parameter : data must take at most 8192 bytes once JSON-encoded, got \d+\.$/,
      );
      expectError(
        await api(t, apiKey).json('/api/contact/', {
          name: 'A',
          number: '+33612345678',
          data: { address: { city: 'Lyon' } },
        }),
        400,
        INVALID_PARAMETER,
        `${INVALID}data[address] must be a text, a number or a boolean.`,
      );
      expect(await contactsOf(user.id)).toEqual([]);
    });

    it('accepts data of exactly 64 keys', async () => {
      const { apiKey } = await makeUser(ds);
      const keys = Object.fromEntries(Array.from({ length: 64 }, (_, i) => [`k${i}`, i]));

      const response = await api(t, apiKey).json('/api/contact/', {
        name: 'Many',
        number: '+33612345678',
        data: keys,
      });

      expectSuccess(response, 201, expect.any(Number));
    });

    describe('malformed, oversized and wrong-typed values', () => {
      it.each<[string, Record<string, unknown>, number, string | RegExp]>([
        [
          'name as a list',
          { name: ['a', 'b'] },
          INVALID_PARAMETER,
          `${INVALID}name must be a string.`,
        ],
        [
          'name as an object',
          { name: { a: 1 } },
          INVALID_PARAMETER,
          `${INVALID}name must be a string.`,
        ],
        [
          'name of 101 characters',
          { name: 'n'.repeat(101) },
          INVALID_PARAMETER,
          `${INVALID}name must be at most 100 characters long.`,
        ],
        [
          'name of 10,000 characters',
          { name: 'n'.repeat(10_000) },
          INVALID_PARAMETER,
          `${INVALID}name must be at most 100 characters long.`,
        ],
        ['name blank', { name: '   ' }, INVALID_PARAMETER, `${INVALID}name must not be empty.`],
        ['name as true', { name: true }, INVALID_PARAMETER, `${INVALID}name must be a string.`],
        [
          'number as a list',
          { number: ['+33612345678'] },
          INVALID_PARAMETER,
          `${INVALID}number must be a phone number, as a string.`,
        ],
        [
          'number as an object',
          { number: { n: 1 } },
          INVALID_PARAMETER,
          `${INVALID}number must be a phone number, as a string.`,
        ],
        [
          'number of 10,000 characters',
          { number: '6'.repeat(10_000) },
          INVALID_PARAMETER,
          /^You have specified an invalid parameter : number : "6{40}…" is not a valid phone number/,
        ],
        [
          'number as a float',
          { number: 1.5 },
          INVALID_PARAMETER,
          /^You have specified an invalid parameter : number : "1.5" is not/,
        ],
        [
          'data as a number',
          { data: 42 },
          INVALID_PARAMETER,
          `${INVALID}data must be an object, or a JSON object in a string.`,
        ],
        [
          'data as bad JSON',
          { data: '{"a":' },
          INVALID_PARAMETER,
          `${INVALID}data must be an object, or a JSON object in a string.`,
        ],
        [
          'data as a JSON list',
          { data: '[1,2]' },
          INVALID_PARAMETER,
          `${INVALID}data must be an object, or a JSON object in a string.`,
        ],
        [
          'data as a list',
          { data: ['a'] },
          INVALID_PARAMETER,
          `${INVALID}data must be an object, or a JSON object in a string.`,
        ],
        [
          'data as a JSON string of text',
          { data: '"text"' },
          INVALID_PARAMETER,
          `${INVALID}data must be an object, or a JSON object in a string.`,
        ],
        [
          'data with a null value',
          { data: { a: null } },
          INVALID_PARAMETER,
          `${INVALID}data[a] must be a text, a number or a boolean.`,
        ],
        [
          'data of 10,000 keys',
          { data: Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`k${i}`, 1])) },
          INVALID_PARAMETER,
          `${INVALID}data must have at most 64 keys, got 10000.`,
        ],
        [
          'data with a lone surrogate in a string',
          { data: '{"a":"\\ud800"}' },
          INVALID_PARAMETER,
          /^You have specified an invalid parameter : data : the JSON text is not valid Unicode/,
        ],
      ])('refuses %s, naming the field, and writes nothing', async (_, fields, code, message) => {
        const { user, apiKey } = await makeUser(ds);

        const response = await api(t, apiKey).json('/api/contact/', {
          name: 'Valid',
          number: '+33612345678',
          ...fields,
        });

        expectError(response, 400, code, message);
        expect(await contactsOf(user.id)).toEqual([]);
      });

      it('refuses a JSON body that is not JSON with the envelope', async () => {
        const { user, apiKey } = await makeUser(ds);

        const response = await api(t, apiKey).json('/api/contact/', '{"name": "x", ');

        expectError(response, 400, INVALID_PARAMETER, `${INVALID}the JSON body is not valid JSON.`);
        expect(await contactsOf(user.id)).toEqual([]);
      });
    });
  });

  describe('get_contact (GET /api/contact/{id}/)', () => {
    it('answers the contact exactly as get_entries lists it', async () => {
      const { user, apiKey } = await makeUser(ds);
      const contact = await makeContact(ds, user.id, { name: 'Listed', data: '{"a":"b"}' });

      const response = await api(t, apiKey).get(`/api/contact/${contact.id}/`);

      expectSuccess(response, 200, await api(t, apiKey).listed('contact', contact.id));
      expect(response.body.response).toEqual({
        id: contact.id,
        id_user: user.id,
        name: 'Listed',
        number: '+33612345678',
        data: '{"a":"b"}',
        created_at: '2024-01-02 03:04:05',
        updated_at: null,
      });
    });

    it("answers another user's contact exactly like a nonexistent one: 404 INVALID_PARAMETER", async () => {
      const { apiKey } = await makeUser(ds);
      const { user: other } = await makeUser(ds);
      const foreign = await makeContact(ds, other.id);
      const missing = foreign.id + 1_000_000;

      const theirs = await api(t, apiKey).get(`/api/contact/${foreign.id}`);
      const none = await api(t, apiKey).get(`/api/contact/${missing}`);

      expectError(
        theirs,
        404,
        INVALID_PARAMETER,
        `${INVALID}id : you have no contact ${foreign.id}.`,
      );
      expectError(none, 404, INVALID_PARAMETER, `${INVALID}id : you have no contact ${missing}.`);
    });

    it.each(['abc', '-1', '1.5', '99999999999', '1e3'])(
      'refuses the id %p with INVALID_PARAMETER naming id',
      async (id) => {
        const { apiKey } = await makeUser(ds);

        const response = await api(t, apiKey).get(`/api/contact/${id}/`);

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          /^You have specified an invalid parameter : id must be a non-negative integer/,
        );
      },
    );

    it('answers 401 without an API key', async () => {
      const { user } = await makeUser(ds);
      const contact = await makeContact(ds, user.id);

      expectError(
        await request(t.url).get(`/api/contact/${contact.id}/`),
        401,
        INVALID_CREDENTIALS,
        /^Invalid API Key/,
      );
    });
  });

  describe('post_update_contact (POST /api/contact/{id}/)', () => {
    it('changes the fields sent, keeps the others, and answers the contact as listed', async () => {
      const { user, apiKey } = await makeUser(ds, { settings: { default_phone_country: 'fr' } });
      const contact = await makeContact(ds, user.id, { name: 'Old', data: '{"a":"1"}' });

      const renamed = await api(t, apiKey)
        .form(`/api/contact/${contact.id}/`)
        .send({ name: ' New ' });
      expectSuccess(renamed, 200, await api(t, apiKey).listed('contact', contact.id));
      expect(renamed.body.response).toMatchObject({
        name: 'New',
        number: '+33612345678',
        data: '{"a":"1"}',
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      });

      const renumbered = await api(t, apiKey)
        .form(`/api/contact/${contact.id}/`)
        .send('number=06 98 76 54 32&data[b]=2');
      expectSuccess(
        renumbered,
        200,
        expect.objectContaining({ name: 'New', number: '+33698765432', data: '{"b":"2"}' }),
      );
      expect(await contactRow(contact.id)).toMatchObject({ name_key: 'new' });
    });

    it('empties data sent empty, and succeeds when nothing is sent', async () => {
      const { user, apiKey } = await makeUser(ds);
      const contact = await makeContact(ds, user.id, { name: 'Keep' });

      const nothing = await api(t, apiKey).form(`/api/contact/${contact.id}/`).send({});
      expectSuccess(
        nothing,
        200,
        expect.objectContaining({ name: 'Keep', data: '{"firstname":"John"}' }),
      );

      const emptied = await api(t, apiKey).form(`/api/contact/${contact.id}/`).send('data=');
      expectSuccess(emptied, 200, expect.objectContaining({ data: '{}' }));
    });

    it('renames a contact to another case of its own name, not to another contact’s name', async () => {
      const { user, apiKey } = await makeUser(ds);
      const bob = await makeContact(ds, user.id, { name: 'bob' });
      await makeContact(ds, user.id, { name: 'Alice' });

      const recased = await api(t, apiKey).form(`/api/contact/${bob.id}/`).send({ name: 'BOB' });
      const taken = await api(t, apiKey).form(`/api/contact/${bob.id}/`).send({ name: 'aLICE' });

      expectSuccess(recased, 200, expect.objectContaining({ name: 'BOB' }));
      expectError(
        taken,
        400,
        INVALID_PARAMETER,
        `${INVALID}name : you already have a contact named "aLICE".`,
      );
      expect((await contactRow(bob.id))?.name).toBe('BOB');
    });

    it("answers another user's contact like a nonexistent one, 404 CANNOT_UPDATE, and changes nothing", async () => {
      const { apiKey } = await makeUser(ds);
      const { user: other } = await makeUser(ds);
      const foreign = await makeContact(ds, other.id, { name: 'Theirs' });

      const theirs = await api(t, apiKey).form(`/api/contact/${foreign.id}/`).send({
        name: 'Mine',
        number: 'bad',
      });
      const none = await api(t, apiKey)
        .form(`/api/contact/${foreign.id + 1_000_000}/`)
        .send({
          name: 'Mine',
        });

      expectError(
        theirs,
        404,
        CANNOT_UPDATE,
        `Cannot update this entry : id : you have no contact ${foreign.id}.`,
      );
      expectError(
        none,
        404,
        CANNOT_UPDATE,
        `Cannot update this entry : id : you have no contact ${foreign.id + 1_000_000}.`,
      );
      expect(await contactRow(foreign.id)).toMatchObject({ name: 'Theirs' });
    });

    it.each<[Record<string, unknown>, string | RegExp]>([
      [{ name: '' }, `${INVALID}name must not be empty.`],
      [{ name: ['x'] }, `${INVALID}name must be a string.`],
      [
        { number: '' },
        /^You have specified an invalid parameter : number : "" is not a valid phone number/,
      ],
      [
        { number: 'abc' },
        /^You have specified an invalid parameter : number : "abc" is not a valid phone number/,
      ],
      [{ data: 'x' }, `${INVALID}data must be an object, or a JSON object in a string.`],
      [
        { name: 'Fine', data: { a: [1] } },
        `${INVALID}data[a] must be a text, a number or a boolean.`,
      ],
    ])(
      'refuses %j with INVALID_PARAMETER naming the field, changing nothing',
      async (fields, message) => {
        const { user, apiKey } = await makeUser(ds);
        const contact = await makeContact(ds, user.id, { name: 'Untouched' });

        const response = await api(t, apiKey).json(`/api/contact/${contact.id}/`, fields);

        expectError(response, 400, INVALID_PARAMETER, message);
        expect(await contactRow(contact.id)).toEqual(contact);
      },
    );

    it('answers 401 without an API key and changes nothing', async () => {
      const { user } = await makeUser(ds);
      const contact = await makeContact(ds, user.id, { name: 'Before' });

      const response = await request(t.url)
        .post(`/api/contact/${contact.id}/`)
        .type('form')
        .send({ name: 'After' });

      expectError(response, 401, INVALID_CREDENTIALS, /^Invalid API Key/);
      expect((await contactRow(contact.id))?.name).toBe('Before');
    });
  });

  describe('delete_contact (DELETE /api/contact/{id}/)', () => {
    it('deletes the contact, taking it out of its groups and pending scheduled messages', async () => {
      const { user, apiKey } = await makeUser(ds);
      const contact = await makeContact(ds, user.id);
      const kept = await makeContact(ds, user.id);
      const group = await makeGroup(ds, user.id, [contact.id, kept.id]);
      const scheduled = await makeScheduled(ds, user.id, {
        at: '2099-01-01 00:00:00',
        contactIds: [contact.id, kept.id],
      });

      const response = await api(t, apiKey).delete(`/api/contact/${contact.id}/`);

      expectSuccess(response, 200, true);
      expect(await contactRow(contact.id)).toBeNull();
      expect(await ds.getRepository(GroupContact).findBy({ id_group: group.id })).toEqual([
        expect.objectContaining({ id_contact: kept.id }),
      ]);
      expect(
        await ds.getRepository(ScheduledContact).findBy({ id_scheduled: scheduled.id }),
      ).toEqual([expect.objectContaining({ id_contact: kept.id })]);
      const groupEntry = await api(t, apiKey).get(`/api/group/${group.id}/`);
      expect(groupEntry.body.response).toMatchObject({ nb_contact: 1 });
    });

    it("answers another user's contact like a nonexistent one, 404 CANNOT_DELETE, and deletes nothing", async () => {
      const { apiKey } = await makeUser(ds);
      const { user: other } = await makeUser(ds);
      const foreign = await makeContact(ds, other.id);

      const theirs = await api(t, apiKey).delete(`/api/contact/${foreign.id}/`);
      const none = await api(t, apiKey).delete(`/api/contact/${foreign.id + 1_000_000}/`);

      expectError(
        theirs,
        404,
        CANNOT_DELETE,
        `Cannot delete this entry. id : you have no contact ${foreign.id}.`,
      );
      expectError(
        none,
        404,
        CANNOT_DELETE,
        `Cannot delete this entry. id : you have no contact ${foreign.id + 1_000_000}.`,
      );
      expect(await contactRow(foreign.id)).not.toBeNull();
    });

    it('refuses a malformed id with INVALID_PARAMETER and answers 401 without a key', async () => {
      const { user, apiKey } = await makeUser(ds);
      const contact = await makeContact(ds, user.id);

      expectError(
        await api(t, apiKey).delete('/api/contact/-5/'),
        400,
        INVALID_PARAMETER,
        /^You have specified an invalid parameter : id /,
      );
      expectError(
        await request(t.url).delete(`/api/contact/${contact.id}/`),
        401,
        INVALID_CREDENTIALS,
        /^Invalid API Key/,
      );
      expect(await contactRow(contact.id)).not.toBeNull();
    });
  });

  describe('post_import_contacts (POST /api/contact/import/)', () => {
    it('creates and updates contacts from a CSV whose header names name and number in any case and order', async () => {
      const { user, apiKey } = await makeUser(ds, { settings: { default_phone_country: 'fr' } });
      const existing = await makeContact(ds, user.id, { name: 'Bob', data: '{"old":"x"}' });
      const csv =
        '\uFEFFNumber,First Name,NAME,city\n' +
        '+33612345671,Ann,Ann Smith,Lyon\n' +
        '06 12 34 56 72,Bobby,bob,\n' +
        '\n' +
        '"+33612345673","Carl ""C""",Carl,"Paris, 75"\n';

      const response = await importCsv(apiKey, csv);

      expectSuccess(response, 200, { created: 2, updated: 1 });
      const contacts = await contactsOf(user.id);
      expect(
        contacts.map(({ id, name, name_key, number, data }) => ({
          id,
          name,
          name_key,
          number,
          data,
        })),
      ).toEqual([
        {
          id: existing.id,
          name: 'bob',
          name_key: 'bob',
          number: '+33612345672',
          data: '{"FirstName":"Bobby"}',
        },
        {
          id: expect.any(Number),
          name: 'Ann Smith',
          name_key: 'ann smith',
          number: '+33612345671',
          data: '{"FirstName":"Ann","city":"Lyon"}',
        },
        {
          id: expect.any(Number),
          name: 'Carl',
          name_key: 'carl',
          number: '+33612345673',
          data: '{"FirstName":"Carl \\"C\\"","city":"Paris, 75"}',
        },
      ]);
    });

    it('imports a JSON list with the same rules, counting creates and updates', async () => {
      const { user, apiKey } = await makeUser(ds);
      await makeContact(ds, user.id, { name: 'ann' });

      const response = await api(t, apiKey).json('/api/contact/import/', {
        contacts: [
          { name: ' Ann ', number: '+33612345671', data: { firstname: 'Ann' } },
          { name: 'Dan', number: '+33612345674' },
          { name: 'Eve', number: '+33612345675', data: '{"vip":true}' },
        ],
      });

      expectSuccess(response, 200, { created: 2, updated: 1 });
      expect((await contactsOf(user.id)).map(({ name, data }) => [name, data])).toEqual([
        ['Ann', '{"firstname":"Ann"}'],
        ['Dan', '{}'],
        ['Eve', '{"vip":true}'],
      ]);
    });

    it('refuses the whole file for a bad line at its end, naming the line, and writes nothing', async () => {
      const { user, apiKey } = await makeUser(ds);
      const existing = await makeContact(ds, user.id, { name: 'Line 2' });
      const lines = Array.from(
        { length: 1200 },
        (_, i) => `Line ${i + 2},+3361${String(2000000 + i).padStart(7, '0')}`,
      );

      const response = await importCsv(apiKey, `name,number\n${lines.join('\n')}\nLast,+3361234\n`);

      expectError(
        response,
        400,
        INVALID_PARAMETER,
        `${INVALID}contacts_csv : line 1202: number : "+3361234" is not a valid phone number; use the international format (+…).`,
      );
      expect(await contactsOf(user.id)).toEqual([existing]);
    });

    it.each<[string, string, string]>([
      [
        'an empty name',
        'name,number\nAnn,+33612345671\n,+33612345672\n',
        'contacts_csv : line 3: name must not be empty.',
      ],
      [
        'a name too long',
        `name,number\n${'n'.repeat(101)},+33612345671\n`,
        'contacts_csv : line 2: name must be at most 100 characters long.',
      ],
      [
        'a name given twice, in another case',
        'name,number\nAnn,+33612345671\nBob,+33612345672\naNN,+33612345673\n',
        'contacts_csv : line 4: the name "aNN" is already the name of line 2.',
      ],
      [
        'data too large',
        `name,number,note\nAnn,+33612345671,${'x'.repeat(8200)}\n`,
        'contacts_csv : line 2: data must take at most 8192 bytes once JSON-encoded, got 8211.',
      ],
      [
        'more values than columns',
        'name,number\nAnn,+33612345671,extra\n',
        'contacts_csv : line 2: it has 3 values, more than the 2 columns of the header.',
      ],
      [
        'a header without number',
        'name,phone\nAnn,+33612345671\n',
        'contacts_csv : line 1, the header, must name one column number.',
      ],
      [
        'a header with two name columns',
        'name,Name,number\nAnn,A,+33612345671\n',
        'contacts_csv : line 1, the header, must name one column name, not 2.',
      ],
      [
        'an empty file',
        '',
        'contacts_csv : the file is empty; its first line must name the columns name and number.',
      ],
      [
        'a quote never closed',
        'name,number\n"Ann,+33612345671\n',
        'contacts_csv : line 2 opens a quoted value that is never closed (a " is missing).',
      ],
    ])('refuses a CSV with %s with INVALID_PARAMETER, writing nothing', async (_, csv, detail) => {
      const { user, apiKey } = await makeUser(ds);

      const response = await importCsv(apiKey, csv);

      expectError(response, 400, INVALID_PARAMETER, `${INVALID}${detail}`);
      expect(await contactsOf(user.id)).toEqual([]);
    });

    it('finds a name repeated across chunks of the file', async () => {
      const { user, apiKey } = await makeUser(ds);
      const lines = Array.from(
        { length: 1500 },
        (_, i) => `C${i},+3361${String(3000000 + i).padStart(7, '0')}`,
      );
      lines.push('c7,+33612345678');

      const response = await importCsv(apiKey, `name,number\n${lines.join('\n')}\n`);

      expectError(
        response,
        400,
        INVALID_PARAMETER,
        `${INVALID}contacts_csv : line 1502: the name "c7" is already the name of line 9.`,
      );
      expect(await contactsOf(user.id)).toEqual([]);
    });

    it('imports a file of several chunks in one request, then updates every line of it', async () => {
      const { user, apiKey } = await makeUser(ds);
      const csv = (city: string) =>
        'name,number,city\n' +
        Array.from(
          { length: 1234 },
          (_, i) => `C${i},+3361${String(4000000 + i).padStart(7, '0')},${city}`,
        ).join('\n');

      expectSuccess(await importCsv(apiKey, csv('Lyon')), 200, { created: 1234, updated: 0 });
      expectSuccess(await importCsv(apiKey, csv('Nice')), 200, { created: 0, updated: 1234 });
      const contacts = await contactsOf(user.id);
      expect(contacts.length).toBe(1234);
      expect(new Set(contacts.map((contact) => contact.data))).toEqual(
        new Set(['{"city":"Nice"}']),
      );
    });

    it('takes a contacts_csv up to the CSV size limit, not the limit of other files, and refuses a larger one with 413', async () => {
      const { user, apiKey } = await makeUser(ds);
      const csv = (count: number) =>
        'name,number,note\n' +
        Array.from(
          { length: count },
          (_, i) => `C${i},+3361${String(6000000 + i).padStart(7, '0')},${'n'.repeat(60)}`,
        ).join('\n');
      expect(csv(100).length).toBeGreaterThan(MAX_FILE_BYTES);
      expect(csv(2900).length).toBeGreaterThan(MAX_CSV_BYTES);

      expectSuccess(await importCsv(apiKey, csv(100)), 200, { created: 100, updated: 0 });
      expectError(
        await importCsv(apiKey, csv(2900)),
        413,
        CANNOT_UPLOAD_FILE,
        `Failed to upload or save an uploaded file : contacts_csv : the file is larger than ${MAX_CSV_BYTES} bytes.`,
      );
      expect((await contactsOf(user.id)).length).toBe(100);
    });

    it('refuses more lines than the CSV row limit with 413 CANNOT_UPLOAD_FILE', async () => {
      const { user, apiKey } = await makeUser(ds);
      const lines = Array.from(
        { length: MAX_ROWS + 1 },
        (_, i) => `C${i},+3361${String(5000000 + i).padStart(7, '0')}`,
      );

      const response = await importCsv(apiKey, `name,number\n${lines.join('\n')}\n`);

      expectError(
        response,
        413,
        CANNOT_UPLOAD_FILE,
        `Failed to upload or save an uploaded file : contacts_csv : more than ${MAX_ROWS} contacts; split the import.`,
      );
      expect(await contactsOf(user.id)).toEqual([]);
    });

    it.each<[string, unknown, string]>([
      [
        'an element that is not an object',
        ['Ann'],
        'contacts[0]: must be an object {name, number, data}.',
      ],
      [
        'a missing number',
        [{ name: 'Ann', number: '+33612345671' }, { name: 'Bob' }],
        'contacts[1]: number is required.',
      ],
      [
        'a bad number',
        [{ name: 'Ann', number: 'x' }],
        'contacts[0]: number : "x" is not a valid phone number; use the international format (+…).',
      ],
      [
        'a name twice',
        [
          { name: 'Ann', number: '+33612345671' },
          { name: 'ANN', number: '+33612345672' },
        ],
        'contacts[1]: the name "ANN" is already the name of contacts[0].',
      ],
      [
        'bad data',
        [{ name: 'Ann', number: '+33612345671', data: [1] }],
        'contacts[0]: data must be an object, or a JSON object in a string.',
      ],
      ['one object for a one-element list', { name: 'Ann' }, 'contacts[0]: number is required.'],
    ])(
      'refuses a JSON list with %s, naming the element, writing nothing',
      async (_, contacts, detail) => {
        const { user, apiKey } = await makeUser(ds);

        const response = await api(t, apiKey).json('/api/contact/import/', { contacts });

        expectError(response, 400, INVALID_PARAMETER, `${INVALID}${detail}`);
        expect(await contactsOf(user.id)).toEqual([]);
      },
    );

    it('refuses neither a file nor a list with MISSING_PARAMETER, both with INVALID_PARAMETER', async () => {
      const { user, apiKey } = await makeUser(ds);

      expectError(
        await api(t, apiKey).json('/api/contact/import/', { contacts: 'Ann' }),
        400,
        INVALID_PARAMETER,
        `${INVALID}contacts must be a list of {name, number, data}.`,
      );
      expectError(
        await api(t, apiKey).json('/api/contact/import/', {}),
        400,
        MISSING_PARAMETER,
        /^One require parameter is missing : contacts_csv or contacts is required/,
      );
      expectError(
        await api(t, apiKey).json('/api/contact/import/', { contacts_csv: 'name,number' }),
        400,
        INVALID_PARAMETER,
        `${INVALID}contacts_csv must be a file sent in a multipart/form-data body.`,
      );
      const both = await api(t, apiKey)
        .post('/api/contact/import/')
        .field('contacts[0][name]', 'Ann')
        .field('contacts[0][number]', '+33612345671')
        .attach('contacts_csv', Buffer.from('name,number\nBob,+33612345672\n'), 'c.csv');
      expectError(
        both,
        400,
        INVALID_PARAMETER,
        `${INVALID}contacts_csv, contacts : send the file or the list, not both.`,
      );
      expect(await contactsOf(user.id)).toEqual([]);
    });

    it("creates the caller's own contacts for names another user has, leaving theirs alone", async () => {
      const { user, apiKey } = await makeUser(ds);
      const { user: other } = await makeUser(ds);
      const theirs = await makeContact(ds, other.id, { name: 'Shared' });

      const response = await importCsv(apiKey, 'name,number\nShared,+33612345671\n');

      expectSuccess(response, 200, { created: 1, updated: 0 });
      expect(await contactsOf(other.id)).toEqual([theirs]);
      expect((await contactsOf(user.id)).map((contact) => contact.name)).toEqual(['Shared']);
    });

    it('answers 401 without an API key and imports nothing', async () => {
      const response = await request(t.url)
        .post('/api/contact/import/')
        .attach('contacts_csv', Buffer.from('name,number\nAnn,+33612345671\n'), 'c.csv');

      expectError(response, 401, INVALID_CREDENTIALS, /^Invalid API Key/);
    });
  });

  describe('post_import_contacts written in parts', () => {
    // Limits large enough for an import of several transactions.
    let large: TestApp;
    beforeAll(async () => {
      large = await startApp(database(), { MAX_CSV_ROWS: '20000', MAX_CSV_BYTES: '1000000' });
    });
    afterAll(async () => {
      await large.close();
    });
    /** `count` lines `C0`, `C1`… with distinct numbers from `first`. */
    const lines = (count: number, first: number) =>
      Array.from({ length: count }, (_, i) => `C${i},+3361${String(first + i).padStart(7, '0')}`);
    const importLarge = (apiKey: string, csv: string) =>
      api(large, apiKey)
        .post('/api/contact/import/')
        .attach('contacts_csv', Buffer.from(csv), 'contacts.csv');

    it('refuses a file of several transactions for a bad line at its end, having written nothing', async () => {
      const { user, apiKey } = await makeUser(ds);
      const count = IMPORT_CHUNK * 2 + 10;
      const csv = ['name,number', ...lines(count - 1, 8000000), 'Last,12'].join('\n');

      expectError(
        await importLarge(apiKey, csv),
        400,
        INVALID_PARAMETER,
        `${INVALID}contacts_csv : line ${count + 1}: number : "12" is not a valid phone number; ` +
          'use the international format (+…).',
      );
      expect(await contactsOf(user.id)).toEqual([]);
    });

    it('answers a database failure part-way with what was written, and the same import sent again finishes it', async () => {
      const { user, apiKey } = await makeUser(ds);
      const count = IMPORT_CHUNK * 2 + 2000;
      const csv = ['name,number', ...lines(count, 7000000)].join('\n');
      const send = () => importLarge(apiKey, csv);
      // A real refusal of the database in the import's third transaction.
      const failing = `C${IMPORT_CHUNK * 2 + 600}`;
      await ds.query(
        database().kind === 'sqlite'
          ? `CREATE TRIGGER contact_import_fails BEFORE INSERT ON contact WHEN NEW.name = '${failing}' ` +
              "BEGIN SELECT RAISE(ABORT, 'the disk is full'); END"
          : 'CREATE TRIGGER contact_import_fails BEFORE INSERT ON contact FOR EACH ROW ' +
              `IF NEW.name = '${failing}' THEN SIGNAL SQLSTATE '45000' ` +
              "SET MESSAGE_TEXT = 'the disk is full'; END IF",
      );
      try {
        expectError(
          await send(),
          500,
          256,
          `Internal error. contacts_csv : the import stopped after writing its first ${IMPORT_CHUNK * 2} ` +
            `lines (${IMPORT_CHUNK * 2} created, 0 updated); the server log holds the cause. ` +
            'Sending the same import again finishes it: each line updates the contact of its name.',
        );
      } finally {
        await ds.query('DROP TRIGGER contact_import_fails');
      }
      expect((await contactsOf(user.id)).map((contact) => contact.name)).toEqual(
        Array.from({ length: IMPORT_CHUNK * 2 }, (_, i) => `C${i}`),
      );

      expectSuccess(await send(), 200, { created: 2000, updated: IMPORT_CHUNK * 2 });
      expect((await contactsOf(user.id)).length).toBe(count);
    });
  });
});
