import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { Received } from '../../src/received/entities/received.entity';
import { Sended } from '../../src/sended/entities/sended.entity';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import {
  makeConditionalGroup,
  makeContact,
  makeGroup,
  makeMedia,
  makePhone,
  makePhoneGroup,
  makeReceived,
  makeScheduled,
  makeSended,
  makeUser,
} from '../support/factories';
import { countRows, storedScheduled } from '../support/scheduled.factories';
import {
  INVALID_PARAMETER,
  MISSING_PARAMETER,
  CANNOT_DELETE,
  CANNOT_UPDATE,
  INVALID,
  MISSING,
  expectSuccess,
  expectError,
} from '../support/envelope';

/*
 * Messages by id (docs/api.md#get_sended and the sections after it): reading, deleting and
 * marking sent and received entries, reading and updating pending scheduled messages, over real
 * HTTP against the real app, on every database engine. Each test makes its own users.
 */

const NOT_UPDATED = 'Cannot update this entry : ';
const NOT_DELETED = 'Cannot delete this entry. ';
const DUE = '2024-01-02 03:04:05';

type Entry = Record<string, unknown>;

/** Ids that are not a non-negative integer, as a path segment. */
const MALFORMED_IDS = ['abc', '-1', '1.5', '99999999999', '1e3', '0x10', '%20'];

