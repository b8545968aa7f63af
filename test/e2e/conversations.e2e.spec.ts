import request from 'supertest';
import { DataSource } from 'typeorm';
import { Received } from '../../src/received/entities/received.entity';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import {
  expectError,
  expectSuccess,
  INVALID,
  INVALID_CREDENTIALS,
  INVALID_PARAMETER,
  MISSING,
  MISSING_PARAMETER,
} from '../support/envelope';
import { insertRows, makeContact, makeReceived, makeSended, makeUser } from '../support/factories';

/*
 * get_conversations, get_conversation and post_conversation_read (docs/api.md#conversations),
 * over real HTTP on every engine. Messages are inserted with chosen UTC `at` values; the service
 * time zone is UTC, so the answers show them as they are.
 */

type Conversation = {
  number: string;
  contact: { id: number; name: string } | null;
  last_at: string;
  last_text: string;
  last_direction: 'sent' | 'received';
  unread: number;
};
type Message = { direction: string; id: number; at: string; text: string; status: string };

const BAD_NUMBER = (value: string) =>
  `${INVALID}number must be a valid phone number, or the sender of a message you received, ` +
  `got ${JSON.stringify(value)}.`;
const BAD_CURSOR =
  `${INVALID}before must be a cursor as a \`next\` link of this operation gives it; leave it ` +
  'out for the newest page.';

/** `+336000000NN`: distinct valid French mobile numbers. */
const numberOf = (index: number) => `+3361000${String(index).padStart(4, '0')}`;
/** A UTC time `minutes` after 2026-01-01 10:00. */
const at = (minutes: number) => {
  const date = new Date(Date.UTC(2026, 0, 1, 10, minutes));
  return date.toISOString().slice(0, 19).replace('T', ' ');
};

