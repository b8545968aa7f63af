import request from 'supertest';
import { DataSource } from 'typeorm';
import { Contact } from '../../src/contacts/entities/contact.entity';
import { Group, GroupContact } from '../../src/groups/entities/group.entity';
import { ScheduledGroup } from '../../src/scheduled/entities/scheduled.entity';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makeContact, makeGroup, makePhone, makeScheduled, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';
import {
  INVALID_CREDENTIALS,
  INVALID_PARAMETER,
  MISSING_PARAMETER,
  CANNOT_DELETE,
  CANNOT_UPDATE,
  INVALID,
  expectSuccess,
  expectError,
} from '../support/envelope';

/*
 * post_group, get_group, post_update_group and delete_group (docs/api.md) over real HTTP against
 * the real app, on every database engine; and contacts and groups made through the API reaching
 * their recipients through the inline dispatch worker and the `test` adapter.
 */

/** Far in the future: the inline worker leaves these messages pending. */
const LATER = '2099-01-01 00:00:00';

describeEachDatabase('groups', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database(), {
      WORKER: 'inline',
      DISPATCH_POLL_MS: '20',
      DISPATCH_RETRY_BASE_MS: '20',
    });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  const groupsOf = (id_user: number) =>
    ds.getRepository(Group).find({ where: { id_user }, order: { id: 'ASC' } });
  const groupRow = (id: number) => ds.getRepository(Group).findOneBy({ id });
  const membersOf = async (id_group: number) =>
    (
      await ds
        .getRepository(GroupContact)
        .find({ where: { id_group }, order: { id_contact: 'ASC' } })
    ).map((link) => link.id_contact);

  describe('post_group (POST /api/group/)', () => {
    it('creates a group with contacts in bracket form, name trimmed, with HTTP 201 and its id', async () => {
      const { user, apiKey } = await makeUser(ds);
      const [a, b] = [await makeContact(ds, user.id), await makeContact(ds, user.id)];

      const response = await api(t, apiKey)
        .form('/api/group/')
        .send(`name=  Friends &contacts[]=${a.id}&contacts[]=${b.id}&contacts[]=${a.id}`);

      expectSuccess(response, 201, expect.any(Number));
      const id = response.body.response as number;
      expect(await groupRow(id)).toMatchObject({
        id_user: user.id,
        name: 'Friends',
        name_key: 'friends',
      });
      expect(await membersOf(id)).toEqual([a.id, b.id]);
    });

    it('takes contacts as a JSON array, a JSON array in a string, one id, or none', async () => {
      const { user, apiKey } = await makeUser(ds);
      const [a, b] = [await makeContact(ds, user.id), await makeContact(ds, user.id)];

      const array = await api(t, apiKey).json('/api/group/', {
        name: 'Array',
        contacts: [a.id, b.id],
      });
      const text = await api(t, apiKey)
        .form('/api/group/')
        .send({ name: 'Text', contacts: `[${b.id}]` });
      const one = await api(t, apiKey)
        .form('/api/group/')
        .send({ name: 'One', contacts: String(a.id) });
      const none = await api(t, apiKey).form('/api/group/').send({ name: 'None' });

      for (const response of [array, text, one, none]) {
        expectSuccess(response, 201, expect.any(Number));
      }
      expect(await membersOf(array.body.response as number)).toEqual([a.id, b.id]);
      expect(await membersOf(text.body.response as number)).toEqual([b.id]);
      expect(await membersOf(one.body.response as number)).toEqual([a.id]);
      expect(await membersOf(none.body.response as number)).toEqual([]);
    });

    it('refuses a missing name with MISSING_PARAMETER', async () => {
      const { user, apiKey } = await makeUser(ds);

      expectError(
        await api(t, apiKey).form('/api/group/').send({}),
        400,
        MISSING_PARAMETER,
        'One require parameter is missing : name is required.',
      );
      expect(await groupsOf(user.id)).toEqual([]);
    });

    it("refuses a name differing only by case from one of the caller's groups ('Bob' vs 'bOB'), not another user's", async () => {
      const { user, apiKey } = await makeUser(ds);
      const { apiKey: otherKey } = await makeUser(ds);
      expectSuccess(
        await api(t, apiKey).form('/api/group/').send({ name: 'Bob' }),
        201,
        expect.any(Number),
      );

      const taken = await api(t, apiKey).form('/api/group/').send({ name: 'bOB' });
      const other = await api(t, otherKey).form('/api/group/').send({ name: 'bOB' });

      expectError(
        taken,
        400,
        INVALID_PARAMETER,
        `${INVALID}name : you already have a group named "bOB".`,
      );
      expectSuccess(other, 201, expect.any(Number));
      expect((await groupsOf(user.id)).map((group) => group.name)).toEqual(['Bob']);
    });

    it("refuses another user's or nonexistent contact ids, naming them, and creates nothing", async () => {
      const { user, apiKey } = await makeUser(ds);
      const { user: other } = await makeUser(ds);
      const mine = await makeContact(ds, user.id);
      const theirs = await makeContact(ds, other.id);
      const missing = theirs.id + 1_000_000;

      const one = await api(t, apiKey)
        .form('/api/group/')
        .send(`name=G&contacts[]=${mine.id}&contacts[]=${theirs.id}`);
      const two = await api(t, apiKey).json('/api/group/', {
        name: 'G',
        contacts: [theirs.id, mine.id, missing],
      });

      expectError(
        one,
        400,
        INVALID_PARAMETER,
        `${INVALID}contacts : ${theirs.id} is not the id of one of your contacts.`,
      );
      expectError(
        two,
        400,
        INVALID_PARAMETER,
        `${INVALID}contacts : ${theirs.id}, ${missing} are not ids of your contacts.`,
      );
      expect(await groupsOf(user.id)).toEqual([]);
    });

    describe('malformed, oversized and wrong-typed values', () => {
      it.each<[string, Record<string, unknown>, string | RegExp]>([
        ['name as a list', { name: ['a'] }, `${INVALID}name must be a string.`],
        ['name as an object', { name: { a: 'b' } }, `${INVALID}name must be a string.`],
        [
          'name of 10,000 characters',
          { name: 'n'.repeat(10_000) },
          `${INVALID}name must be at most 100 characters long.`,
        ],
        ['name blank', { name: '  ' }, `${INVALID}name must not be empty.`],
        [
          'contacts with a negative id',
          { contacts: [-1] },
          /^You have specified an invalid parameter : contacts\[0\] must be a non-negative integer/,
        ],
        [
          'contacts with a float',
          { contacts: [1.5] },
          /^You have specified an invalid parameter : contacts\[0\] must be a non-negative integer/,
        ],
        [
          'contacts with a huge id',
          { contacts: ['99999999999'] },
          /^You have specified an invalid parameter : contacts\[0\] must be a non-negative integer/,
        ],
        [
          'contacts with text',
          { contacts: 'abc' },
          /^You have specified an invalid parameter : contacts\[0\] must be a non-negative integer/,
        ],
        [
          'contacts with an object',
          { contacts: [{ id: 1 }] },
          /^You have specified an invalid parameter : contacts\[0\] must be a non-negative integer/,
        ],
        [
          'contacts as bad JSON',
          { contacts: '[1,' },
          `${INVALID}contacts must be an id, a list of ids or a JSON array of ids.`,
        ],
        [
          'contacts of 10,001 ids',
          { contacts: Array.from({ length: 10_001 }, (_, i) => i + 1) },
          `${INVALID}contacts : at most 10000 ids per request.`,
        ],
      ])(
        'refuses %s with INVALID_PARAMETER naming the field, creating nothing',
        async (_, fields, message) => {
          const { user, apiKey } = await makeUser(ds);

          const response = await api(t, apiKey).json('/api/group/', { name: 'Valid', ...fields });

          expectError(response, 400, INVALID_PARAMETER, message);
          expect(await groupsOf(user.id)).toEqual([]);
        },
      );
    });

    it('answers 401 without an API key and creates nothing', async () => {
      const response = await request(t.url).post('/api/group/').type('form').send({ name: 'x' });

      expectError(response, 401, INVALID_CREDENTIALS, /^Invalid API Key/);
    });
  });

  describe('get_group (GET /api/group/{id}/)', () => {
    it('answers the group with its contacts and nb_contact, exactly as get_entries lists it', async () => {
      const { user, apiKey } = await makeUser(ds);
      const contact = await makeContact(ds, user.id, { name: 'Member' });
      const group = await makeGroup(ds, user.id, [contact.id], { name: 'Listed' });

      const response = await api(t, apiKey).get(`/api/group/${group.id}/`);

      expectSuccess(response, 200, await api(t, apiKey).listed('group', group.id));
      expect(response.body.response).toMatchObject({
        id: group.id,
        name: 'Listed',
        nb_contact: 1,
        contacts: [expect.objectContaining({ id: contact.id, name: 'Member' })],
      });
    });

    it("answers another user's group like a nonexistent one: 404 INVALID_PARAMETER", async () => {
      const { apiKey } = await makeUser(ds);
      const { user: other } = await makeUser(ds);
      const theirs = await makeGroup(ds, other.id);

      expectError(
        await api(t, apiKey).get(`/api/group/${theirs.id}/`),
        404,
        INVALID_PARAMETER,
        `${INVALID}id : you have no group ${theirs.id}.`,
      );
      expectError(
        await api(t, apiKey).get(`/api/group/${theirs.id + 1_000_000}/`),
        404,
        INVALID_PARAMETER,
        `${INVALID}id : you have no group ${theirs.id + 1_000_000}.`,
      );
      expectError(
        await api(t, apiKey).get('/api/group/1.5/'),
        400,
        INVALID_PARAMETER,
        /^You have specified an invalid parameter : id must be a non-negative integer/,
      );
      expectError(
        await request(t.url).get(`/api/group/${theirs.id}/`),
        401,
        INVALID_CREDENTIALS,
        /^Invalid API Key/,
      );
    });
  });

  describe('post_update_group (POST /api/group/{id}/)', () => {
    it('renames, replaces the contacts when sent, keeps them when not, and empties them with contacts=', async () => {
      const { user, apiKey } = await makeUser(ds);
      const [a, b, c] = [
        await makeContact(ds, user.id),
        await makeContact(ds, user.id),
        await makeContact(ds, user.id),
      ];
      const group = await makeGroup(ds, user.id, [a.id, b.id], { name: 'Old' });

      const renamed = await api(t, apiKey).form(`/api/group/${group.id}/`).send({ name: 'New' });
      expectSuccess(renamed, 200, await api(t, apiKey).listed('group', group.id));
      expect(renamed.body.response).toMatchObject({ name: 'New', nb_contact: 2 });

      const replaced = await api(t, apiKey)
        .form(`/api/group/${group.id}/`)
        .send(`contacts[]=${c.id}&contacts[]=${a.id}`);
      expectSuccess(replaced, 200, expect.objectContaining({ name: 'New', nb_contact: 2 }));
      expect(await membersOf(group.id)).toEqual([a.id, c.id]);

      const emptied = await api(t, apiKey).form(`/api/group/${group.id}/`).send('contacts=');
      expectSuccess(emptied, 200, expect.objectContaining({ nb_contact: 0, contacts: [] }));
      expect(await ds.getRepository(Contact).countBy({ id_user: user.id })).toBe(3);

      const nothing = await api(t, apiKey).form(`/api/group/${group.id}/`).send({});
      expectSuccess(nothing, 200, expect.objectContaining({ name: 'New' }));
    });

    it("refuses another group's name case-insensitively, and another user's contacts, changing nothing", async () => {
      const { user, apiKey } = await makeUser(ds);
      const { user: other } = await makeUser(ds);
      const mine = await makeContact(ds, user.id);
      const theirs = await makeContact(ds, other.id);
      await makeGroup(ds, user.id, [], { name: 'Taken' });
      const group = await makeGroup(ds, user.id, [mine.id], { name: 'Mine' });

      const taken = await api(t, apiKey).form(`/api/group/${group.id}/`).send({ name: 'TAKEN' });
      const foreign = await api(t, apiKey)
        .form(`/api/group/${group.id}/`)
        .send(`name=Renamed&contacts[]=${theirs.id}`);
      const recased = await api(t, apiKey).form(`/api/group/${group.id}/`).send({ name: 'MINE' });

      expectError(
        taken,
        400,
        INVALID_PARAMETER,
        `${INVALID}name : you already have a group named "TAKEN".`,
      );
      expectError(
        foreign,
        400,
        INVALID_PARAMETER,
        `${INVALID}contacts : ${theirs.id} is not the id of one of your contacts.`,
      );
      expectSuccess(recased, 200, expect.objectContaining({ name: 'MINE' }));
      expect(await membersOf(group.id)).toEqual([mine.id]);
    });

    it("answers another user's group like a nonexistent one, 404 CANNOT_UPDATE, and changes nothing", async () => {
      const { apiKey } = await makeUser(ds);
      const { user: other } = await makeUser(ds);
      const theirs = await makeGroup(ds, other.id, [], { name: 'Theirs' });

      expectError(
        await api(t, apiKey).form(`/api/group/${theirs.id}/`).send({ name: 'x', contacts: 'bad' }),
        404,
        CANNOT_UPDATE,
        `Cannot update this entry : id : you have no group ${theirs.id}.`,
      );
      expectError(
        await api(t, apiKey)
          .form(`/api/group/${theirs.id + 1_000_000}/`)
          .send({ name: 'x' }),
        404,
        CANNOT_UPDATE,
        `Cannot update this entry : id : you have no group ${theirs.id + 1_000_000}.`,
      );
      expect((await groupRow(theirs.id))?.name).toBe('Theirs');
    });

    it.each<[Record<string, unknown>, string | RegExp]>([
      [{ name: '' }, `${INVALID}name must not be empty.`],
      [{ name: { a: 1 } }, `${INVALID}name must be a string.`],
      [
        { contacts: ['x'] },
        /^You have specified an invalid parameter : contacts\[0\] must be a non-negative integer/,
      ],
      [
        { contacts: '{"a":1}' },
        /^You have specified an invalid parameter : contacts\[0\] must be a non-negative integer/,
      ],
    ])('refuses %j with INVALID_PARAMETER, changing nothing', async (fields, message) => {
      const { user, apiKey } = await makeUser(ds);
      const contact = await makeContact(ds, user.id);
      const group = await makeGroup(ds, user.id, [contact.id], { name: 'Same' });

      expectError(
        await api(t, apiKey).json(`/api/group/${group.id}/`, fields),
        400,
        INVALID_PARAMETER,
        message,
      );
      expect(await groupRow(group.id)).toEqual(group);
      expect(await membersOf(group.id)).toEqual([contact.id]);
    });

    it('answers 401 without an API key', async () => {
      const { user } = await makeUser(ds);
      const group = await makeGroup(ds, user.id, [], { name: 'Before' });

      expectError(
        await request(t.url).post(`/api/group/${group.id}/`).type('form').send({ name: 'After' }),
        401,
        INVALID_CREDENTIALS,
        /^Invalid API Key/,
      );
      expect((await groupRow(group.id))?.name).toBe('Before');
    });
  });

  describe('delete_group (DELETE /api/group/{id}/)', () => {
    it('deletes the group and takes it out of pending scheduled messages; its contacts stay', async () => {
      const { user, apiKey } = await makeUser(ds);
      const contact = await makeContact(ds, user.id);
      const group = await makeGroup(ds, user.id, [contact.id]);
      const kept = await makeGroup(ds, user.id, [contact.id]);
      const scheduled = await makeScheduled(ds, user.id, {
        at: LATER,
        groupIds: [group.id, kept.id],
      });

      expectSuccess(await api(t, apiKey).delete(`/api/group/${group.id}/`), 200, true);

      expect(await groupRow(group.id)).toBeNull();
      expect(await membersOf(group.id)).toEqual([]);
      expect(await ds.getRepository(ScheduledGroup).findBy({ id_scheduled: scheduled.id })).toEqual(
        [expect.objectContaining({ id_group: kept.id })],
      );
      expect(await ds.getRepository(Contact).findOneBy({ id: contact.id })).not.toBeNull();
    });

    it("answers another user's group like a nonexistent one, 404 CANNOT_DELETE, and deletes nothing", async () => {
      const { apiKey } = await makeUser(ds);
      const { user: other } = await makeUser(ds);
      const theirs = await makeGroup(ds, other.id);

      expectError(
        await api(t, apiKey).delete(`/api/group/${theirs.id}/`),
        404,
        CANNOT_DELETE,
        `Cannot delete this entry. id : you have no group ${theirs.id}.`,
      );
      expectError(
        await api(t, apiKey).delete(`/api/group/${theirs.id + 1_000_000}/`),
        404,
        CANNOT_DELETE,
        `Cannot delete this entry. id : you have no group ${theirs.id + 1_000_000}.`,
      );
      expectError(
        await api(t, apiKey).delete('/api/group/abc/'),
        400,
        INVALID_PARAMETER,
        /^You have specified an invalid parameter : id must be a non-negative integer/,
      );
      expectError(
        await request(t.url).delete(`/api/group/${theirs.id}/`),
        401,
        INVALID_CREDENTIALS,
        /^Invalid API Key/,
      );
      expect(await groupRow(theirs.id)).not.toBeNull();
    });
  });

  it('sends a message scheduled to a group and contacts made through the API to each of them once, with their data', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id, { adapter_data: '{"delivery":"delivered"}' });
    const created = await api(t, apiKey).json('/api/contact/import/', {
      contacts: [
        { name: 'Ann', number: '+33612345671', data: { firstname: 'Ann' } },
        { name: 'Bob', number: '+33612345672', data: { firstname: 'Bob' } },
      ],
    });
    expectSuccess(created, 200, { created: 2, updated: 0 });
    const carl = await api(t, apiKey)
      .form('/api/contact/')
      .send('name=Carl&number=%2B33612345673&data[firstname]=Carl');
    const contacts = (await api(t, apiKey).get('/api/list/contact/')).body.response as Array<{
      id: number;
      name: string;
    }>;
    const id = (name: string) => contacts.find((contact) => contact.name === name)?.id;
    const group = await api(t, apiKey)
      .form('/api/group/')
      .send(`name=Team&contacts[]=${id('Ann')}&contacts[]=${id('Bob')}`);
    const outsider = await makeContact(ds, user.id, { name: 'Dan', number: '+33612345674' });

    const scheduled = await api(t, apiKey)
      .form('/api/scheduled/')
      .send(
        `text=Hello {{ contact.firstname }}&groups[]=${group.body.response}` +
          `&contacts[]=${carl.body.response}&contacts[]=${id('Ann')}`,
      );
    expect(scheduled.status).toBe(201);

    let sent: Array<{ destination: string; text: string; status: string }> = [];
    await waitFor(async () => {
      sent = (await api(t, apiKey).get('/api/list/sended/')).body.response;
      return sent.length >= 3 && sent.every((entry) => entry.status === 'delivered');
    }, 'three delivered messages');
    expect(sent.map(({ destination, text }) => [destination, text]).sort()).toEqual([
      ['+33612345671', 'Hello Ann'],
      ['+33612345672', 'Hello Bob'],
      ['+33612345673', 'Hello Carl'],
    ]);
    expect(sent.map((entry) => entry.destination)).not.toContain(outsider.number);
    expect((await api(t, apiKey).get('/api/list/scheduled/')).body.response).toEqual([]);
  });
});
