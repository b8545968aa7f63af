import request from 'supertest';
import { DataSource } from 'typeorm';
import { Sended } from '../../src/sended/entities/sended.entity';
import { PhoneGroup, PhoneGroupPhone } from '../../src/phone-groups/entities/phone-group.entity';
import { Phone } from '../../src/phones/entities/phone.entity';
import { Scheduled } from '../../src/scheduled/entities/scheduled.entity';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import {
  insertRows,
  makePhone,
  makePhoneGroup,
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
 * The phone-group operations (docs/api.md#post_phone_group and those after it) over real HTTP
 * against the real app, on every database engine; and a phone group created here routing a
 * message through the inline dispatch worker.
 */

const FUTURE = '2099-01-01 00:00:00';
const TWILIO_DATA = JSON.stringify({
  account_sid: 'AC123',
  auth_token: 'secret-token',
  number: '+33612345678',
});

describeEachDatabase('phone groups', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    // The inline worker routes the end-to-end test's message; the other tests' messages are
    // scheduled in the future.
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
    ds.getRepository(PhoneGroup).find({ where: { id_user }, order: { id: 'ASC' } });
  const groupRow = (id: number) => ds.getRepository(PhoneGroup).findOneBy({ id });
  const memberIds = async (id_phone_group: number) =>
    (
      await ds
        .getRepository(PhoneGroupPhone)
        .find({ where: { id_phone_group }, order: { id_phone: 'ASC' } })
    ).map((link) => link.id_phone);

  const create = async (apiKey: string, body: Record<string, unknown>): Promise<number> => {
    const response = await api(t, apiKey).json('/api/phone_group/', body);
    expect(response.status).toBe(201);
    return (response.body as { response: number }).response;
  };

  describe('post_phone_group (POST /api/phone_group/)', () => {
    it('answers 401 INVALID_CREDENTIALS without an API key and creates nothing', async () => {
      const { user } = await makeUser(ds);
      const response = await request(t.url)
        .post('/api/phone_group/')
        .type('form')
        .send({ name: 'Senders' });
      expectError(response, 401, INVALID_CREDENTIALS, /^Invalid API Key/);
      expect(await groupsOf(user.id)).toEqual([]);
    });

    it('creates a phone group from a bracket form, duplicates counted once, with HTTP 201 and its id', async () => {
      const { user, apiKey } = await makeUser(ds);
      const first = await makePhone(ds, user.id);
      const second = await makePhone(ds, user.id);

      const response = await api(t, apiKey)
        .form('/api/phone_group/')
        .send(`name=  Senders &phones[]=${second.id}&phones[]=${first.id}&phones[]=${second.id}`);

      expectSuccess(response, 201, expect.any(Number));
      expect(await groupRow(response.body.response)).toMatchObject({
        id_user: user.id,
        name: 'Senders',
        name_key: 'senders',
        updated_at: null,
      });
      expect(await memberIds(response.body.response)).toEqual([first.id, second.id]);
    });

    it.each([
      ['a JSON array', (ids: number[]) => ({ phones: ids })],
      ['a JSON array in a string', (ids: number[]) => ({ phones: JSON.stringify(ids) })],
    ])('creates a phone group whose phones are %s', async (_how, phones) => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const id = await create(apiKey, { name: 'Senders', ...phones([phone.id]) });
      expect(await memberIds(id)).toEqual([phone.id]);
    });

    it('creates an empty phone group when phones are not sent', async () => {
      const { apiKey } = await makeUser(ds);
      const id = await create(apiKey, { name: 'Empty' });
      expect(await memberIds(id)).toEqual([]);
    });

    it('answers MISSING_PARAMETER without a name, and creates nothing', async () => {
      const { user, apiKey } = await makeUser(ds);
      for (const body of [{}, { name: '' }, { name: null }]) {
        const response = await api(t, apiKey).json('/api/phone_group/', body);
        expectError(response, 400, MISSING_PARAMETER, `${MISSING}name is required.`);
      }
      expect(await groupsOf(user.id)).toEqual([]);
    });

    it('refuses a name already used by another of its phone groups, in any case', async () => {
      const { user, apiKey } = await makeUser(ds);
      await create(apiKey, { name: 'Senders' });
      const response = await api(t, apiKey).json('/api/phone_group/', { name: 'SENDERS' });
      expectError(
        response,
        400,
        INVALID_PARAMETER,
        `${INVALID}name : you already have a phone group named "SENDERS".`,
      );
      expect(await groupsOf(user.id)).toHaveLength(1);
    });

    it("refuses phones that are not its own, naming them, and creates nothing: another user's look like ones that do not exist", async () => {
      const { user: other } = await makeUser(ds);
      const theirs = await makePhone(ds, other.id);
      const { user, apiKey } = await makeUser(ds);
      const mine = await makePhone(ds, user.id);
      const missing = theirs.id + 100_000;

      const response = await api(t, apiKey).json('/api/phone_group/', {
        name: 'Senders',
        phones: [mine.id, theirs.id, missing],
      });

      expectError(
        response,
        400,
        INVALID_PARAMETER,
        `${INVALID}phones : ${theirs.id}, ${missing} are not ids of your phones.`,
      );
      expect(await groupsOf(user.id)).toEqual([]);
      expect(await ds.getRepository(PhoneGroupPhone).countBy({ id_phone: theirs.id })).toBe(0);
    });

    it.each(
      (
        [
          ['name', ['a', 'b'], /^name must be a string\.$/],
          ['name', { a: 1 }, /^name must be a string\.$/],
          ['name', '   ', /^name must not be empty\.$/],
          ['name', 'n'.repeat(10_000), /^name must be at most 100 characters long\.$/],
          ['phones', 'abc', /^phones\[0\] must be a non-negative integer/],
          ['phones', [-1], /^phones\[0\] must be a non-negative integer/],
          ['phones', [1.5], /^phones\[0\] must be a non-negative integer/],
          ['phones', [99_999_999_999], /^phones\[0\] must be a non-negative integer/],
          ['phones', ['1', 'x'], /^phones\[1\] must be a non-negative integer/],
          ['phones', [{ id: 1 }], /^phones\[0\] must be a non-negative integer/],
          ['phones', { a: 1 }, /^phones\[0\] must be a non-negative integer/],
          ['phones', '[1,', /^phones must be an id, a list of ids or a JSON array of ids\.$/],
          ['phones', 'x'.repeat(10_000), /^phones\[0\] must be a non-negative integer/],
          [
            'phones',
            Array.from({ length: 10_001 }, (_, index) => index + 1),
            /^phones : at most 10000 ids per request\.$/,
          ],
        ] as Array<[string, unknown, RegExp]>
      ).map(([field, value, detail]) => [field, shown(value), value, detail] as const),
    )(
      'refuses %s = %s with INVALID_PARAMETER naming it, and creates nothing',
      async (field, _shown, value, detail) => {
        const { user, apiKey } = await makeUser(ds);
        const response = await api(t, apiKey).json('/api/phone_group/', {
          name: 'Senders',
          [field]: value,
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

    it('refuses a body that is not JSON with INVALID_PARAMETER and creates nothing', async () => {
      const { user, apiKey } = await makeUser(ds);
      const response = await api(t, apiKey).json('/api/phone_group/', '{"name": "x", "phones": [');
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error: INVALID_PARAMETER, response: null });
      expect(await groupsOf(user.id)).toEqual([]);
    });
  });

  describe('get_phone_group (GET /api/phone_group/{id}/)', () => {
    it('answers the group exactly as get_entries lists it: phones with hidden adapter data, nb_phone', async () => {
      const { user, apiKey } = await makeUser(ds);
      const test = await makePhone(ds, user.id, { adapter_data: '{"delivery":"delivered"}' });
      const twilio = await makePhone(ds, user.id, { adapter: 'twilio', adapter_data: TWILIO_DATA });
      const id = await create(apiKey, { name: 'Senders', phones: [test.id, twilio.id] });

      const response = await api(t, apiKey).get(`/api/phone_group/${id}/`);
      const listed = await api(t, apiKey).get('/api/list/phone_group/');

      expectSuccess(response, 200, listed.body.response[0]);
      const group = response.body.response;
      expect(Object.keys(group)).toEqual([
        'id',
        'id_user',
        'name',
        'created_at',
        'updated_at',
        'nb_phone',
        'phones',
      ]);
      expect(group.nb_phone).toBe(2);
      expect(group.phones.map((phone: { id: number }) => phone.id)).toEqual([test.id, twilio.id]);
      expect(group.phones[0].adapter_data).toBe('{"delivery":"delivered"}');
      expect(group.phones[1]).not.toHaveProperty('adapter_data');
      expect(JSON.stringify(response.body)).not.toContain('secret-token');
    });

    it("answers another user's group exactly as one that does not exist: 404 INVALID_PARAMETER", async () => {
      const { user: other } = await makeUser(ds);
      const theirs = await makePhoneGroup(ds, other.id);
      const { apiKey } = await makeUser(ds);
      const missing = theirs.id + 100_000;

      const foreign = await api(t, apiKey).get(`/api/phone_group/${theirs.id}/`);
      const absent = await api(t, apiKey).get(`/api/phone_group/${missing}/`);

      expectError(
        foreign,
        404,
        INVALID_PARAMETER,
        `${INVALID}id : you have no phone group ${theirs.id}.`,
      );
      expectError(
        absent,
        404,
        INVALID_PARAMETER,
        `${INVALID}id : you have no phone group ${missing}.`,
      );
    });

    it.each(['abc', '-1', '1.5', '99999999999'])(
      'refuses the id %s with INVALID_PARAMETER naming id',
      async (id) => {
        const { apiKey } = await makeUser(ds);
        const response = await api(t, apiKey).get(`/api/phone_group/${id}/`);
        expectError(response, 400, INVALID_PARAMETER, /^.+ : id must be a non-negative integer/);
      },
    );

    it('answers 401 without an API key', async () => {
      const { user } = await makeUser(ds);
      const group = await makePhoneGroup(ds, user.id);
      const response = await request(t.url).get(`/api/phone_group/${group.id}/`);
      expectError(response, 401, INVALID_CREDENTIALS, /^Invalid API Key/);
    });
  });

  describe('post_update_phone_group (POST /api/phone_group/{id}/)', () => {
    it('changes the fields sent, keeps the others, and answers the group as listed', async () => {
      const { user, apiKey } = await makeUser(ds);
      const [first, second, third] = [
        await makePhone(ds, user.id),
        await makePhone(ds, user.id),
        await makePhone(ds, user.id),
      ];
      const id = await create(apiKey, { name: 'Senders', phones: [first.id, second.id] });

      const renamed = await api(t, apiKey).form(`/api/phone_group/${id}/`).send({ name: 'Main' });
      expect(renamed.status).toBe(200);
      expect(renamed.body.response).toMatchObject({ id, name: 'Main', nb_phone: 2 });
      expect((await groupRow(id))?.name_key).toBe('main');
      expect(await memberIds(id)).toEqual([first.id, second.id]);

      const replaced = await api(t, apiKey)
        .form(`/api/phone_group/${id}/`)
        .send(`phones[]=${third.id}`);
      const listed = await api(t, apiKey).get(`/api/phone_group/${id}/`);
      expectSuccess(replaced, 200, listed.body.response);
      expect(replaced.body.response).toMatchObject({ name: 'Main', nb_phone: 1 });
      expect(await memberIds(id)).toEqual([third.id]);

      const emptied = await api(t, apiKey).form(`/api/phone_group/${id}/`).send('phones=');
      expect(emptied.body.response).toMatchObject({ name: 'Main', nb_phone: 0, phones: [] });
      expect(await memberIds(id)).toEqual([]);
    });

    it('succeeds without changing anything when nothing is sent', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const id = await create(apiKey, { name: 'Senders', phones: [phone.id] });
      const before = await api(t, apiKey).get(`/api/phone_group/${id}/`);
      const response = await api(t, apiKey).form(`/api/phone_group/${id}/`).send({});
      expectSuccess(response, 200, before.body.response);
      expect(await memberIds(id)).toEqual([phone.id]);
    });

    it('refuses a name another of its groups has, and phones not its own, changing nothing', async () => {
      const { user: other } = await makeUser(ds);
      const theirs = await makePhone(ds, other.id);
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const id = await create(apiKey, { name: 'Senders', phones: [phone.id] });
      await create(apiKey, { name: 'Backup' });
      const before = await groupRow(id);

      const taken = await api(t, apiKey).form(`/api/phone_group/${id}/`).send({ name: 'backup' });
      expectError(
        taken,
        400,
        INVALID_PARAMETER,
        `${INVALID}name : you already have a phone group named "backup".`,
      );
      const foreign = await api(t, apiKey).json(`/api/phone_group/${id}/`, {
        name: 'Renamed',
        phones: [theirs.id],
      });
      expectError(
        foreign,
        400,
        INVALID_PARAMETER,
        `${INVALID}phones : ${theirs.id} is not the id of one of your phones.`,
      );

      expect(await groupRow(id)).toEqual(before);
      expect(await memberIds(id)).toEqual([phone.id]);
    });

    it.each(
      (
        [
          ['name', '', /^name must not be empty\.$/],
          ['name', 'n'.repeat(10_000), /^name must be at most 100 characters long\.$/],
          ['phones', [-1], /^phones\[0\] must be a non-negative integer/],
          ['phones', 'x'.repeat(10_000), /^phones\[0\] must be a non-negative integer/],
          ['phones', '[1,', /^phones must be an id, a list of ids or a JSON array of ids\.$/],
        ] as Array<[string, unknown, RegExp]>
      ).map(([field, value, detail]) => [field, shown(value), value, detail] as const),
    )(
      'refuses %s = %s with INVALID_PARAMETER and changes nothing',
      async (field, _shown, value, detail) => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        const id = await create(apiKey, { name: 'Senders', phones: [phone.id] });
        const before = await groupRow(id);
        const response = await api(t, apiKey).json(`/api/phone_group/${id}/`, { [field]: value });
        expectError(
          response,
          400,
          INVALID_PARAMETER,
          new RegExp(`^${literal(INVALID)}${detail.source.slice(1)}`),
        );
        expect(await groupRow(id)).toEqual(before);
        expect(await memberIds(id)).toEqual([phone.id]);
      },
    );

    it("answers another user's group as one that does not exist, 404 CANNOT_UPDATE, and leaves it", async () => {
      const { user: other } = await makeUser(ds);
      const theirPhone = await makePhone(ds, other.id);
      const theirs = await makePhoneGroup(ds, other.id, [theirPhone.id], { name: 'Theirs' });
      const { apiKey } = await makeUser(ds);

      const foreign = await api(t, apiKey).form(`/api/phone_group/${theirs.id}/`).send('phones=');
      const absent = await api(t, apiKey)
        .form(`/api/phone_group/${theirs.id + 100_000}/`)
        .send('phones=');

      expectError(
        foreign,
        404,
        CANNOT_UPDATE,
        `Cannot update this entry : id : you have no phone group ${theirs.id}.`,
      );
      expectError(
        absent,
        404,
        CANNOT_UPDATE,
        `Cannot update this entry : id : you have no phone group ${theirs.id + 100_000}.`,
      );
      expect(await groupRow(theirs.id)).toEqual(theirs);
      expect(await memberIds(theirs.id)).toEqual([theirPhone.id]);
    });

    it('answers 401 without an API key and changes nothing', async () => {
      const { user } = await makeUser(ds);
      const group = await makePhoneGroup(ds, user.id);
      const response = await request(t.url)
        .post(`/api/phone_group/${group.id}/`)
        .send({ name: 'x' });
      expectError(response, 401, INVALID_CREDENTIALS, /^Invalid API Key/);
      expect(await groupRow(group.id)).toEqual(group);
    });
  });

  describe('delete_phone_group (DELETE /api/phone_group/{id}/)', () => {
    it('deletes the group and its memberships; its phones stay', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const id = await create(apiKey, { name: 'Senders', phones: [phone.id] });

      const response = await api(t, apiKey).delete(`/api/phone_group/${id}/`);

      expectSuccess(response, 200, true);
      expect(await groupRow(id)).toBeNull();
      expect(await memberIds(id)).toEqual([]);
      expect(await ds.getRepository(Phone).countBy({ id: phone.id })).toBe(1);
    });

    it('refuses with CANNOT_DELETE, HTTP 422, a group pending scheduled messages are sent through, saying how many', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const id = await create(apiKey, { name: 'Senders', phones: [phone.id] });
      for (let index = 0; index < 2; index += 1) {
        await makeScheduled(ds, user.id, {
          at: FUTURE,
          id_phone_group: id,
          numbers: [{ number: '+33612345678' }],
        });
      }

      const response = await api(t, apiKey).delete(`/api/phone_group/${id}/`);

      expectError(
        response,
        422,
        CANNOT_DELETE,
        `Cannot delete this entry. 2 pending messages are to be sent through phone group ${id}: ` +
          'delete them, or wait until they are sent, then delete the group.',
      );
      expect(await groupRow(id)).not.toBeNull();
      expect(await memberIds(id)).toEqual([phone.id]);
      expect(await ds.getRepository(Scheduled).countBy({ id_phone_group: id })).toBe(2);
    });

    it('refuses a group whose message the dispatch has taken but not sent yet', async () => {
      const { user, apiKey } = await makeUser(ds);
      const id = await create(apiKey, { name: 'Senders' });
      // A recipient queued by the dispatch, waiting for a retry far ahead.
      await insertRows(
        ds,
        'outbox',
        [
          'id_user',
          'originating_scheduled',
          'id_phone_group',
          'destination',
          'text',
          'flash',
          'mms',
          'state',
          'attempts',
          'next_attempt_at',
          'created_at',
        ],
        [[user.id, 999_999, id, '+33612345678', 'Hello', 0, 0, 'queued', 1, FUTURE, FUTURE]],
      );

      const response = await api(t, apiKey).delete(`/api/phone_group/${id}/`);

      expectError(
        response,
        422,
        CANNOT_DELETE,
        `Cannot delete this entry. 1 pending message is to be sent through phone group ${id}: ` +
          'delete it, or wait until it is sent, then delete the group.',
      );
      expect(await groupRow(id)).not.toBeNull();
    });

    it('never orphans a message scheduled while the group is deleted: one of the two is refused', async () => {
      const { user, apiKey } = await makeUser(ds);
      const outcomes = new Set<string>();
      for (let round = 0; round < 15; round += 1) {
        const group = await makePhoneGroup(ds, user.id);
        const [scheduled, deleted] = await Promise.all([
          api(t, apiKey).json('/api/scheduled/', {
            at: FUTURE,
            text: 'Hello',
            numbers: ['+33612345678'],
            id_phone_group: group.id,
          }),
          api(t, apiKey).delete(`/api/phone_group/${group.id}/`),
        ]);
        outcomes.add(`${scheduled.status} ${deleted.status}`);
        const rows = await ds.getRepository(Scheduled).findBy({ id_user: user.id });
        if (deleted.status === 200) {
          expect(scheduled.status).not.toBe(201);
          expect(rows).toEqual([]);
        } else {
          expect([scheduled.status, deleted.status, deleted.body.error]).toEqual([
            201,
            422,
            CANNOT_DELETE,
          ]);
          expect(rows.map((row) => row.id_phone_group)).toEqual([group.id]);
          await ds.getRepository(Scheduled).delete({ id_user: user.id });
        }
      }
      // Each outcome is one of those two, whichever request came first.
      for (const outcome of outcomes) {
        expect(['201 422', '400 200', '422 200']).toContain(outcome);
      }
    });

    it('never links a phone deleted while the group is created: the group is refused or the phone goes with its link', async () => {
      const { user, apiKey } = await makeUser(ds);
      for (let round = 0; round < 15; round += 1) {
        const phone = await makePhone(ds, user.id);
        const [created, deleted] = await Promise.all([
          api(t, apiKey).json('/api/phone_group/', { name: `Race ${round}`, phones: [phone.id] }),
          api(t, apiKey).delete(`/api/phone/${phone.id}/`),
        ]);
        expect(deleted.status).toBe(200);
        if (created.status === 201) {
          // Created first: the phone's delete took its membership with it.
          expect(await ds.getRepository(PhoneGroupPhone).findBy({ id_phone: phone.id })).toEqual(
            [],
          );
        } else {
          expectError(
            created,
            400,
            INVALID_PARAMETER,
            `${INVALID}phones : ${phone.id} is not the id of one of your phones.`,
          );
        }
      }
    });

    it("answers another user's group as one that does not exist, 404 CANNOT_DELETE, and keeps it, pending messages or not", async () => {
      const { user: other } = await makeUser(ds);
      const theirs = await makePhoneGroup(ds, other.id);
      const busy = await makePhoneGroup(ds, other.id);
      await makeScheduled(ds, other.id, { at: FUTURE, id_phone_group: busy.id });
      const { apiKey } = await makeUser(ds);

      for (const group of [theirs, busy]) {
        const response = await api(t, apiKey).delete(`/api/phone_group/${group.id}/`);
        expectError(
          response,
          404,
          CANNOT_DELETE,
          `Cannot delete this entry. id : you have no phone group ${group.id}.`,
        );
        expect(await groupRow(group.id)).toEqual(group);
      }
      const absent = await api(t, apiKey).delete(`/api/phone_group/${theirs.id + 100_000}/`);
      expectError(
        absent,
        404,
        CANNOT_DELETE,
        `Cannot delete this entry. id : you have no phone group ${theirs.id + 100_000}.`,
      );
    });

    it('refuses a malformed id with INVALID_PARAMETER', async () => {
      const { apiKey } = await makeUser(ds);
      const response = await api(t, apiKey).delete('/api/phone_group/1.5/');
      expectError(response, 400, INVALID_PARAMETER, /^.+ : id must be a non-negative integer/);
    });

    it('answers 401 without an API key and deletes nothing', async () => {
      const { user } = await makeUser(ds);
      const group = await makePhoneGroup(ds, user.id);
      const response = await request(t.url).delete(`/api/phone_group/${group.id}/`);
      expectError(response, 401, INVALID_CREDENTIALS, /^Invalid API Key/);
      expect(await groupRow(group.id)).toEqual(group);
    });
  });

  it('sends a message scheduled with a phone group created here through its phones only', async () => {
    // The phone outside the group has the highest priority, and phone_priority is on: without
    // the group, every message goes through it.
    const { user, apiKey } = await makeUser(ds, { settings: { phone_priority: '1' } });
    const inside = [await makePhone(ds, user.id), await makePhone(ds, user.id)];
    const outside = await makePhone(ds, user.id, { priority: 10 });
    const groupId = await create(apiKey, {
      name: 'Senders',
      phones: inside.map((phone) => phone.id),
    });
    const numbers = Array.from({ length: 12 }, (_, index) => `+336123456${10 + index}`);

    const grouped = await api(t, apiKey).json('/api/scheduled/', {
      text: 'Through the group',
      numbers,
      id_phone_group: groupId,
    });
    const ungrouped = await api(t, apiKey).json('/api/scheduled/', {
      text: 'Through any phone',
      numbers: numbers.slice(0, 2),
    });
    expect([grouped.status, ungrouped.status]).toEqual([201, 201]);

    const sended = ds.getRepository(Sended);
    await waitFor(
      async () => (await sended.countBy({ id_user: user.id })) === 14,
      '14 sent entries',
    );
    const through = async (originating_scheduled: number) =>
      (await sended.findBy({ originating_scheduled })).map((entry) => entry.id_phone);

    const viaGroup = await through(grouped.body.response);
    expect(viaGroup).toHaveLength(12);
    expect(new Set(viaGroup)).toEqual(
      new Set(viaGroup.filter((id) => inside.some((phone) => phone.id === id))),
    );
    expect(viaGroup).not.toContain(outside.id);
    expect(await through(ungrouped.body.response)).toEqual([outside.id, outside.id]);
  });
});