describeEachDatabase('conversations', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database());
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  const list = (apiKey: string, query: Record<string, string> = {}) =>
    api(t, apiKey, 'query').get('/api/conversation/', query);
  const thread = (apiKey: string, number: string, query: Record<string, string> = {}) =>
    api(t, apiKey, 'query').get(`/api/conversation/${encodeURIComponent(number)}/`, query);
  const markRead = (apiKey: string, number: string) =>
    api(t, apiKey).post(`/api/conversation/${encodeURIComponent(number)}/read/`);
  /** The `before` a `next` link carries. */
  const beforeOf = (next: string) => new URL(next).searchParams.get('before') ?? '';

  describe('get_conversations', () => {
    it('lists numbers newest first, with the contact, the newest message and the unread count', async () => {
      const { user, apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const contact = await makeContact(ds, user.id, { name: 'Ada', number: numberOf(1) });
      await makeSended(ds, user.id, { destination: numberOf(1), at: at(1), text: 'Hello Ada' });
      await makeReceived(ds, user.id, { origin: numberOf(1), at: at(2), text: 'Hi!' });
      await makeReceived(ds, user.id, { origin: numberOf(1), at: at(3), text: 'Still there?' });
      await makeReceived(ds, user.id, {
        origin: numberOf(2),
        at: at(4),
        text: 'Read already',
        status: 'read',
      });
      await makeSended(ds, user.id, { destination: numberOf(3), at: at(5), text: 'Last one' });
      // Another user's messages with the same numbers, and a newer one, stay theirs.
      await makeContact(ds, other.user.id, { name: 'Not yours', number: numberOf(3) });
      await makeReceived(ds, other.user.id, { origin: numberOf(1), at: at(9) });
      await makeSended(ds, other.user.id, { destination: numberOf(4), at: at(9) });

      expectSuccess(await list(apiKey), 200, [
        {
          number: numberOf(3),
          contact: null,
          last_at: at(5),
          last_text: 'Last one',
          last_direction: 'sent',
          unread: 0,
        },
        {
          number: numberOf(2),
          contact: null,
          last_at: at(4),
          last_text: 'Read already',
          last_direction: 'received',
          unread: 0,
        },
        {
          number: numberOf(1),
          contact: { id: contact.id, name: 'Ada' },
          last_at: at(3),
          last_text: 'Still there?',
          last_direction: 'received',
          unread: 2,
        },
      ]);
    });

    it('answers an empty list to a user without messages', async () => {
      const { apiKey } = await makeUser(ds);

      expectSuccess(await list(apiKey), 200, []);
    });

    it('pages 25 at a time with a next link, every conversation once, ties in one order', async () => {
      const { user, apiKey } = await makeUser(ds);
      // 30 numbers, three to a second, sent and received alternately; number 0 also has an old
      // message far below, which must not bring it back on the second page.
      for (let index = 0; index < 30; index += 1) {
        const fields = { at: at(Math.floor(index / 3)), text: `message ${index}` };
        if (index % 2 === 0) {
          await makeSended(ds, user.id, { ...fields, destination: numberOf(index) });
        } else {
          await makeReceived(ds, user.id, { ...fields, origin: numberOf(index) });
        }
      }
      await makeReceived(ds, user.id, { origin: numberOf(0), at: '2025-01-01 00:00:00' });

      const first = await list(apiKey);
      expect(first.status).toBe(200);
      const firstPage = first.body.response as Conversation[];
      expect(firstPage).toHaveLength(25);
      expect(first.body.next).toEqual(expect.stringContaining('/api/conversation/?before='));
      expect(first.body.next).toEqual(expect.stringContaining(`api_key=${apiKey}`));
      const second = await list(apiKey, { before: beforeOf(first.body.next as string) });
      expectSuccess(second, 200, expect.any(Array));
      const numbers = [...firstPage, ...(second.body.response as Conversation[])].map(
        (conversation) => conversation.number,
      );
      // Newest second first; within a second, numbers descending.
      const expected = Array.from({ length: 30 }, (_, index) => index).sort(
        (a, b) => Math.floor(b / 3) - Math.floor(a / 3) || b - a,
      );
      expect(numbers).toEqual(expected.map(numberOf));
    });

    it('walks past a conversation of many messages in one second, across pages', async () => {
      const { user, apiKey } = await makeUser(ds);
      const busy = numberOf(999);
      // More messages of one second than a walk reads at once.
      await insertRows(
        ds,
        'sended',
        [
          'id_user',
          'at',
          'text',
          'destination',
          'flash',
          'mms',
          'status',
          'adapter',
          'segments',
          'encoding',
          'created_at',
        ],
        Array.from({ length: 150 }, () => [
          user.id,
          at(100),
          'Campaign',
          busy,
          0,
          0,
          'unknown',
          'test',
          1,
          'GSM-7',
          at(100),
        ]),
      );
      for (let index = 0; index < 40; index += 1) {
        await makeSended(ds, user.id, { destination: numberOf(index), at: at(index) });
        if (index < 10) {
          await makeReceived(ds, user.id, { origin: numberOf(index), at: at(50 + index) });
        }
      }

      const numbers: string[] = [];
      let response = await list(apiKey);
      numbers.push(...(response.body.response as Conversation[]).map((item) => item.number));
      while (response.body.next !== null) {
        response = await list(apiKey, { before: beforeOf(response.body.next as string) });
        numbers.push(...(response.body.response as Conversation[]).map((item) => item.number));
      }
      const replied = Array.from({ length: 10 }, (_, index) => 9 - index);
      const others = Array.from({ length: 30 }, (_, index) => 39 - index);
      expect(numbers).toEqual([busy, ...[...replied, ...others].map(numberOf)]);
    });

    it('refuses a before that is not a cursor it gave', async () => {
      const { apiKey } = await makeUser(ds);

      for (const before of ['yesterday', Buffer.from('2026-01-01|x').toString('base64url')]) {
        expectError(await list(apiKey, { before }), 400, INVALID_PARAMETER, BAD_CURSOR);
      }
    });

    it('answers 401 without a key', async () => {
      const response = await request(t.url).get('/api/conversation/');

      expect(response.status).toBe(401);
      expect(response.body.error).toBe(INVALID_CREDENTIALS);
    });
  });

  describe('get_conversation', () => {
    it('answers the messages with a number in time order, sent and received', async () => {
      const { user, apiKey } = await makeUser(ds, { settings: { default_phone_country: 'fr' } });
      const other = await makeUser(ds);
      const hello = await makeSended(ds, user.id, {
        destination: '+33612345678',
        at: at(1),
        text: 'Hello',
        status: 'delivered',
      });
      const answer = await makeReceived(ds, user.id, {
        origin: '+33612345678',
        at: at(2),
        text: 'Hi',
      });
      // The same second as the answer: a sent message comes after a received one.
      const again = await makeSended(ds, user.id, {
        destination: '+33612345678',
        at: at(2),
        text: 'Again',
      });
      await makeSended(ds, user.id, { destination: '+33699999999', at: at(3) });
      await makeSended(ds, other.user.id, { destination: '+33612345678', at: at(4) });

      const expected = [
        { direction: 'sent', id: hello.id, at: at(1), text: 'Hello', status: 'delivered' },
        { direction: 'received', id: answer.id, at: at(2), text: 'Hi', status: 'unread' },
        { direction: 'sent', id: again.id, at: at(2), text: 'Again', status: 'unknown' },
      ].map((message) => ({ ...message, id_phone: null }));
      expectSuccess(await thread(apiKey, '+33612345678'), 200, expected);
      // A national number of the caller's default country is the same number.
      expectSuccess(await thread(apiKey, '06 12 34 56 78'), 200, expected);
      // Another user sees only their own message with that number.
      const theirs = await thread(other.apiKey, '+33612345678');
      expect((theirs.body.response as Message[]).map((message) => message.at)).toEqual([at(4)]);
    });

    it('pages back 25 messages at a time through next', async () => {
      const { user, apiKey } = await makeUser(ds);
      const number = '+33612345678';
      for (let index = 0; index < 30; index += 1) {
        // Two messages a minute, so that seconds are shared across both tables.
        const fields = { at: at(Math.floor(index / 2)), text: `message ${index}` };
        if (index % 3 === 0) {
          await makeReceived(ds, user.id, { ...fields, origin: number });
        } else {
          await makeSended(ds, user.id, { ...fields, destination: number });
        }
      }

      const first = await thread(apiKey, number);
      expect(first.status).toBe(200);
      expect(first.body.next).toEqual(
        expect.stringContaining(`/api/conversation/${encodeURIComponent(number)}/?before=`),
      );
      const second = await thread(apiKey, number, { before: beforeOf(first.body.next as string) });
      expectSuccess(second, 200, expect.any(Array));
      const texts = [...(second.body.response as Message[]), ...(first.body.response as Message[])]
        .map((message) => message.text)
        .sort((a, b) => Number(a.split(' ')[1]) - Number(b.split(' ')[1]));
      expect(texts).toEqual(Array.from({ length: 30 }, (_, index) => `message ${index}`));
      expect((first.body.response as Message[]).map((message) => message.at)).toEqual(
        [...(first.body.response as Message[]).map((message) => message.at)].sort(),
      );
      expect((second.body.response as Message[]).length).toBe(5);
    });

    it('takes a sender that is not a number only when the caller received from it', async () => {
      const { user, apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const received = await makeReceived(ds, user.id, { origin: 'ACME', at: at(1), text: 'Code' });

      expectSuccess(await thread(apiKey, 'ACME'), 200, [
        {
          direction: 'received',
          id: received.id,
          at: at(1),
          text: 'Code',
          status: 'unread',
          id_phone: null,
        },
      ]);
      expectError(await thread(other.apiKey, 'ACME'), 400, INVALID_PARAMETER, BAD_NUMBER('ACME'));
    });

    it('refuses a number that is neither a number nor a sender, and a bad cursor', async () => {
      const { apiKey } = await makeUser(ds);
      const long = 'not a number, and far too long';

      expectError(await thread(apiKey, long), 400, INVALID_PARAMETER, BAD_NUMBER(long));
      expectError(await thread(apiKey, '12ab'), 400, INVALID_PARAMETER, BAD_NUMBER('12ab'));
      expectError(
        await thread(apiKey, '+33612345678', { before: 'x' }),
        400,
        INVALID_PARAMETER,
        BAD_CURSOR,
      );
      expectError(
        await thread(apiKey, ' '),
        400,
        MISSING_PARAMETER,
        `${MISSING}number is required: the phone number of the conversation.`,
      );
    });

    it('answers an empty thread for a number without messages', async () => {
      const { apiKey } = await makeUser(ds);

      expectSuccess(await thread(apiKey, '+33612345678'), 200, []);
    });
  });

  describe('post_conversation_read', () => {
    it("marks the caller's unread messages from the number read, and answers how many", async () => {
      const { user, apiKey } = await makeUser(ds);
      const other = await makeUser(ds);
      const number = '+33612345678';
      await makeReceived(ds, user.id, { origin: number, at: at(1) });
      await makeReceived(ds, user.id, { origin: number, at: at(2) });
      await makeReceived(ds, user.id, { origin: number, at: at(3), status: 'read' });
      const elsewhere = await makeReceived(ds, user.id, { origin: '+33699999999', at: at(4) });
      const theirs = await makeReceived(ds, other.user.id, { origin: number, at: at(5) });

      expectSuccess(await markRead(apiKey, number), 200, 2);
      expectSuccess(await markRead(apiKey, number), 200, 0);
      const statuses = await ds.getRepository(Received).find({ order: { id: 'ASC' } });
      const statusOf = (id: number) => statuses.find((row) => row.id === id)?.status;
      expect(statusOf(elsewhere.id)).toBe('unread');
      expect(statusOf(theirs.id)).toBe('unread');
      const listed = (await list(apiKey)).body.response as Conversation[];
      expect(listed.map((conversation) => conversation.unread)).toEqual([1, 0]);
    });

    it('refuses a bad number, and a request from nobody', async () => {
      const { apiKey } = await makeUser(ds);

      expectError(await markRead(apiKey, '12ab'), 400, INVALID_PARAMETER, BAD_NUMBER('12ab'));
      const anonymous = await request(t.url).post('/api/conversation/%2B33612345678/read/');
      expect(anonymous.status).toBe(401);
    });
  });
});
