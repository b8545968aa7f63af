import request, { Response } from 'supertest';
import { DataSource } from 'typeorm';
import { Adapter, CallbackRequest } from '../../src/adapters/adapter';
import { TestAdapter } from '../../src/adapters/test/test.adapter';
import { InboundRepository } from '../../src/inbound/inbound.repository';
import { InboundService } from '../../src/inbound/inbound.service';
import { Received } from '../../src/received/entities/received.entity';
import { Sended, SendedStatus } from '../../src/sended/entities/sended.entity';
import { SmsStop } from '../../src/stop-list/entities/sms-stop.entity';
import { Scheduled, ScheduledNumber } from '../../src/scheduled/entities/scheduled.entity';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { curlMultipart } from '../support/curl';
import { describeEachDatabase } from '../support/databases';
import { makePhone, makeSended, makeUser } from '../support/factories';
import { freezeDate } from '../support/instruments';

/*
 * Provider callbacks (docs/adapters.md#callbacks, docs/dispatch.md#statuses and #stop) over real
 * HTTP against the real app with the `test` adapter, whose status callback reads `uid` and `status`
 * and whose reception callback reads `origin`, `text` and `at`, from the query or the body.
 */

const ORIGIN = '+33612345678';

/** A callback's answer: the status, and a body that is empty (never an envelope). */
function expectEmpty(response: Response, status = 200): void {
  expect({ status: response.status, body: response.text }).toEqual({ status, body: '' });
}

