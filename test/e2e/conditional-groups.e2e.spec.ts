import request from 'supertest';
import { DataSource } from 'typeorm';
import { ConditionalGroup } from '../../src/conditional-groups/entities/conditional-group.entity';
import { Sended } from '../../src/sended/entities/sended.entity';
import { ScheduledConditionalGroup } from '../../src/scheduled/entities/scheduled.entity';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import {
  makeConditionalGroup,
  makeContact,
  makePhone,
  makeScheduled,
  makeUser,
} from '../support/factories';
import { waitFor } from '../support/instruments';
import {
  INVALID_CREDENTIALS,
  INVALID_PARAMETER,
  MISSING_PARAMETER,
  CANNOT_DELETE,
  CANNOT_UPDATE,
  INVALID,
  MISSING,
  expectSuccess,
  expectError,
  shown,
  literal,
} from '../support/envelope';

/*
 * The conditional-group operations and their two previews (docs/api.md#post_conditional_group
 * and those after it) over real HTTP against the real app, on every database engine; and the
 * previews against the dispatch itself, which must select the same contacts.
 */

const FUTURE = '2099-01-01 00:00:00';

describeEachDatabase('conditional groups', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    // The inline worker runs the dispatch the previews are compared with; the other tests'
    // messages are scheduled in the future.
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
    ds.getRepository(ConditionalGroup).find({ where: { id_user }, order: { id: 'ASC' } });
  const groupRow = (id: number) => ds.getRepository(ConditionalGroup).findOneBy({ id });

  const create = async (apiKey: string, body: Record<string, unknown>): Promise<number> => {
    const response = await api(t, apiKey).form('/api/conditional_group/').send(body);
    expect(response.status).toBe(201);
    return (response.body as { response: number }).response;
  };

  /** The contacts rows get_entries lists for the user, by id. */
  const listedContacts = async (apiKey: string): Promise<Map<number, unknown>> => {
    const rows = new Map<number, unknown>();
    let next: string | null = `${t.url}/api/list/contact/?api_key=${apiKey}`;
    while (next) {
      const body = (await (await fetch(next)).json()) as {
        response: Array<{ id: number }>;
        next: string | null;
      };
      body.response.forEach((row) => rows.set(row.id, row));
      next = body.next;
    }
    return rows;
  };

  /** Every page of a preview, following its `next` links; the ids of the contacts listed. */
  const allPages = async (first: string): Promise<number[]> => {
    const ids: number[] = [];
    let next: string | null = first;
    while (next) {
      const response = await fetch(next);
      expect(response.status).toBe(200);
      const body = (await response.json()) as {
        response: Array<{ id: number }>;
        next: string | null;
      };
      ids.push(...body.response.map((row) => row.id));
      next = body.next;
    }
    return ids;
  };

  const previewUrl = (apiKey: string, condition: string) =>
    `${t.url}/api/conditional_group/preview/?${new URLSearchParams({ condition, api_key: apiKey }).toString()}`;

  describe('post_conditional_group (POST /api/conditional_group/)', () => {
    it('answers 401 INVALID_CREDENTIALS without an API key and creates nothing', async () => {
      const { user } = await makeUser(ds);
      const response = await request(t.url)
        .post('/api/conditional_group/')
        .type('form')
        .send({ name: 'VIP', condition: '1 == 1' });
      expectError(response, 401, INVALID_CREDENTIALS, /^Invalid API Key/);
      expect(await groupsOf(user.id)).toEqual([]);
    });

    it('creates a conditional group from a form, trimmed name, with HTTP 201 and its id', async () => {
      const { user, apiKey } = await makeUser(ds);
      const condition = "contact.gender == 'female' && contact.vip == 1";

      const response = await api(t, apiKey).form('/api/conditional_group/').send({
        name: '  Women VIP ',
        condition,
      });

      expectSuccess(response, 201, expect.any(Number));
      expect(await groupRow(response.body.response)).toMatchObject({
        id_user: user.id,
        name: 'Women VIP',
        name_key: 'women vip',
        condition,
        updated_at: null,
      });
    });

    it('creates a conditional group from a JSON body', async () => {
      const { user, apiKey } = await makeUser(ds);
      const response = await api(t, apiKey).json('/api/conditional_group/', {
        name: 'Birthdays',
        condition: 'is_birthday(date(contact.birthday))',
      });
      expectSuccess(response, 201, expect.any(Number));
      expect((await groupsOf(user.id)).map((group) => group.name)).toEqual(['Birthdays']);
    });

    it.each([
      [{ condition: '1 == 1' }, 'name is required.'],
      [{ name: '', condition: '1 == 1' }, 'name is required.'],
      [{ name: 'No condition' }, /^condition is required: /],
      [{ name: 'Empty condition', condition: '' }, /^condition is required: /],
    ])('answers MISSING_PARAMETER for %j', async (body, detail) => {
      const { user, apiKey } = await makeUser(ds);
      const response = await api(t, apiKey).form('/api/conditional_group/').send(body);
      expectError(
        response,
        400,
        MISSING_PARAMETER,
        typeof detail === 'string'
          ? MISSING + detail
          : new RegExp(`^${literal(MISSING)}${detail.source.slice(1)}`),
      );
      expect(await groupsOf(user.id)).toEqual([]);
    });

    it.each([
      [
        'a syntax error',
        "contact.gender == 'female' &&",
        /^condition : The condition does not parse: .+ around position \d+\.$/,
      ],
      [
        'an unclosed string',
        "contact.gender == 'female",
        /^condition : The condition does not parse: .+ around position \d+\.$/,
      ],
      [
        'another variable',
        'process.env.HOME == null',
        /^condition : The condition does not parse: Variable "process" is not valid.* around position \d+\.$/,
      ],
      [
        'an unknown function',
        "eval('1')",
        /^condition : The condition does not parse: The function "eval" does not exist around position 1\.$/,
      ],
      [
        'a method call',
        "contact.lastname.toUpperCase() == 'DOE'",
        /^condition : The condition cannot be used: it calls the method toUpperCase\(\)/,
      ],
      [
        'a pattern without delimiters',
        "contact.lastname matches 'Doe'",
        /^condition : The condition cannot be used: the pattern Doe has no delimiter\.$/,
      ],
      [
        'more than 1000 characters',
        `1 == 1${' and 1 == 1'.repeat(100)}`,
        /^condition : The condition is longer than 1000 characters\.$/,
      ],
      ['a 10,000-character text', 'x'.repeat(10_000), /^condition : The condition is longer/],
    ])(
      'refuses a condition with %s with INVALID_PARAMETER quoting the parser',
      async (_what, condition, detail) => {
        const { user, apiKey } = await makeUser(ds);
        const response = await api(t, apiKey).form('/api/conditional_group/').send({
          name: 'Bad',
          condition,
        });
        expectError(
          response,
          400,
          INVALID_PARAMETER,
          new RegExp(`^${literal(INVALID)}${detail.source.slice(1)}`),
        );
        expect(await groupsOf(user.id)).toEqual([]);
      },
    );

    it('refuses a name already used by another of its conditional groups, in any case', async () => {
      const { user, apiKey } = await makeUser(ds);
      await create(apiKey, { name: 'Women', condition: '1 == 1' });
      const response = await api(t, apiKey).form('/api/conditional_group/').send({
        name: 'WOMEN',
        condition: '1 == 1',
      });
      expectError(
        response,
        400,
        INVALID_PARAMETER,
        `${INVALID}name : you already have a conditional group named "WOMEN".`,
      );
      expect((await groupsOf(user.id)).map((group) => group.name)).toEqual(['Women']);
    });

    it("accepts a name another user's conditional group has", async () => {
      const { user: other } = await makeUser(ds);
      await makeConditionalGroup(ds, other.id, { name: 'Shared name' });
      const { apiKey } = await makeUser(ds);
      const response = await api(t, apiKey).form('/api/conditional_group/').send({
        name: 'Shared name',
        condition: '1 == 1',
      });
      expectSuccess(response, 201, expect.any(Number));
    });

    it.each(
      (
        [
          ['name', ['a', 'b'], /^name must be a string\.$/],
          ['name', { a: 1 }, /^name must be a string\.$/],
          ['name', '   ', /^name must not be empty\.$/],
          ['name', 'n'.repeat(10_000), /^name must be at most 100 characters long\.$/],
          ['name', 'n'.repeat(101), /^name must be at most 100 characters long\.$/],
          ['condition', ['1 == 1'], /^condition must be a text/],
          ['condition', { a: '1 == 1' }, /^condition must be a text/],
          ['condition', 12, /^condition must be a text/],
          ['condition', true, /^condition must be a text/],
        ] as Array<[string, unknown, RegExp]>
      ).map(([field, value, detail]) => [field, shown(value), value, detail] as const),
    )('refuses %s = %s with INVALID_PARAMETER naming it', async (field, _shown, value, detail) => {
      const { user, apiKey } = await makeUser(ds);
      const response = await api(t, apiKey).json('/api/conditional_group/', {
        name: 'Good name',
        condition: '1 == 1',
        [field]: value,
      });
      expectError(
        response,
        400,
        INVALID_PARAMETER,
        new RegExp(`^${literal(INVALID)}${detail.source.slice(1)}`),
      );
      expect(await groupsOf(user.id)).toEqual([]);
    });

    it('refuses a body that is not JSON with INVALID_PARAMETER and creates nothing', async () => {
      const { user, apiKey } = await makeUser(ds);
      const response = await api(t, apiKey).json(
        '/api/conditional_group/',
        '{"name": "x", "condition": ',
      );
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error: INVALID_PARAMETER, response: null });
      expect(await groupsOf(user.id)).toEqual([]);
    });
  });

  describe('get_conditional_group (GET /api/conditional_group/{id}/)', () => {
    it('answers the group exactly as get_entries lists it', async () => {
      const { apiKey } = await makeUser(ds);
      const id = await create(apiKey, { name: 'VIP', condition: 'contact.vip == 1' });

      const response = await api(t, apiKey, 'query').get(`/api/conditional_group/${id}/`);
      const listed = await api(t, apiKey, 'query').get('/api/list/conditional_group/');

      expectSuccess(response, 200, listed.body.response[0]);
      expect(Object.keys(response.body.response)).toEqual([
        'id',
        'id_user',
        'name',
        'condition',
        'created_at',
        'updated_at',
      ]);
    });

    it("answers another user's group exactly as one that does not exist: 404 INVALID_PARAMETER", async () => {
      const { user: other } = await makeUser(ds);
      const theirs = await makeConditionalGroup(ds, other.id);
      const { apiKey } = await makeUser(ds);
      const missing = theirs.id + 100_000;

      const foreign = await api(t, apiKey, 'query').get(`/api/conditional_group/${theirs.id}/`);
      const absent = await api(t, apiKey, 'query').get(`/api/conditional_group/${missing}/`);

      expectError(
        foreign,
        404,
        INVALID_PARAMETER,
        `${INVALID}id : you have no conditional group ${theirs.id}.`,
      );
      expect(absent.body.message.replace(String(missing), 'N')).toBe(
        foreign.body.message.replace(String(theirs.id), 'N'),
      );
      expect(absent.status).toBe(404);
    });

    it.each(['abc', '-1', '1.5', '99999999999', '1e3'])(
      'refuses the id %s with INVALID_PARAMETER naming id',
      async (id) => {
        const { apiKey } = await makeUser(ds);
        const response = await api(t, apiKey, 'query').get(`/api/conditional_group/${id}/`);
        expectError(response, 400, INVALID_PARAMETER, /^.+ : id must be a non-negative integer/);
      },
    );

    it('answers 401 without an API key', async () => {
      const { user } = await makeUser(ds);
      const group = await makeConditionalGroup(ds, user.id);
      const response = await request(t.url).get(`/api/conditional_group/${group.id}/`);
      expectError(response, 401, INVALID_CREDENTIALS, /^Invalid API Key/);
    });
  });

  describe('post_update_conditional_group (POST /api/conditional_group/{id}/)', () => {
    it('changes the fields sent, keeps the others, and answers the group as listed', async () => {
      const { user, apiKey } = await makeUser(ds);
      const id = await create(apiKey, { name: 'VIP', condition: 'contact.vip == 1' });

      const renamed = await api(t, apiKey)
        .form(`/api/conditional_group/${id}/`)
        .send({ name: ' Gold ' });
      const listed = await api(t, apiKey, 'query').get(`/api/conditional_group/${id}/`);
      expectSuccess(renamed, 200, listed.body.response);
      expect(renamed.body.response).toMatchObject({
        id,
        id_user: user.id,
        name: 'Gold',
        condition: 'contact.vip == 1',
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/),
      });
      expect((await groupRow(id))?.name_key).toBe('gold');

      const changed = await api(t, apiKey).form(`/api/conditional_group/${id}/`).send({
        condition: 'contact.vip == 2',
      });
      expect(changed.body.response).toMatchObject({ name: 'Gold', condition: 'contact.vip == 2' });
    });

    it('succeeds without changing anything when nothing is sent', async () => {
      const { apiKey } = await makeUser(ds);
      const id = await create(apiKey, { name: 'VIP', condition: 'contact.vip == 1' });
      const before = await api(t, apiKey, 'query').get(`/api/conditional_group/${id}/`);
      const response = await api(t, apiKey).form(`/api/conditional_group/${id}/`).send({});
      expectSuccess(response, 200, before.body.response);
    });

    it('accepts its own name in another case, and refuses another group of its name', async () => {
      const { apiKey } = await makeUser(ds);
      const id = await create(apiKey, { name: 'VIP', condition: '1 == 1' });
      await create(apiKey, { name: 'Gold', condition: '1 == 1' });

      const recased = await api(t, apiKey)
        .form(`/api/conditional_group/${id}/`)
        .send({ name: 'vip' });
      expect(recased.body.response).toMatchObject({ name: 'vip' });

      const taken = await api(t, apiKey)
        .form(`/api/conditional_group/${id}/`)
        .send({ name: 'GOLD' });
      expectError(
        taken,
        400,
        INVALID_PARAMETER,
        `${INVALID}name : you already have a conditional group named "GOLD".`,
      );
      expect((await groupRow(id))?.name).toBe('vip');
    });

    it.each(
      (
        [
          ['name', '', /^name must not be empty\.$/],
          ['name', 'n'.repeat(10_000), /^name must be at most 100 characters long\.$/],
          ['condition', '', /^condition : The condition does not parse: /],
          ['condition', 'contact.vip ==', /^condition : The condition does not parse: .+ position/],
          ['condition', 'unknown_var == 1', /^condition : The condition does not parse: Variable/],
          ['condition', ['1 == 1'], /^condition must be a text/],
          ['condition', 'x'.repeat(10_000), /^condition : The condition is longer/],
        ] as Array<[string, unknown, RegExp]>
      ).map(([field, value, detail]) => [field, shown(value), value, detail] as const),
    )(
      'refuses %s = %s with INVALID_PARAMETER and changes nothing',
      async (field, _shown, value, detail) => {
        const { apiKey } = await makeUser(ds);
        const id = await create(apiKey, { name: 'VIP', condition: 'contact.vip == 1' });
        const before = await groupRow(id);

        const response = await api(t, apiKey).json(`/api/conditional_group/${id}/`, {
          [field]: value,
        });

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          new RegExp(`^${literal(INVALID)}${detail.source.slice(1)}`),
        );
        expect(await groupRow(id)).toEqual(before);
      },
    );

    it("answers another user's group as one that does not exist, 404 CANNOT_UPDATE, and leaves it", async () => {
      const { user: other } = await makeUser(ds);
      const theirs = await makeConditionalGroup(ds, other.id, { name: 'Theirs' });
      const { apiKey } = await makeUser(ds);

      const foreign = await api(t, apiKey).form(`/api/conditional_group/${theirs.id}/`).send({
        name: 'Mine now',
      });
      const absent = await api(t, apiKey)
        .form(`/api/conditional_group/${theirs.id + 100_000}/`)
        .send({
          name: 'Mine now',
        });

      expectError(
        foreign,
        404,
        CANNOT_UPDATE,
        `Cannot update this entry : id : you have no conditional group ${theirs.id}.`,
      );
      expectError(
        absent,
        404,
        CANNOT_UPDATE,
        `Cannot update this entry : id : you have no conditional group ${theirs.id + 100_000}.`,
      );
      expect(await groupRow(theirs.id)).toEqual(theirs);
    });

    it('answers 401 without an API key and changes nothing', async () => {
      const { user } = await makeUser(ds);
      const group = await makeConditionalGroup(ds, user.id);
      const response = await request(t.url)
        .post(`/api/conditional_group/${group.id}/`)
        .send({ name: 'x' });
      expectError(response, 401, INVALID_CREDENTIALS, /^Invalid API Key/);
      expect(await groupRow(group.id)).toEqual(group);
    });
  });

  describe('delete_conditional_group (DELETE /api/conditional_group/{id}/)', () => {
    it('deletes the group and removes it from pending scheduled messages', async () => {
      const { user, apiKey } = await makeUser(ds);
      const id = await create(apiKey, { name: 'VIP', condition: '1 == 1' });
      const scheduled = await makeScheduled(ds, user.id, {
        at: FUTURE,
        numbers: [{ number: '+33612345678' }],
        conditionalGroupIds: [id],
      });

      const response = await api(t, apiKey).delete(`/api/conditional_group/${id}/`);

      expectSuccess(response, 200, true);
      expect(await groupRow(id)).toBeNull();
      expect(
        await ds.getRepository(ScheduledConditionalGroup).countBy({ id_scheduled: scheduled.id }),
      ).toBe(0);
    });

    it("answers another user's group as one that does not exist, 404 CANNOT_DELETE, and keeps it", async () => {
      const { user: other } = await makeUser(ds);
      const theirs = await makeConditionalGroup(ds, other.id);
      const { apiKey } = await makeUser(ds);

      const foreign = await api(t, apiKey).delete(`/api/conditional_group/${theirs.id}/`);
      const absent = await api(t, apiKey).delete(`/api/conditional_group/${theirs.id + 100_000}/`);

      expectError(
        foreign,
        404,
        CANNOT_DELETE,
        `Cannot delete this entry. id : you have no conditional group ${theirs.id}.`,
      );
      expect(absent.status).toBe(404);
      expect(absent.body.error).toBe(CANNOT_DELETE);
      expect(await groupRow(theirs.id)).toEqual(theirs);
    });

    it('refuses a malformed id with INVALID_PARAMETER', async () => {
      const { apiKey } = await makeUser(ds);
      const response = await api(t, apiKey).delete('/api/conditional_group/-4/');
      expectError(response, 400, INVALID_PARAMETER, /^.+ : id must be a non-negative integer/);
    });

    it('answers 401 without an API key and deletes nothing', async () => {
      const { user } = await makeUser(ds);
      const group = await makeConditionalGroup(ds, user.id);
      const response = await request(t.url).delete(`/api/conditional_group/${group.id}/`);
      expectError(response, 401, INVALID_CREDENTIALS, /^Invalid API Key/);
      expect(await groupRow(group.id)).toEqual(group);
    });
  });

  describe('previews (GET /api/conditional_group/preview/, GET /api/conditional_group/{id}/contacts/)', () => {
    it('lists the contacts the condition selects, exactly as get_entries lists contacts', async () => {
      const { user, apiKey } = await makeUser(ds);
      const jane = await makeContact(ds, user.id, {
        number: '+33600000001',
        data: '{"gender":"female","vip":"1"}',
      });
      await makeContact(ds, user.id, { number: '+33600000002', data: '{"gender":"male"}' });
      const ann = await makeContact(ds, user.id, {
        number: '+33600000003',
        data: '{"gender":"female"}',
      });
      const listed = await listedContacts(apiKey);

      const response = await api(t, apiKey, 'query').get('/api/conditional_group/preview/', {
        condition: "contact.gender == 'female'",
      });

      expectSuccess(response, 200, [listed.get(jane.id), listed.get(ann.id)]);
    });

    it('pages 25 contacts at a time, with next and prev links keeping condition and api_key', async () => {
      const { user, apiKey } = await makeUser(ds);
      const selected: number[] = [];
      for (let index = 0; index < 60; index += 1) {
        const contact = await makeContact(ds, user.id, {
          number: `+336000001${String(index).padStart(2, '0')}`,
          data: JSON.stringify({ rank: index }),
        });
        if (index % 12 !== 0) {
          selected.push(contact.id);
        }
      }
      const condition = 'contact.rank % 12 != 0';
      const link = (page: number) =>
        `${t.url}/api/conditional_group/preview/?${new URLSearchParams({
          condition,
          page: String(page),
          api_key: apiKey,
        }).toString()}`;

      const first = await api(t, apiKey, 'query').get('/api/conditional_group/preview/', {
        condition,
      });
      expect(first.body.response.map((row: { id: number }) => row.id)).toEqual(
        selected.slice(0, 25),
      );
      expect([first.body.next, first.body.prev]).toEqual([link(1), null]);

      const second = await fetch(first.body.next as string);
      const secondBody = (await second.json()) as {
        response: Array<{ id: number }>;
        next: string | null;
        prev: string | null;
      };
      expect(secondBody.response.map((row) => row.id)).toEqual(selected.slice(25, 50));
      expect([secondBody.next, secondBody.prev]).toEqual([link(2), link(0)]);

      const last = await api(t, apiKey, 'query').get('/api/conditional_group/preview/', {
        condition,
        page: 2,
      });
      expect(last.body.response.map((row: { id: number }) => row.id)).toEqual(selected.slice(50));
      expect([last.body.next, last.body.prev]).toEqual([null, link(1)]);

      const past = await api(t, apiKey, 'query').get('/api/conditional_group/preview/', {
        condition,
        page: 9,
      });
      expect(past.status).toBe(200);
      expect(past.body).toEqual({
        error: 0,
        message: null,
        response: [],
        next: null,
        prev: link(8),
      });
    });

    it("lists a stored group's contacts as the preview of its condition, paged with its own links", async () => {
      const { user, apiKey } = await makeUser(ds);
      for (let index = 0; index < 30; index += 1) {
        await makeContact(ds, user.id, {
          number: `+336000002${String(index).padStart(2, '0')}`,
          data: JSON.stringify({ vip: index % 2 === 0 ? '1' : '0' }),
        });
      }
      const id = await create(apiKey, { name: 'VIP', condition: 'contact.vip == 1' });

      const byId = await api(t, apiKey, 'query').get(`/api/conditional_group/${id}/contacts/`);
      const preview = await api(t, apiKey, 'query').get('/api/conditional_group/preview/', {
        condition: 'contact.vip == 1',
      });

      expect(byId.body.response).toHaveLength(15);
      expect(byId.body.response).toEqual(preview.body.response);
      expect([byId.body.next, byId.body.prev]).toEqual([null, null]);
      const page1 = await api(t, apiKey, 'query').get(`/api/conditional_group/${id}/contacts/`, {
        page: 1,
      });
      expect(page1.body.response).toEqual([]);
      expect(page1.body.prev).toBe(
        `${t.url}/api/conditional_group/${id}/contacts/?page=0&api_key=${apiKey}`,
      );
    });

    it('selects nobody for a group stored without a usable condition, as the dispatch', async () => {
      const { user, apiKey } = await makeUser(ds);
      await makeContact(ds, user.id);
      const empty = await makeConditionalGroup(ds, user.id, { condition: null });
      const broken = await makeConditionalGroup(ds, user.id, { condition: 'contact.vip ==' });
      for (const group of [empty, broken]) {
        const response = await api(t, apiKey, 'query').get(
          `/api/conditional_group/${group.id}/contacts/`,
        );
        expectSuccess(response, 200, []);
      }
    });

    it("never lists another user's contacts, and answers another user's group as one that does not exist", async () => {
      const { user: other, apiKey: otherKey } = await makeUser(ds);
      await makeContact(ds, other.id, { data: '{"vip":"1"}' });
      const theirs = await makeConditionalGroup(ds, other.id, { condition: '1 == 1' });
      const { user, apiKey } = await makeUser(ds);
      const mine = await makeContact(ds, user.id, { data: '{"vip":"1"}' });

      const preview = await api(t, apiKey, 'query').get('/api/conditional_group/preview/', {
        condition: '1 == 1',
      });
      expect(preview.body.response.map((row: { id: number }) => row.id)).toEqual([mine.id]);

      const foreign = await api(t, apiKey, 'query').get(
        `/api/conditional_group/${theirs.id}/contacts/`,
      );
      const absent = await api(t, apiKey, 'query').get(
        `/api/conditional_group/${theirs.id + 100_000}/contacts/`,
      );
      expectError(
        foreign,
        404,
        INVALID_PARAMETER,
        `${INVALID}id : you have no conditional group ${theirs.id}.`,
      );
      expect(absent.status).toBe(404);
      expect(absent.body.error).toBe(INVALID_PARAMETER);
      const theirsListed = await api(t, otherKey, 'query').get(
        `/api/conditional_group/${theirs.id}/contacts/`,
      );
      expect(theirsListed.body.response).toHaveLength(1);
    });

    it.each(
      (
        [
          [{}, MISSING_PARAMETER, /^condition is required: /],
          [{ condition: '' }, MISSING_PARAMETER, /^condition is required: /],
          [
            { condition: 'contact.vip ==' },
            INVALID_PARAMETER,
            /^condition : The condition does not parse: .+ around position \d+\.$/,
          ],
          [
            { condition: 'foo.bar == 1' },
            INVALID_PARAMETER,
            /^condition : The condition does not parse: Variable "foo" is not valid/,
          ],
          [
            { condition: "nope('x')" },
            INVALID_PARAMETER,
            /^condition : The condition does not parse: The function "nope" does not exist/,
          ],
          [{ 'condition[]': '1 == 1' }, INVALID_PARAMETER, /^condition must be a text/],
          [{ 'condition[a]': '1 == 1' }, INVALID_PARAMETER, /^condition must be a text/],
          [
            { condition: 'x'.repeat(10_000) },
            INVALID_PARAMETER,
            /^condition : The condition is longer/,
          ],
          [
            { condition: '1 == 1', page: '-1' },
            INVALID_PARAMETER,
            /^page must be a non-negative integer/,
          ],
          [
            { condition: '1 == 1', page: 'abc' },
            INVALID_PARAMETER,
            /^page must be a non-negative integer/,
          ],
          [
            { condition: '1 == 1', page: '1.5' },
            INVALID_PARAMETER,
            /^page must be a non-negative integer/,
          ],
          [
            { condition: '1 == 1', page: '99999999999' },
            INVALID_PARAMETER,
            /^page must be a non-negative integer/,
          ],
          [
            { condition: '1 == 1', 'page[]': '1' },
            INVALID_PARAMETER,
            /^page must be a non-negative integer/,
          ],
        ] as Array<[Record<string, string>, number, RegExp]>
      ).map(([query, code, detail]) => [shown(query), query, code, detail] as const),
    )(
      'answers the preview of %s with its error naming the parameter',
      async (_shown, query, code, detail) => {
        const { apiKey } = await makeUser(ds);
        const response = await api(t, apiKey, 'query').get(
          '/api/conditional_group/preview/',
          query,
        );
        const prefix = code === MISSING_PARAMETER ? MISSING : INVALID;
        expectError(
          response,
          400,
          code,
          new RegExp(`^${literal(prefix)}${detail.source.slice(1)}`),
        );
      },
    );

    it.each(['abc', '-1', '99999999999'])(
      'refuses the page %s of a group contacts with INVALID_PARAMETER naming page',
      async (page) => {
        const { user, apiKey } = await makeUser(ds);
        const group = await makeConditionalGroup(ds, user.id);
        const response = await api(t, apiKey, 'query').get(
          `/api/conditional_group/${group.id}/contacts/`,
          {
            page,
          },
        );
        expectError(response, 400, INVALID_PARAMETER, /^.+ : page must be a non-negative integer/);
      },
    );

    it('answers 401 without an API key on both previews', async () => {
      const { user } = await makeUser(ds);
      const group = await makeConditionalGroup(ds, user.id);
      for (const path of [
        '/api/conditional_group/preview/?condition=1%20%3D%3D%201',
        `/api/conditional_group/${group.id}/contacts/`,
      ]) {
        const response = await request(t.url).get(path);
        expectError(response, 401, INVALID_CREDENTIALS, /^Invalid API Key/);
      }
    });
  });

  describe('the previews select exactly what the dispatch sends to', () => {
    const [, month, day] = new Date().toISOString().slice(0, 10).split('-');

    /** Contacts of every shape a condition may meet: documented ones and malformed data. */
    const CONTACTS: Array<{ name: string; data: string | null }> = [
      {
        name: 'Jane Doe',
        data: JSON.stringify({
          firstname: 'Jane',
          lastname: 'Doe',
          gender: 'female',
          vip: '1',
          birthday: `1990-${month}-${day}`,
        }),
      },
      {
        name: 'John Doe',
        data: JSON.stringify({ firstname: 'John', lastname: 'DOE', gender: 'male', vip: '0' }),
      },
      {
        name: 'Ann Smith',
        data: JSON.stringify({ lastname: 'Smith', gender: 'female', vip: 1, age: '42' }),
      },
      { name: 'Élodie', data: JSON.stringify({ lastname: 'doe', gender: 'female', vip: '01' }) },
      {
        name: 'Birthday by format',
        data: JSON.stringify({ gender: 'other', birthday: `${day}/${month}/1985` }),
      },
      { name: 'Lastname null', data: JSON.stringify({ lastname: null, gender: 'female' }) },
      { name: 'No keys', data: '{}' },
      { name: 'Data not JSON', data: 'gender=female' },
      { name: 'Data a list', data: '["female", "1"]' },
      { name: 'Data an empty list', data: '[]' },
      { name: 'Data a string', data: '"female"' },
      { name: 'Data null', data: null },
      { name: 'Data empty', data: '' },
      {
        name: 'Nested values',
        data: JSON.stringify({
          gender: { value: 'female' },
          vip: ['1'],
          lastname: { upper: 'DOE' },
          address: { city: 'Lyon' },
          tags: ['a', 'b'],
        }),
      },
      { name: 'Numbers', data: JSON.stringify({ vip: 1, age: 42.5, gender: true }) },
      { name: 'Long text', data: JSON.stringify({ lastname: `${'a'.repeat(40)}!` }) },
      { name: 'Birthday not a date', data: JSON.stringify({ birthday: 'unknown' }) },
    ];

    const CONDITIONS = [
      // RaspiSMS's documentation.
      '1 == 1',
      "contact.gender == 'female'",
      "contact.gender == 'female' && contact.vip == 1",
      "upper(contact.lastname) == 'DOE'",
      "(exists(contact.lastname)) && (upper(contact.lastname) == 'DOE')",
      // Its functions, and the language's operators.
      'is_birthday(date(contact.birthday))',
      "is_birthday(date_from_format('d/m/Y', contact.birthday))",
      "lower(contact.lastname) == 'doe'",
      "substr(contact_metas.name, 0, 4) == 'Jane'",
      'strlen(contact.lastname) > 3',
      'abs(contact.age) > 40',
      "date(contact.birthday) < date('2000-01-01')",
      'intval(contact.vip) == 1',
      'boolval(contact.vip)',
      'count(contact.tags) == 2',
      'constant("PHP_VERSION") == null',
      'exists(contact.gender)',
      "contact.gender in ['female', 'other']",
      "contact.address.city == 'Lyon'",
      "contact_metas.number matches '/^\\\\+3360000/'",
      "contact.lastname matches '/^(a+)+$/'",
      "contact_metas.name ~ '!' == 'Jane Doe!'",
      'contact.vip + 1 == 2',
      'not (contact.vip == 1)',
      'contact.nickname == null and contact_metas.id > 0',
      "contact.gender.value == 'female'",
    ];

    it('for every documented example condition and malformed data shapes', async () => {
      const { user, apiKey } = await makeUser(ds);
      await makePhone(ds, user.id, { adapter_data: '{"delivery":"delivered"}' });
      const numbers = new Map<number, string>();
      for (const [index, contact] of CONTACTS.entries()) {
        const number = `+3360000${String(index).padStart(4, '0')}`;
        const created = await makeContact(ds, user.id, { ...contact, number });
        numbers.set(created.id, number);
      }

      const previews = new Map<string, string[]>();
      const messages = new Map<number, string>();
      for (const [index, condition] of CONDITIONS.entries()) {
        const id = await create(apiKey, { name: `condition ${index}`, condition });
        const byCondition = await allPages(previewUrl(apiKey, condition));
        const byId = await allPages(
          `${t.url}/api/conditional_group/${id}/contacts/?api_key=${apiKey}`,
        );
        expect(byId).toEqual(byCondition);
        previews.set(condition, byCondition.map((contactId) => numbers.get(contactId)!).sort());
        const scheduled = await api(t, apiKey).json('/api/scheduled/', {
          text: `condition ${index}`,
          conditional_groups: [id],
        });
        expect(scheduled.status).toBe(201);
        messages.set(scheduled.body.response as number, condition);
      }

      // Every message is dispatched once none of them is left scheduled.
      await waitFor(async () => {
        const listed = await api(t, apiKey, 'query').get('/api/list/scheduled/');
        return (listed.body.response as unknown[]).length === 0;
      }, 'every message dispatched');
      const expected = [...previews.values()].reduce((sum, list) => sum + list.length, 0);
      await waitFor(
        async () => (await ds.getRepository(Sended).countBy({ id_user: user.id })) >= expected,
        `${expected} sent entries`,
      );
      const sent = await ds.getRepository(Sended).findBy({ id_user: user.id });
      const dispatched = new Map<string, string[]>(CONDITIONS.map((condition) => [condition, []]));
      for (const entry of sent) {
        dispatched.get(messages.get(entry.originating_scheduled!)!)!.push(entry.destination);
      }
      for (const list of dispatched.values()) {
        list.sort();
      }

      expect(Object.fromEntries(dispatched)).toEqual(Object.fromEntries(previews));
      // The comparison means something: conditions select different, non-trivial sets.
      expect(new Set([...previews.values()].map((list) => list.join())).size).toBeGreaterThan(10);
      expect(previews.get('1 == 1')).toHaveLength(CONTACTS.length);
    });
  });
});