describeEachDatabase('messages by id', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database());
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  /** The entry `id` as get_entries lists it. */
  const listed = async (type: string, apiKey: string, id: number): Promise<Entry> => {
    const response = await api(t, apiKey).get(`/api/list/${type}/after/${id - 1}/`);
    const entry = (response.body as { response: Entry[] }).response[0];
    expect(entry?.id).toBe(id);
    return entry;
  };

  /** A media row whose file exists in the media folder. */
  const mediaWithFile = async (userId: number) => {
    const media = await makeMedia(ds, userId);
    const file = join(database().dataDir, 'media', media.path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, 'png');
    return { media, file };
  };
  const mediaRows = (id: number) =>
    countRows(ds, 'SELECT COUNT(*) AS n FROM media WHERE id = ?', [id]);

  describe('get_sended (GET /api/sended/{id}/)', () => {
    it('answers 401 without an API key', async () => {
      const { user } = await makeUser(ds);
      const sended = await makeSended(ds, user.id);

      const response = await request(t.url).get(`/api/sended/${sended.id}/`);

      expect(response.status).toBe(401);
      expect(response.body).toMatchObject({ error: 1, response: null });
    });

    it('answers the entry exactly as get_entries lists it, medias included', async () => {
      const { user, apiKey } = await makeUser(ds);
      const media = await makeMedia(ds, user.id);
      const sended = await makeSended(ds, user.id, {
        status: 'failed',
        error: 'refused',
        mediaIds: [media.id],
      });

      const response = await api(t, apiKey).get(`/api/sended/${sended.id}`);

      const entry = await listed('sended', apiKey, sended.id);
      expectSuccess(response, 200, entry);
      expect(entry).toMatchObject({
        id: sended.id,
        status: 'failed',
        error: 'refused',
        medias: [{ id: media.id, id_user: user.id, path: media.path }],
      });
    });

    it("answers another user's entry exactly like a nonexistent one: 404 INVALID_PARAMETER", async () => {
      const { apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const foreign = await makeSended(ds, other.user.id);
      const missing = foreign.id + 100_000;

      const responses = [
        await api(t, apiKey).get(`/api/sended/${foreign.id}/`),
        await api(t, apiKey).get(`/api/sended/${missing}/`),
      ];

      responses.forEach((response, index) =>
        expectError(
          response,
          404,
          INVALID_PARAMETER,
          `${INVALID}id : ${[foreign.id, missing][index]} is not the id of one of your sent messages.`,
        ),
      );
    });

    it.each(MALFORMED_IDS)('refuses the id %p with 400 INVALID_PARAMETER naming id', async (id) => {
      const { apiKey } = await makeUser(ds);

      const response = await api(t, apiKey).get(`/api/sended/${id}/`);

      expectError(
        response,
        400,
        INVALID_PARAMETER,
        /^You have specified an invalid parameter : id must be a non-negative integer/,
      );
    });
  });

  describe('delete_sended (DELETE /api/sended/{id}/)', () => {
    it('answers 401 without an API key and deletes nothing', async () => {
      const { user } = await makeUser(ds);
      const sended = await makeSended(ds, user.id);

      const response = await request(t.url).delete(`/api/sended/${sended.id}/`);

      expect(response.status).toBe(401);
      expect(await ds.getRepository(Sended).countBy({ id: sended.id })).toBe(1);
    });

    it('deletes the entry with its media links, and the media and its file that nothing else uses', async () => {
      const { user, apiKey } = await makeUser(ds);
      const { media, file } = await mediaWithFile(user.id);
      const sended = await makeSended(ds, user.id, { mediaIds: [media.id] });

      const response = await api(t, apiKey).delete(`/api/sended/${sended.id}/`);

      expectSuccess(response, 200, true);
      expect(await ds.getRepository(Sended).countBy({ id: sended.id })).toBe(0);
      expect(
        await countRows(ds, 'SELECT COUNT(*) AS n FROM media_sended WHERE id_sended = ?', [
          sended.id,
        ]),
      ).toBe(0);
      expect(await mediaRows(media.id)).toBe(0);
      expect(existsSync(file)).toBe(false);
    });

    it('keeps a media that another entry links or that the outbox still carries', async () => {
      const { user, apiKey } = await makeUser(ds);
      const shared = await mediaWithFile(user.id);
      const queued = await mediaWithFile(user.id);
      const first = await makeSended(ds, user.id, { mediaIds: [shared.media.id] });
      const second = await makeSended(ds, user.id, { mediaIds: [shared.media.id] });
      const third = await makeSended(ds, user.id, { mediaIds: [queued.media.id] });
      await ds.query(
        'INSERT INTO outbox (id_user, originating_scheduled, destination, text, flash, mms, ' +
          'media_ids, attempts, next_attempt_at, created_at) VALUES (?, ?, ?, ?, 0, 1, ?, 0, ?, ?)',
        [user.id, 999_999, '+33612345670', 'x', JSON.stringify([queued.media.id]), DUE, DUE],
      );

      expectSuccess(await api(t, apiKey).delete(`/api/sended/${first.id}/`), 200, true);
      expectSuccess(await api(t, apiKey).delete(`/api/sended/${third.id}/`), 200, true);

      expect(await mediaRows(shared.media.id)).toBe(1);
      expect(existsSync(shared.file)).toBe(true);
      expect(await mediaRows(queued.media.id)).toBe(1);
      expect(existsSync(queued.file)).toBe(true);
      await ds.query('DELETE FROM outbox WHERE originating_scheduled = ?', [999_999]);

      expectSuccess(await api(t, apiKey).delete(`/api/sended/${second.id}/`), 200, true);
      expect(await mediaRows(shared.media.id)).toBe(0);
      expect(existsSync(shared.file)).toBe(false);
    });

    it("answers another user's entry like a nonexistent one, 404 CANNOT_DELETE, and keeps it", async () => {
      const { apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const foreign = await makeSended(ds, other.user.id);
      const missing = foreign.id + 100_000;

      for (const id of [foreign.id, missing]) {
        expectError(
          await api(t, apiKey).delete(`/api/sended/${id}/`),
          404,
          CANNOT_DELETE,
          `${NOT_DELETED}id : ${id} is not the id of one of your sent messages.`,
        );
      }
      expect(await ds.getRepository(Sended).countBy({ id: foreign.id })).toBe(1);
    });

    it('answers a second delete of the same entry with 404 CANNOT_DELETE', async () => {
      const { user, apiKey } = await makeUser(ds);
      const sended = await makeSended(ds, user.id);

      const [a, b] = await Promise.all([
        api(t, apiKey).delete(`/api/sended/${sended.id}/`),
        api(t, apiKey).delete(`/api/sended/${sended.id}/`),
      ]);

      expect([a.status, b.status].sort()).toEqual([200, 404]);
    });

    it.each(MALFORMED_IDS)('refuses the id %p with 400 INVALID_PARAMETER naming id', async (id) => {
      const { user, apiKey } = await makeUser(ds);
      await makeSended(ds, user.id);
      const before = await countRows(ds, 'SELECT COUNT(*) AS n FROM sended WHERE id_user = ?', [
        user.id,
      ]);

      const response = await api(t, apiKey).delete(`/api/sended/${id}/`);

      expectError(
        response,
        400,
        INVALID_PARAMETER,
        /^You have specified an invalid parameter : id must be a non-negative integer/,
      );
      expect(
        await countRows(ds, 'SELECT COUNT(*) AS n FROM sended WHERE id_user = ?', [user.id]),
      ).toBe(before);
    });
  });

  describe('get_received (GET /api/received/{id}/)', () => {
    it('answers 401 without an API key', async () => {
      const { user } = await makeUser(ds);
      const received = await makeReceived(ds, user.id);

      expect((await request(t.url).get(`/api/received/${received.id}/`)).status).toBe(401);
    });

    it('answers the entry exactly as get_entries lists it', async () => {
      const { user, apiKey } = await makeUser(ds);
      const media = await makeMedia(ds, user.id);
      const received = await makeReceived(ds, user.id, { mediaIds: [media.id], mms: 1 });

      const response = await api(t, apiKey).get(`/api/received/${received.id}/`);

      expectSuccess(response, 200, await listed('received', apiKey, received.id));
      expect((response.body as { response: Entry }).response).toMatchObject({
        status: 'unread',
        medias: [{ id: media.id }],
      });
    });

    it("answers another user's entry like a nonexistent one: 404 INVALID_PARAMETER", async () => {
      const { apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const foreign = await makeReceived(ds, other.user.id);

      for (const id of [foreign.id, foreign.id + 100_000]) {
        expectError(
          await api(t, apiKey).get(`/api/received/${id}/`),
          404,
          INVALID_PARAMETER,
          `${INVALID}id : ${id} is not the id of one of your received messages.`,
        );
      }
    });

    it.each(MALFORMED_IDS)('refuses the id %p with 400 INVALID_PARAMETER naming id', async (id) => {
      const { apiKey } = await makeUser(ds);

      expectError(
        await api(t, apiKey).get(`/api/received/${id}/`),
        400,
        INVALID_PARAMETER,
        /: id must be/,
      );
    });
  });

  describe('post_update_received (POST /api/received/{id}/)', () => {
    it('answers 401 without an API key and changes nothing', async () => {
      const { user } = await makeUser(ds);
      const received = await makeReceived(ds, user.id);

      const response = await request(t.url)
        .post(`/api/received/${received.id}/`)
        .type('form')
        .send({ status: 'read' });

      expect(response.status).toBe(401);
      expect((await ds.getRepository(Received).findOneByOrFail({ id: received.id })).status).toBe(
        'unread',
      );
    });

    it('marks the entry read, then unread, answering it as listed', async () => {
      const { user, apiKey } = await makeUser(ds);
      const received = await makeReceived(ds, user.id);

      const read = await api(t, apiKey)
        .form(`/api/received/${received.id}/`)
        .send({ status: 'read' });

      expectSuccess(read, 200, await listed('received', apiKey, received.id));
      expect((read.body as { response: Entry }).response).toMatchObject({ status: 'read' });
      expect((read.body as { response: Entry }).response.updated_at).toEqual(expect.any(String));

      const unread = await api(t, apiKey).json(`/api/received/${received.id}/`, {
        status: 'unread',
      });

      expect((unread.body as { response: Entry }).response).toMatchObject({ status: 'unread' });
      expect((await ds.getRepository(Received).findOneByOrFail({ id: received.id })).status).toBe(
        'unread',
      );
    });

    it('succeeds when the status is already the one sent', async () => {
      const { user, apiKey } = await makeUser(ds);
      const received = await makeReceived(ds, user.id, { status: 'read' });

      const response = await api(t, apiKey).form(`/api/received/${received.id}/`).send({
        status: 'read',
      });

      expect(response.status).toBe(200);
    });

    it('refuses a missing status with 400 MISSING_PARAMETER naming status', async () => {
      const { user, apiKey } = await makeUser(ds);
      const received = await makeReceived(ds, user.id);

      expectError(
        await api(t, apiKey).form(`/api/received/${received.id}/`).send({}),
        400,
        MISSING_PARAMETER,
        `${MISSING}status : "read" or "unread" is required.`,
      );
    });

    it.each<[string, unknown]>([
      ['another word', 'seen'],
      ['another case', 'READ'],
      ['a list', ['read']],
      ['an object', { value: 'read' }],
      ['a number', 1],
      ['a 10,000-character string', 'r'.repeat(10_000)],
    ])(
      'refuses a status that is %s with 400 INVALID_PARAMETER and changes nothing',
      async (_, status) => {
        const { user, apiKey } = await makeUser(ds);
        const received = await makeReceived(ds, user.id);

        const response = await api(t, apiKey).json(`/api/received/${received.id}/`, { status });

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          `${INVALID}status must be "read" or "unread".`,
        );
        expect((await ds.getRepository(Received).findOneByOrFail({ id: received.id })).status).toBe(
          'unread',
        );
      },
    );

    it('refuses a body that is not JSON with 400 INVALID_PARAMETER', async () => {
      const { user, apiKey } = await makeUser(ds);
      const received = await makeReceived(ds, user.id);

      const response = await api(t, apiKey).json(`/api/received/${received.id}/`, '{"status":');

      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ error: INVALID_PARAMETER, response: null });
    });

    it("answers another user's entry like a nonexistent one, 404 CANNOT_UPDATE, and leaves it unread", async () => {
      const { apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const foreign = await makeReceived(ds, other.user.id);

      for (const id of [foreign.id, foreign.id + 100_000]) {
        expectError(
          await api(t, apiKey).form(`/api/received/${id}/`).send({ status: 'read' }),
          404,
          CANNOT_UPDATE,
          `${NOT_UPDATED}id : ${id} is not the id of one of your received messages.`,
        );
      }
      expect((await ds.getRepository(Received).findOneByOrFail({ id: foreign.id })).status).toBe(
        'unread',
      );
    });

    it.each(MALFORMED_IDS)('refuses the id %p with 400 INVALID_PARAMETER naming id', async (id) => {
      const { apiKey } = await makeUser(ds);

      expectError(
        await api(t, apiKey).form(`/api/received/${id}/`).send({ status: 'read' }),
        400,
        INVALID_PARAMETER,
        /: id must be a non-negative integer/,
      );
    });
  });

  describe('delete_received (DELETE /api/received/{id}/)', () => {
    it('answers 401 without an API key', async () => {
      const { user } = await makeUser(ds);
      const received = await makeReceived(ds, user.id);

      expect((await request(t.url).delete(`/api/received/${received.id}/`)).status).toBe(401);
      expect(await ds.getRepository(Received).countBy({ id: received.id })).toBe(1);
    });

    it('deletes the entry with its media links and its unused media, file included', async () => {
      const { user, apiKey } = await makeUser(ds);
      const { media, file } = await mediaWithFile(user.id);
      const received = await makeReceived(ds, user.id, { mediaIds: [media.id] });

      expectSuccess(await api(t, apiKey).delete(`/api/received/${received.id}/`), 200, true);

      expect(await ds.getRepository(Received).countBy({ id: received.id })).toBe(0);
      expect(await mediaRows(media.id)).toBe(0);
      expect(existsSync(file)).toBe(false);
    });

    it("answers another user's entry like a nonexistent one, 404 CANNOT_DELETE, and keeps it", async () => {
      const { apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const foreign = await makeReceived(ds, other.user.id);

      for (const id of [foreign.id, foreign.id + 100_000]) {
        expectError(
          await api(t, apiKey).delete(`/api/received/${id}/`),
          404,
          CANNOT_DELETE,
          `${NOT_DELETED}id : ${id} is not the id of one of your received messages.`,
        );
      }
      expect(await ds.getRepository(Received).countBy({ id: foreign.id })).toBe(1);
    });

    it.each(MALFORMED_IDS)('refuses the id %p with 400 INVALID_PARAMETER naming id', async (id) => {
      const { apiKey } = await makeUser(ds);

      expectError(
        await api(t, apiKey).delete(`/api/received/${id}/`),
        400,
        INVALID_PARAMETER,
        /: id must be/,
      );
    });
  });

  describe('get_scheduled (GET /api/scheduled/{id}/)', () => {
    it('answers 401 without an API key', async () => {
      const { user } = await makeUser(ds);
      const scheduled = await makeScheduled(ds, user.id);

      expect((await request(t.url).get(`/api/scheduled/${scheduled.id}/`)).status).toBe(401);
    });

    it('answers the message exactly as get_entries lists it, with its recipients', async () => {
      const { user, apiKey } = await makeUser(ds);
      const contact = await makeContact(ds, user.id);
      const group = await makeGroup(ds, user.id, [contact.id]);
      const scheduled = await makeScheduled(ds, user.id, {
        numbers: [{ number: '+33612345678', data: '{"a":1}' }],
        contactIds: [contact.id],
        groupIds: [group.id],
      });

      const response = await api(t, apiKey).get(`/api/scheduled/${scheduled.id}/`);

      expectSuccess(response, 200, await listed('scheduled', apiKey, scheduled.id));
      expect((response.body as { response: Entry }).response).toMatchObject({
        numbers: [{ number: '+33612345678', data: '{"a":1}' }],
        contacts: [{ id: contact.id }],
        groups: [{ id: group.id }],
        conditional_groups: [],
        medias: [],
      });
    });

    it("answers another user's message like a nonexistent one: 404 INVALID_PARAMETER", async () => {
      const { apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const foreign = await makeScheduled(ds, other.user.id);

      for (const id of [foreign.id, foreign.id + 100_000]) {
        expectError(
          await api(t, apiKey).get(`/api/scheduled/${id}/`),
          404,
          INVALID_PARAMETER,
          `${INVALID}id : ${id} is not the id of one of your scheduled messages.`,
        );
      }
    });

    it.each(MALFORMED_IDS)('refuses the id %p with 400 INVALID_PARAMETER naming id', async (id) => {
      const { apiKey } = await makeUser(ds);

      expectError(
        await api(t, apiKey).get(`/api/scheduled/${id}/`),
        400,
        INVALID_PARAMETER,
        /: id must be/,
      );
    });
  });

  describe('post_update_scheduled (POST /api/scheduled/{id}/)', () => {
    const LATER = '2999-01-01 00:00:00';

    /** A pending message with a phone, two numbers, a contact, a group and a medium. */
    const pending = async () => {
      const owner = await makeUser(ds);
      const userId = owner.user.id;
      const phone = await makePhone(ds, userId);
      const contact = await makeContact(ds, userId);
      const group = await makeGroup(ds, userId, [contact.id]);
      const media = await makeMedia(ds, userId);
      const scheduled = await makeScheduled(ds, userId, {
        at: LATER,
        text: 'Old text',
        tag: 'old',
        id_phone: phone.id,
        numbers: [{ number: '+33612345678' }, { number: '+33612345679', data: '{"n":2}' }],
        contactIds: [contact.id],
        groupIds: [group.id],
        mediaIds: [media.id],
        mms: 1,
      });
      return { ...owner, phone, contact, group, media, scheduled };
    };

    it('answers 401 without an API key and changes nothing', async () => {
      const { scheduled } = await pending();
      const before = await storedScheduled(ds, scheduled.id);

      const response = await request(t.url)
        .post(`/api/scheduled/${scheduled.id}/`)
        .type('form')
        .send({ text: 'New' });

      expect(response.status).toBe(401);
      expect(await storedScheduled(ds, scheduled.id)).toEqual(before);
    });

    it('changes the fields sent, keeps the others, and answers the message as listed', async () => {
      const { apiKey, scheduled, contact, group, media, phone } = await pending();

      const response = await api(t, apiKey).form(`/api/scheduled/${scheduled.id}/`).send({
        text: 'New text',
        at: '2998-05-06 07:08:09',
        tag: 'new',
        flash: '1',
      });

      expectSuccess(response, 200, await listed('scheduled', apiKey, scheduled.id));
      expect((response.body as { response: Entry }).response).toMatchObject({
        text: 'New text',
        at: '2998-05-06 07:08:09',
        tag: 'new',
        flash: 1,
        mms: 1,
        id_phone: phone.id,
        numbers: [
          { number: '+33612345678', data: '[]' },
          { number: '+33612345679', data: '{"n":2}' },
        ],
        contacts: [{ id: contact.id }],
        groups: [{ id: group.id }],
        medias: [{ id: media.id }],
      });
      expect((response.body as { response: Entry }).response.updated_at).toEqual(
        expect.any(String),
      );
    });

    it('replaces each list sent, empties one sent empty, and keeps the lists not sent', async () => {
      const { user, apiKey, scheduled, group } = await pending();
      const other = await makeContact(ds, user.id, { number: '+33612345670' });
      const conditional = await makeConditionalGroup(ds, user.id);

      const response = await api(t, apiKey).json(`/api/scheduled/${scheduled.id}/`, {
        numbers: ['+33611111111', { number: '+33622222222', data: { first: 'Ann' } }, 'bogus'],
        contacts: [other.id, other.id],
        conditional_groups: [conditional.id],
      });

      expect(response.status).toBe(200);
      const stored = await storedScheduled(ds, scheduled.id);
      expect(stored).toMatchObject({
        numbers: [
          { number: '+33611111111', data: '[]' },
          { number: '+33622222222', data: '{"first":"Ann"}' },
        ],
        contactIds: [other.id],
        groupIds: [group.id],
        conditionalGroupIds: [conditional.id],
      });

      await api(t, apiKey).form(`/api/scheduled/${scheduled.id}/`).send('contacts=&groups=');
      expect(await storedScheduled(ds, scheduled.id)).toMatchObject({
        contactIds: [],
        groupIds: [],
        conditionalGroupIds: [conditional.id],
      });
    });

    it('moves the message from its phone to a phone group when id_phone is sent empty with it, and back', async () => {
      const { user, apiKey, scheduled, phone } = await pending();
      const phoneGroup = await makePhoneGroup(ds, user.id);

      const toGroup = await api(t, apiKey)
        .form(`/api/scheduled/${scheduled.id}/`)
        .send({
          id_phone: '',
          id_phone_group: String(phoneGroup.id),
        });
      expectSuccess(toGroup, 200, await listed('scheduled', apiKey, scheduled.id));
      expect((toGroup.body as { response: Entry }).response).toMatchObject({
        id_phone: null,
        id_phone_group: phoneGroup.id,
      });

      const toPhone = await api(t, apiKey).json(`/api/scheduled/${scheduled.id}/`, {
        id_phone: phone.id,
        id_phone_group: null,
      });
      expect((toPhone.body as { response: Entry }).response).toMatchObject({
        id_phone: phone.id,
        id_phone_group: null,
      });

      const cleared = await api(t, apiKey)
        .form(`/api/scheduled/${scheduled.id}/`)
        .send('id_phone=');
      expect((cleared.body as { response: Entry }).response).toMatchObject({
        id_phone: null,
        id_phone_group: null,
      });
    });

    it('refuses a phone group sent alone on a message with a phone (rule 9 on the merged message), naming id_phone, and changes nothing', async () => {
      const { user, apiKey, scheduled, phone } = await pending();
      const phoneGroup = await makePhoneGroup(ds, user.id);
      const before = await storedScheduled(ds, scheduled.id);

      const response = await api(t, apiKey)
        .form(`/api/scheduled/${scheduled.id}/`)
        .send({
          text: 'New',
          id_phone_group: String(phoneGroup.id),
        });

      expectError(
        response,
        400,
        INVALID_PARAMETER,
        `${INVALID}id_phone : this message is sent through the phone ${phone.id}, and a message ` +
          `names a phone or a phone group, not both; send id_phone= (empty) with ` +
          `id_phone_group=${phoneGroup.id} to send it through that phone group instead.`,
      );
      expect(await storedScheduled(ds, scheduled.id)).toEqual(before);
    });

    it('refuses a phone sent alone on a message with a phone group, telling to empty id_phone_group, and changes nothing', async () => {
      const { user, apiKey, phone } = await pending();
      const phoneGroup = await makePhoneGroup(ds, user.id);
      const scheduled = await makeScheduled(ds, user.id, {
        at: LATER,
        id_phone_group: phoneGroup.id,
        numbers: [{ number: '+33612345678' }],
      });
      const before = await storedScheduled(ds, scheduled.id);

      const response = await api(t, apiKey).json(`/api/scheduled/${scheduled.id}/`, {
        id_phone: phone.id,
      });

      expectError(
        response,
        400,
        INVALID_PARAMETER,
        `${INVALID}id_phone : this message is sent through the phone group ${phoneGroup.id}, and ` +
          `a message names a phone or a phone group, not both; send id_phone_group= (empty) ` +
          `with id_phone=${phone.id} to send it through that phone instead.`,
      );
      expect(await storedScheduled(ds, scheduled.id)).toEqual(before);
    });

    it('succeeds with nothing to change, the message as it was', async () => {
      const { apiKey, scheduled } = await pending();
      const before = await storedScheduled(ds, scheduled.id);

      const response = await api(t, apiKey).form(`/api/scheduled/${scheduled.id}/`).send({});

      expect(response.status).toBe(200);
      const after = await storedScheduled(ds, scheduled.id);
      expect({ ...after, scheduled: { ...after.scheduled, updated_at: null } }).toEqual({
        ...before,
        scheduled: { ...before.scheduled, updated_at: null },
      });
    });

    it('reads at and dates in the service time zone', async () => {
      const zoned = await startApp(database(), { TZ: 'Europe/Paris' });
      try {
        const { apiKey, scheduled } = await pending();

        const response = await api(zoned, apiKey)
          .form(`/api/scheduled/${scheduled.id}/`)
          .send({ at: '2998-07-01 12:00:00' });

        expect((response.body as { response: Entry }).response.at).toBe('2998-07-01 12:00:00');
        expect((await storedScheduled(ds, scheduled.id)).scheduled?.at).toBe('2998-07-01 10:00:00');
      } finally {
        await zoned.close();
      }
    });

    describe("post_scheduled's rules on the merged message", () => {
      it.each<[string, Record<string, unknown> | string, number, string | RegExp]>([
        [
          'text empty (rule 1)',
          { text: '' },
          MISSING_PARAMETER,
          `${MISSING}text : the text of the message is required.`,
        ],
        [
          'text a list (rule 2)',
          { text: ['a', 'b'] },
          INVALID_PARAMETER,
          `${INVALID}text must be a string.`,
        ],
        [
          'text an object (rule 2)',
          { text: { a: 1 } },
          INVALID_PARAMETER,
          `${INVALID}text must be a string.`,
        ],
        [
          'at a list (rule 2)',
          { at: ['2999-01-01 00:00:00'] },
          INVALID_PARAMETER,
          `${INVALID}at must be a string.`,
        ],
        [
          'text of 1001 characters (rule 3)',
          { text: 'é'.repeat(1001) },
          INVALID_PARAMETER,
          `${INVALID}text must be at most 1000 characters long, got 1001.`,
        ],
        [
          'text of 10,000 characters (rule 3)',
          { text: 'x'.repeat(10_000) },
          INVALID_PARAMETER,
          /^You have specified an invalid parameter : text must be at most 1000/,
        ],
        [
          'text a template that does not compile, with templating on (rule 3)',
          { text: 'Hi {{ contact.name ' },
          INVALID_PARAMETER,
          `${INVALID}text : The template does not compile: Unable to find closing bracket '}}' opened at line 1, column 4.`,
        ],
        [
          'at not a date (rule 4)',
          { at: '2024-02-30 00:00:00' },
          INVALID_PARAMETER,
          /^You have specified an invalid parameter : at must be a date of format/,
        ],
        [
          'at a date without time (rule 4)',
          { at: '2024-02-03' },
          INVALID_PARAMETER,
          /: at must be a date/,
        ],
        ['flash not a boolean', { flash: 'maybe' }, INVALID_PARAMETER, /: flash must be a boolean/],
        ['mms a list', { mms: ['1'] }, INVALID_PARAMETER, /: mms must be a boolean/],
        ['tag an object', { tag: { a: 1 } }, INVALID_PARAMETER, `${INVALID}tag must be a string.`],
        [
          'tag of 10,000 characters',
          { tag: 't'.repeat(10_000) },
          INVALID_PARAMETER,
          `${INVALID}tag must be at most 1000 characters long.`,
        ],
        [
          'number data not JSON (rule 7)',
          { numbers: [{ number: '+33611111111', data: '{bad' }] },
          INVALID_PARAMETER,
          /: numbers\[0\]\[data\] must be valid JSON/,
        ],
        [
          'a contact id negative (rule 7)',
          { contacts: ['-1'] },
          INVALID_PARAMETER,
          /: contacts\[0\] must be a non-negative integer/,
        ],
        [
          'a group id a float (rule 7)',
          { groups: [1.5] },
          INVALID_PARAMETER,
          /: groups\[0\] must be a non-negative integer/,
        ],
        [
          'a conditional group id huge (rule 7)',
          { conditional_groups: ['99999999999'] },
          INVALID_PARAMETER,
          /: conditional_groups\[0\] must be a non-negative integer/,
        ],
        [
          'no recipient left (rule 8)',
          { numbers: [], contacts: [], groups: [] },
          MISSING_PARAMETER,
          /^One require parameter is missing : numbers, contacts, groups, conditional_groups/,
        ],
        [
          'only invalid numbers left (rule 8)',
          { numbers: ['bogus'], contacts: '', groups: '' },
          MISSING_PARAMETER,
          /: numbers, contacts, groups, conditional_groups/,
        ],
        [
          'id_phone and id_phone_group (rule 9)',
          { id_phone: 1, id_phone_group: 2 },
          INVALID_PARAMETER,
          /: id_phone, id_phone_group : You must specify at most one/,
        ],
        [
          'id_phone negative',
          { id_phone: '-1' },
          INVALID_PARAMETER,
          /: id_phone must be a non-negative integer/,
        ],
        [
          'id_phone a list',
          { id_phone: [1, 2] },
          INVALID_PARAMETER,
          /: id_phone must be a non-negative integer, got a list/,
        ],
        [
          'id_phone_group an object',
          { id_phone_group: { a: 1 } },
          INVALID_PARAMETER,
          /: id_phone_group must be a non-negative integer, got an object/,
        ],
        [
          'medias sent',
          { medias: 'x' },
          INVALID_PARAMETER,
          /^You have specified an invalid parameter : medias : an update cannot change the medias/,
        ],
        [
          'numbers_csv sent',
          { numbers_csv: 'x' },
          INVALID_PARAMETER,
          /: numbers_csv : an update cannot/,
        ],
        [
          'a body that is not JSON',
          '{"text":',
          INVALID_PARAMETER,
          /^You have specified an invalid parameter/,
        ],
      ])('refuses %s with the envelope and changes nothing', async (_, body, code, message) => {
        const { apiKey, scheduled } = await pending();
        const before = await storedScheduled(ds, scheduled.id);

        const response = await api(t, apiKey).json(`/api/scheduled/${scheduled.id}/`, body);

        expectError(
          response,
          code === MISSING_PARAMETER || code === INVALID_PARAMETER ? 400 : 404,
          code,
          message,
        );
        expect(await storedScheduled(ds, scheduled.id)).toEqual(before);
      });

      it('refuses mms while the setting mms is off (rule 5), on the stored mms too', async () => {
        const { user, apiKey, scheduled } = await pending();
        await ds.query("UPDATE setting SET value = '0' WHERE id_user = ? AND name = 'mms'", [
          user.id,
        ]);
        const before = await storedScheduled(ds, scheduled.id);

        const response = await api(t, apiKey)
          .form(`/api/scheduled/${scheduled.id}/`)
          .send({ text: 'x' });

        expectError(response, 400, INVALID_PARAMETER, /: mms is set to true, but MMS are disabled/);
        expect(await storedScheduled(ds, scheduled.id)).toEqual(before);
        const withoutMms = await api(t, apiKey)
          .form(`/api/scheduled/${scheduled.id}/`)
          .send({ mms: '0' });
        expect((withoutMms.body as { response: Entry }).response).toMatchObject({ mms: 0 });
      });

      it("refuses another user's contacts, groups, conditional groups, phone and phone group, naming them (rules 7 and 10)", async () => {
        const { apiKey, scheduled } = await pending();
        const other = (await makeUser(ds)).user.id;
        const contact = await makeContact(ds, other);
        const group = await makeGroup(ds, other);
        const conditional = await makeConditionalGroup(ds, other);
        const phone = await makePhone(ds, other);
        const phoneGroup = await makePhoneGroup(ds, other);
        const before = await storedScheduled(ds, scheduled.id);

        const cases: Array<[Record<string, unknown>, string]> = [
          [
            { contacts: [contact.id] },
            `contacts : ${contact.id} is not the id of one of your contacts.`,
          ],
          [{ groups: [group.id] }, `groups : ${group.id} is not the id of one of your groups.`],
          [
            { conditional_groups: [conditional.id] },
            `conditional_groups : ${conditional.id} is not the id of one of your conditional groups.`,
          ],
          [{ id_phone: phone.id }, `id_phone : ${phone.id} is not the id of one of your phones.`],
          [
            { id_phone: '', id_phone_group: phoneGroup.id },
            `id_phone_group : ${phoneGroup.id} is not the id of one of your phone groups.`,
          ],
        ];
        for (const [body, message] of cases) {
          expectError(
            await api(t, apiKey).json(`/api/scheduled/${scheduled.id}/`, body),
            400,
            INVALID_PARAMETER,
            INVALID + message,
          );
        }
        expect(await storedScheduled(ds, scheduled.id)).toEqual(before);
      });

      it('refuses medias sent as a file part, naming medias', async () => {
        const { apiKey, scheduled } = await pending();

        const response = await api(t, apiKey)
          .post(`/api/scheduled/${scheduled.id}/`)
          .attach('medias[]', Buffer.from('png'), 'a.png')
          .attach('numbers_csv', Buffer.from('number\n+33611111111\n'), 'n.csv');

        expectError(
          response,
          400,
          INVALID_PARAMETER,
          /^You have specified an invalid parameter : medias, numbers_csv : /,
        );
      });
    });

    describe('a message the dispatch has taken, or not the caller’s', () => {
      it('answers a message being expanded in chunks with 404 CANNOT_UPDATE and changes nothing', async () => {
        const { apiKey, scheduled } = await pending();
        await ds.query(
          "UPDATE scheduled SET expansion_phase = 'contacts', expansion_link = 0, expansion_after = 0 WHERE id = ?",
          [scheduled.id],
        );
        const before = await storedScheduled(ds, scheduled.id);

        const response = await api(t, apiKey).form(`/api/scheduled/${scheduled.id}/`).send({
          text: 'New',
        });

        expectError(
          response,
          404,
          CANNOT_UPDATE,
          `${NOT_UPDATED}id : ${scheduled.id} is not the id of one of your scheduled messages waiting to be sent.`,
        );
        expect(await storedScheduled(ds, scheduled.id)).toEqual(before);
      });

      it("answers another user's message exactly like a nonexistent one, 404 CANNOT_UPDATE, and changes nothing", async () => {
        const { apiKey } = await makeUser(ds);
        const { scheduled } = await pending();
        const before = await storedScheduled(ds, scheduled.id);
        const missing = scheduled.id + 100_000;

        for (const id of [scheduled.id, missing]) {
          expectError(
            await api(t, apiKey).form(`/api/scheduled/${id}/`).send({
              text: 'Hijacked',
              numbers: '+33611111111',
            }),
            404,
            CANNOT_UPDATE,
            `${NOT_UPDATED}id : ${id} is not the id of one of your scheduled messages waiting to be sent.`,
          );
        }
        expect(await storedScheduled(ds, scheduled.id)).toEqual(before);
      });

      it.each(MALFORMED_IDS)(
        'refuses the id %p with 400 INVALID_PARAMETER naming id',
        async (id) => {
          const { apiKey } = await makeUser(ds);

          expectError(
            await api(t, apiKey).form(`/api/scheduled/${id}/`).send({ text: 'x' }),
            400,
            INVALID_PARAMETER,
            /: id must be a non-negative integer/,
          );
        },
      );
    });
  });
});