describeEachDatabase('provider callbacks', (database) => {
  let t: TestApp;
  let ds: DataSource;
  let testAdapter: Adapter;

  beforeAll(async () => {
    t = await startApp(database());
    ds = t.dataSource;
    testAdapter = t.app.get(TestAdapter);
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  const statusOf = async (id: number) =>
    (await ds.getRepository(Sended).findOneByOrFail({ id })).status;
  const receivedOf = (userId: number) =>
    ds.getRepository(Received).find({ where: { id_user: userId }, order: { id: 'ASC' } });
  const stopsOf = (userId: number) =>
    ds.getRepository(SmsStop).find({ where: { id_user: userId }, order: { id: 'ASC' } });
  const scheduledOf = (userId: number) =>
    ds.getRepository(Scheduled).find({ where: { id_user: userId }, order: { id: 'ASC' } });

  /** GET /callback/status/{adapter}/ with the key and the receipt in the query. */
  const receipt = (apiKey: string, uid: string, status: string, adapter = 'test') =>
    api(t, apiKey, 'query').get(`/callback/status/${adapter}/`, { uid, status });

  /** POST /callback/reception/{adapter}/{id_phone}/ with a urlencoded body, as providers do. */
  const reception = (
    apiKey: string,
    phoneId: number | string,
    fields: Record<string, string>,
    adapter = 'test',
  ) =>
    api(t, apiKey, 'query')
      .post(`/callback/reception/${adapter}/${phoneId}/`)
      .type('form')
      .send(fields);

  describe('authentication', () => {
    it('answers a missing or unknown key with 401 and an empty body, and applies nothing', async () => {
      const { user } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const sended = await makeSended(ds, user.id);
      for (const key of [undefined, '0123456789abcdef0123456789abcdef']) {
        const query = key === undefined ? {} : { api_key: key };
        expectEmpty(
          await request(t.url)
            .get('/callback/status/test/')
            .query({ ...query, uid: sended.uid, status: 'delivered' }),
          401,
        );
        expectEmpty(
          await request(t.url)
            .post(`/callback/reception/test/${phone.id}/`)
            .query(query)
            .type('form')
            .send({ origin: ORIGIN, text: 'Hello' }),
          401,
        );
      }
      expect(await statusOf(sended.id)).toBe('unknown');
      expect(await receivedOf(user.id)).toEqual([]);
    });

    it('answers a suspended user with 403 and an empty body, and applies nothing', async () => {
      const { user, apiKey } = await makeUser(ds, { status: 'suspended' });
      const phone = await makePhone(ds, user.id);
      const sended = await makeSended(ds, user.id);
      expectEmpty(await receipt(apiKey, sended.uid!, 'delivered'), 403);
      expectEmpty(await reception(apiKey, phone.id, { origin: ORIGIN, text: 'Hi' }), 403);
      expect(await statusOf(sended.id)).toBe('unknown');
      expect(await receivedOf(user.id)).toEqual([]);
    });

    it('reads the key from the form field and from the X-Api-Key header as well', async () => {
      const { user, apiKey } = await makeUser(ds);
      const byForm = await makeSended(ds, user.id);
      const byHeader = await makeSended(ds, user.id);
      expectEmpty(
        await request(t.url)
          .post('/callback/status/test/')
          .type('form')
          .send({ api_key: apiKey, uid: byForm.uid!, status: 'delivered' }),
      );
      expectEmpty(
        await api(t, apiKey)
          .form('/callback/status/test/')
          .send({ uid: byHeader.uid!, status: 'failed' }),
      );
      expect([await statusOf(byForm.id), await statusOf(byHeader.id)]).toEqual([
        'delivered',
        'failed',
      ]);
    });
  });

  describe('status callbacks', () => {
    // [current, reported, stored afterwards]
    const TRANSITIONS: Array<[SendedStatus, string, SendedStatus]> = [
      ['unknown', 'delivered', 'delivered'],
      ['unknown', 'failed', 'failed'],
      ['unknown', 'unknown', 'unknown'],
      ['failed', 'delivered', 'delivered'],
      ['failed', 'failed', 'failed'],
      ['failed', 'unknown', 'failed'],
      ['delivered', 'delivered', 'delivered'],
      ['delivered', 'failed', 'delivered'],
      ['delivered', 'unknown', 'delivered'],
    ];

    it.each(TRANSITIONS)(
      'takes a %s message reported %s to %s, touching updated_at only on a change',
      async (current, reported, expected) => {
        const { user, apiKey } = await makeUser(ds);
        const sended = await makeSended(ds, user.id, { status: current });
        expectEmpty(await receipt(apiKey, sended.uid!, reported));
        const stored = await ds.getRepository(Sended).findOneByOrFail({ id: sended.id });
        expect(stored.status).toBe(expected);
        if (expected === current) {
          expect(stored.updated_at).toBeNull();
        } else {
          expect(stored.updated_at).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$/);
        }
      },
    );

    it('reads any status other than delivered or failed as unknown, which changes nothing', async () => {
      const { user, apiKey } = await makeUser(ds);
      const sended = await makeSended(ds, user.id, { status: 'failed' });
      expectEmpty(await receipt(apiKey, sended.uid!, 'DELIVERED'));
      expect(await statusOf(sended.id)).toBe('failed');
    });

    it("never touches another user's message with the same uid", async () => {
      const alice = await makeUser(ds);
      const bob = await makeUser(ds);
      const uid = 'shared-uid-1';
      const bobs = await makeSended(ds, bob.user.id, { uid });
      const alices = await makeSended(ds, alice.user.id, { uid });
      expectEmpty(await receipt(alice.apiKey, uid, 'delivered'));
      expect(await statusOf(alices.id)).toBe('delivered');
      expect(await statusOf(bobs.id)).toBe('unknown');
    });

    it('never touches a message another adapter sent under the same uid', async () => {
      const { user, apiKey } = await makeUser(ds);
      const byTwilio = await makeSended(ds, user.id, { uid: 'SM-same', adapter: 'twilio' });
      expectEmpty(await receipt(apiKey, 'SM-same', 'delivered'));
      expect(await statusOf(byTwilio.id)).toBe('unknown');
    });

    it('names the adapter by its id, its RaspiSMS class name or its RaspiSMS meta_uid', async () => {
      const { user, apiKey } = await makeUser(ds);
      const names = ['test', 'adapters%5CTestAdapter', 'test_adapter'];
      const messages = await Promise.all(names.map(() => makeSended(ds, user.id)));
      for (const [index, name] of names.entries()) {
        expectEmpty(await receipt(apiKey, messages[index].uid!, 'delivered', name));
      }
      for (const message of messages) {
        expect(await statusOf(message.id)).toBe('delivered');
      }
    });

    it('takes the receipt from the query or a urlencoded, JSON or multipart body, any method, with or without the trailing slash', async () => {
      const { user, apiKey } = await makeUser(ds);
      const [a, b, c, d, e] = await Promise.all([1, 2, 3, 4, 5].map(() => makeSended(ds, user.id)));
      const path = `/callback/status/test?api_key=${apiKey}`;
      expectEmpty(await request(t.url).get(`${path}&uid=${a.uid}&status=delivered`));
      expectEmpty(
        await request(t.url).put(path).type('form').send(`uid=${b.uid}&status=delivered`),
      );
      expectEmpty(
        await request(t.url)
          .post(path.replace('/test?', '/test/?'))
          .send({ uid: c.uid, status: 'delivered' }),
      );
      const { body, contentType } = curlMultipart([
        { name: 'uid', value: d.uid! },
        { name: 'status', value: 'delivered' },
      ]);
      expectEmpty(await request(t.url).patch(path).set('Content-Type', contentType).send(body));
      expectEmpty(await request(t.url).delete(`${path}&uid=${e.uid}&status=failed`));
      expect(await Promise.all([a, b, c, d, e].map((m) => statusOf(m.id)))).toEqual([
        'delivered',
        'delivered',
        'delivered',
        'delivered',
        'failed',
      ]);
    });

    it('answers 200 with an empty body whatever it cannot use, and changes nothing', async () => {
      const { user, apiKey } = await makeUser(ds);
      const sended = await makeSended(ds, user.id);
      const benchmark = await makeSended(ds, user.id, { adapter: 'benchmark' });
      const key = `api_key=${apiKey}`;
      const calls = [
        request(t.url).get(`/callback/status/nope/?${key}&uid=${sended.uid}&status=delivered`),
        request(t.url).get(`/callback/status/Test/?${key}&uid=${sended.uid}&status=delivered`),
        request(t.url).get(`/callback/status/test/?${key}&uid=no-such-uid&status=delivered`),
        request(t.url).get(`/callback/status/test/?${key}&status=delivered`),
        request(t.url).get(
          `/callback/status/benchmark/?${key}&uid=${benchmark.uid}&status=delivered`,
        ),
        request(t.url)
          .post(`/callback/status/test/?${key}`)
          .set('Content-Type', 'application/json')
          .send('{"uid": '),
        request(t.url)
          .post(`/callback/status/test/?${key}`)
          .set('Content-Type', 'multipart/form-data')
          .send('no boundary'),
      ];
      for (const response of await Promise.all(calls)) {
        expectEmpty(response);
      }
      expect(await statusOf(sended.id)).toBe('unknown');
      expect(await statusOf(benchmark.id)).toBe('unknown');
    });

    it('applies a receipt only if the status it read is still current when it writes', async () => {
      const { user, apiKey } = await makeUser(ds);
      const message = await makeSended(ds, user.id);
      // The `failed` receipt reads the message (unknown), then waits while a `delivered`
      // receipt is applied in full; when it writes, `failed` no longer applies.
      const repository = t.app.get(InboundRepository);
      const find = repository.findReceiptTarget.bind(repository);
      let reached!: () => void;
      const hasRead = new Promise<void>((resolve) => (reached = resolve));
      let release!: () => void;
      const gate = new Promise<void>((resolve) => (release = resolve));
      jest.spyOn(repository, 'findReceiptTarget').mockImplementationOnce(async (...args) => {
        const target = await find(...args);
        reached();
        await gate;
        return target;
      });
      const failed = receipt(apiKey, message.uid!, 'failed').then((response) => response);
      await hasRead;
      expectEmpty(await receipt(apiKey, message.uid!, 'delivered'));
      release();
      expectEmpty(await failed);
      expect(await statusOf(message.id)).toBe('delivered');
    });

    it("requires the adapter's signature check, with the data of the phone that sent the message", async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id, { adapter_data: '{"delivery":"delivered"}' });
      const signed = await makeSended(ds, user.id, { id_phone: phone.id });
      const unsigned = await makeSended(ds, user.id, { id_phone: phone.id });
      const seen: Array<{ signature?: string; data: Record<string, string> }> = [];
      const verify = jest.fn((callback: CallbackRequest, data: Record<string, string>) => {
        seen.push({ signature: callback.headers['x-signature'], data });
        return callback.headers['x-signature'] === 'good';
      });
      Object.assign(testAdapter, { verifyCallback: verify });
      try {
        expectEmpty(await receipt(apiKey, signed.uid!, 'delivered').set('X-Signature', 'good'));
        expectEmpty(await receipt(apiKey, unsigned.uid!, 'delivered').set('X-Signature', 'forged'));
      } finally {
        delete (testAdapter as { verifyCallback?: unknown }).verifyCallback;
      }
      expect(seen).toEqual([
        { signature: 'good', data: { delivery: 'delivered' } },
        { signature: 'forged', data: { delivery: 'delivered' } },
      ]);
      expect(await statusOf(signed.id)).toBe('delivered');
      expect(await statusOf(unsigned.id)).toBe('unknown');
    });
  });

  describe('reception callbacks', () => {
    it('stores the message unread, as received at the given UTC time, and lists it', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      expectEmpty(
        await reception(apiKey, phone.id, {
          origin: ORIGIN,
          text: 'Hello there',
          at: '2024-05-06 07:08:09',
        }),
      );
      const [stored] = await receivedOf(user.id);
      expect(stored).toMatchObject({
        id_user: user.id,
        id_phone: phone.id,
        at: '2024-05-06 07:08:09',
        text: 'Hello there',
        origin: ORIGIN,
        command: 0,
        status: 'unread',
        mms: 0,
      });
      const listing = await api(t, apiKey, 'query').get('/api/list/received/');
      expect(listing.body.response).toEqual([
        expect.objectContaining({ id: stored.id, text: 'Hello there', status: 'unread' }),
      ]);
    });

    it('dates a message without a valid time now, in UTC', async () => {
      freezeDate('2025-03-04T05:06:07Z');
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      expectEmpty(await reception(apiKey, phone.id, { origin: ORIGIN, text: 'no time' }));
      expectEmpty(
        await reception(apiKey, phone.id, { origin: ORIGIN, text: 'bad', at: '2025-02-30 1:2:3' }),
      );
      expect((await receivedOf(user.id)).map((row) => row.at)).toEqual([
        '2025-03-04 05:06:07',
        '2025-03-04 05:06:07',
      ]);
    });

    it('normalises a national sender with the default_phone_country setting', async () => {
      const { user, apiKey } = await makeUser(ds, { settings: { default_phone_country: 'fr' } });
      const phone = await makePhone(ds, user.id);
      expectEmpty(await reception(apiKey, phone.id, { origin: '06 12 34 56 78', text: 'Hi' }));
      expect((await receivedOf(user.id)).map((row) => row.origin)).toEqual([ORIGIN]);
    });

    it('splits a text longer than 1000 code points into one received row per 1000', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      // 2001 code points, 3002 UTF-16 units: the emoji count as one character each.
      const text = '😀'.repeat(1001) + 'a'.repeat(1000);
      expectEmpty(await reception(apiKey, phone.id, { origin: ORIGIN, text }));
      const rows = await receivedOf(user.id);
      expect(rows.map((row) => [...row.text].length)).toEqual([1000, 1000, 1]);
      expect(rows.map((row) => row.text).join('')).toBe(text);
    });

    it('stores nothing for a phone that is not the caller’s, uses another adapter, or does not exist', async () => {
      const alice = await makeUser(ds);
      const bob = await makeUser(ds);
      const bobsPhone = await makePhone(ds, bob.user.id);
      const twilioPhone = await makePhone(ds, alice.user.id, { adapter: 'twilio' });
      for (const phoneId of [bobsPhone.id, twilioPhone.id, 999999, 'abc', '-1']) {
        expectEmpty(await reception(alice.apiKey, phoneId, { origin: ORIGIN, text: 'stop' }));
      }
      expect(await receivedOf(alice.user.id)).toEqual([]);
      expect(await receivedOf(bob.user.id)).toEqual([]);
      expect(await stopsOf(alice.user.id)).toEqual([]);
      expect(await scheduledOf(alice.user.id)).toEqual([]);
    });

    it('stores nothing without a sender or a text, and for a sender longer than a number', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const bodies: Array<Record<string, string>> = [
        { text: 'Hi' },
        { origin: ORIGIN },
        { origin: 'x'.repeat(21), text: 'Hi' },
      ];
      for (const fields of bodies) {
        expectEmpty(await reception(apiKey, phone.id, fields));
      }
      expect(await receivedOf(user.id)).toEqual([]);
    });

    it('names the adapter by its id, its RaspiSMS class name or its RaspiSMS meta_uid', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      for (const name of ['test', 'adapters%5CTestAdapter', 'test_adapter']) {
        expectEmpty(await reception(apiKey, phone.id, { origin: ORIGIN, text: name }, name));
      }
      expect((await receivedOf(user.id)).map((row) => row.text)).toEqual([
        'test',
        'adapters%5CTestAdapter',
        'test_adapter',
      ]);
    });

    it('hands the adapter the request as the provider sent it: URL, headers, query, fields and raw body', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const parse = jest.spyOn(testAdapter, 'parseReceptionCallback');
      const path = `/callback/reception/test/${phone.id}?api_key=${apiKey}&origin=${encodeURIComponent(ORIGIN)}&a%5Bb%5D=1`;
      expectEmpty(
        await request(t.url)
          .post(path)
          .set('X-Kannel-Time', '2024-01-01 00:00:00')
          .set('Content-Type', 'text/plain; charset=utf-8')
          .send('Le texte é'),
      );
      expectEmpty(await request(t.url).post(path).type('form').send('text=form+text&list%5B%5D=x'));
      const [[asText], [asForm]] = parse.mock.calls;
      expect(asText).toMatchObject({
        method: 'POST',
        url: `${t.url}${path}`,
        query: { api_key: apiKey, origin: ORIGIN, 'a[b]': '1' },
        form: {},
        rawBody: 'Le texte é',
      });
      expect(asText.headers['x-kannel-time']).toBe('2024-01-01 00:00:00');
      expect(asForm).toMatchObject({
        form: { text: 'form text', 'list[]': 'x' },
        rawBody: 'text=form+text&list%5B%5D=x',
      });
      expect((await receivedOf(user.id)).map((row) => row.text)).toEqual(['form text']);
    });

    it("requires the adapter's signature check with the receiving phone's data", async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id, { adapter_data: '{"phone_status":"available"}' });
      const verify = jest.fn(
        (callback: CallbackRequest, data: Record<string, string>) =>
          callback.form.text === 'signed' && data.phone_status === 'available',
      );
      Object.assign(testAdapter, { verifyCallback: verify });
      try {
        expectEmpty(await reception(apiKey, phone.id, { origin: ORIGIN, text: 'signed' }));
        expectEmpty(await reception(apiKey, phone.id, { origin: ORIGIN, text: 'forged' }));
      } finally {
        delete (testAdapter as { verifyCallback?: unknown }).verifyCallback;
      }
      expect(verify).toHaveBeenCalledTimes(2);
      expect((await receivedOf(user.id)).map((row) => row.text)).toEqual(['signed']);
    });
  });

  describe('STOP', () => {
    const RESPONSE = 'You will no longer receive messages from this number.';

    it.each(['stop', 'STOP', 'Stop SMS ', '  stop sms\n'])(
      'puts the sender of %j on the STOP list once and schedules one reply through the phone',
      async (text) => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        expectEmpty(await reception(apiKey, phone.id, { origin: ORIGIN, text }));
        expectEmpty(await reception(apiKey, phone.id, { origin: ORIGIN, text }));
        expect((await receivedOf(user.id)).map((row) => row.text)).toEqual([text, text]);
        expect((await stopsOf(user.id)).map((row) => row.number)).toEqual([ORIGIN]);
        const scheduled = await scheduledOf(user.id);
        expect(scheduled).toEqual([
          expect.objectContaining({
            text: RESPONSE,
            tag: 'SMS_STOP',
            id_phone: phone.id,
            id_phone_group: null,
            flash: 0,
            mms: 0,
          }),
        ]);
        const numbers = await ds
          .getRepository(ScheduledNumber)
          .findBy({ id_scheduled: scheduled[0].id });
        expect(numbers.map((row) => row.number)).toEqual([ORIGIN]);
        const listing = await api(t, apiKey, 'query').get('/api/list/scheduled/');
        expect(listing.body.response).toEqual([
          expect.objectContaining({ id: scheduled[0].id, tag: 'SMS_STOP', id_phone: phone.id }),
        ]);
      },
    );

    it('replies with the text of the smsstop_response setting', async () => {
      const { user, apiKey } = await makeUser(ds, { settings: { smsstop_response: 'Bye.' } });
      const phone = await makePhone(ds, user.id);
      expectEmpty(await reception(apiKey, phone.id, { origin: ORIGIN, text: 'stop' }));
      expect((await scheduledOf(user.id)).map((row) => row.text)).toEqual(['Bye.']);
    });

    it.each(['stop now', 'stopp', 'sms stop', 'stop  sms'])(
      'does not take %j for a STOP',
      async (text) => {
        const { user, apiKey } = await makeUser(ds);
        const phone = await makePhone(ds, user.id);
        expectEmpty(await reception(apiKey, phone.id, { origin: ORIGIN, text }));
        expect(await receivedOf(user.id)).toHaveLength(1);
        expect(await stopsOf(user.id)).toEqual([]);
        expect(await scheduledOf(user.id)).toEqual([]);
      },
    );

    it('registers the STOP without a reply when smsstop_respond is off', async () => {
      const { user, apiKey } = await makeUser(ds, { settings: { smsstop_respond: '0' } });
      const phone = await makePhone(ds, user.id);
      expectEmpty(await reception(apiKey, phone.id, { origin: ORIGIN, text: 'stop' }));
      expect((await stopsOf(user.id)).map((row) => row.number)).toEqual([ORIGIN]);
      expect(await scheduledOf(user.id)).toEqual([]);
    });

    it('registers the STOP even when the smsstop setting is off', async () => {
      const { user, apiKey } = await makeUser(ds, { settings: { smsstop: '0' } });
      const phone = await makePhone(ds, user.id);
      expectEmpty(await reception(apiKey, phone.id, { origin: ORIGIN, text: 'stop' }));
      expect((await stopsOf(user.id)).map((row) => row.number)).toEqual([ORIGIN]);
      expect(await scheduledOf(user.id)).toHaveLength(1);
    });

    it('registers a sender that is a name without replying to it', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      expectEmpty(await reception(apiKey, phone.id, { origin: 'MYBANK', text: 'stop' }));
      expect((await stopsOf(user.id)).map((row) => row.number)).toEqual(['MYBANK']);
      expect(await scheduledOf(user.id)).toEqual([]);
    });

    it('adds one STOP entry and schedules one reply for concurrent duplicate STOPs', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const responses = await Promise.all(
        Array.from({ length: 6 }, () =>
          reception(apiKey, phone.id, { origin: ORIGIN, text: 'STOP' }),
        ),
      );
      responses.forEach((response) => expectEmpty(response));
      expect(await receivedOf(user.id)).toHaveLength(6);
      expect(await stopsOf(user.id)).toHaveLength(1);
      expect(await scheduledOf(user.id)).toHaveLength(1);
    });

    it("keeps each user's STOP list apart", async () => {
      const alice = await makeUser(ds);
      const bob = await makeUser(ds);
      const alicesPhone = await makePhone(ds, alice.user.id);
      const bobsPhone = await makePhone(ds, bob.user.id);
      expectEmpty(await reception(alice.apiKey, alicesPhone.id, { origin: ORIGIN, text: 'stop' }));
      expectEmpty(await reception(bob.apiKey, bobsPhone.id, { origin: ORIGIN, text: 'stop' }));
      expect(await stopsOf(alice.user.id)).toHaveLength(1);
      expect(await stopsOf(bob.user.id)).toHaveLength(1);
      expect(await scheduledOf(bob.user.id)).toHaveLength(1);
    });
  });

  describe('the inbound sink that listening adapters report to', () => {
    it('applies receipts and stores messages, STOP included, as the HTTP callbacks do', async () => {
      const sink = t.app.get(InboundService);
      const { user } = await makeUser(ds);
      const phone = await makePhone(ds, user.id);
      const delivered = await makeSended(ds, user.id, { id_phone: phone.id });
      const listened = { id: phone.id, id_user: user.id, data: {} };
      await sink.status(listened, { uid: delivered.uid!, status: 'delivered' });
      await sink.received(listened, { origin: ORIGIN, text: 'Stop', at: null });
      expect(await statusOf(delivered.id)).toBe('delivered');
      expect((await receivedOf(user.id)).map((row) => row.text)).toEqual(['Stop']);
      expect(await stopsOf(user.id)).toHaveLength(1);
      expect(await scheduledOf(user.id)).toEqual([
        expect.objectContaining({ tag: 'SMS_STOP', id_phone: phone.id }),
      ]);
    });
  });
});

describeEachDatabase('provider callbacks under BASE_PATH and PUBLIC_URL', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database(), {
      BASE_PATH: '/raspisms',
      PUBLIC_URL: 'https://sms.example.test/',
      MAX_BODY_BYTES: '2048',
    });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });
  afterEach(() => {
    jest.restoreAllMocks();
  });

  it('serves the callbacks under BASE_PATH, reading their bodies itself', async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id);
    const sended = await makeSended(ds, user.id);
    expectEmpty(
      await request(t.url)
        .post(`/raspisms/callback/status/test_adapter?api_key=${apiKey}`)
        .type('form')
        .send({ uid: sended.uid!, status: 'delivered' }),
    );
    expectEmpty(
      await request(t.url)
        .post(`/raspisms/callback/reception/test/${phone.id}/?api_key=${apiKey}`)
        .type('form')
        .send({ origin: ORIGIN, text: 'Hello' }),
    );
    expect((await ds.getRepository(Sended).findOneByOrFail({ id: sended.id })).status).toBe(
      'delivered',
    );
    expect(await ds.getRepository(Received).countBy({ id_user: user.id })).toBe(1);
  });

  it('gives adapters the URL under PUBLIC_URL, as the provider called it', async () => {
    const { apiKey } = await makeUser(ds);
    const parse = jest.spyOn(t.app.get(TestAdapter), 'parseStatusCallback');
    const path = `/raspisms/callback/status/test/?api_key=${apiKey}&uid=x`;
    expectEmpty(await request(t.url).get(path));
    expect(parse.mock.calls[0][0].url).toBe(`https://sms.example.test${path}`);
  });

  it('refuses a body over MAX_BODY_BYTES with 413 and an empty body', async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id);
    const response = await request(t.url)
      .post(`/raspisms/callback/reception/test/${phone.id}/?api_key=${apiKey}`)
      .type('form')
      .send({ origin: ORIGIN, text: 'x'.repeat(4096) });
    expectEmpty(response, 413);
    expect(await ds.getRepository(Received).countBy({ id_user: user.id })).toBe(0);
  });
});
