import request from 'supertest';
import { DataSource } from 'typeorm';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import {
  makeConditionalGroup,
  makeContact,
  makeGroup,
  makePhone,
  makePhoneGroup,
  makePhoneLimit,
  makeScheduled,
  makeUser,
} from '../support/factories';
import { waitFor } from '../support/instruments';
import { FakeServer, startFakeServer } from '../support/adapters.factories';
import { curlMultipart, FormPart } from '../support/curl';
import { PNG } from '../support/scheduled.factories';

/*
 * The inline dispatch worker (docs/dispatch.md) end to end: messages scheduled over HTTP become
 * `sended` entries through the `test` adapter, read back over HTTP.
 */

interface SendedEntry {
  id: number;
  at: string;
  mms: number;
  id_phone: number | null;
  destination: string;
  text: string;
  status: string;
  error: string | null;
  uid: string | null;
  adapter: string;
  tag: string | null;
  originating_scheduled: number;
  segments: number;
  encoding: string;
}

describeEachDatabase('dispatch (inline worker, test adapter)', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database(), {
      WORKER: 'inline',
      DISPATCH_POLL_MS: '20',
      DISPATCH_RETRY_BASE_MS: '20',
      DISPATCH_MAX_ATTEMPTS: '3',
      PUBLIC_URL: 'https://sms.example.org',
      PROVIDER_TIMEOUT_MS: '1000',
    });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  const schedule = async (apiKey: string, body: Record<string, unknown>): Promise<number> => {
    const response = await api(t, apiKey, 'query').post('/api/scheduled/').send(body);
    expect(response.status).toBe(201);
    return (response.body as { response: number }).response;
  };

  /** Schedules an MMS with one PNG, as `curl -F` sends it. */
  const scheduleMms = async (apiKey: string, fields: FormPart[]): Promise<number> => {
    const { body, contentType } = curlMultipart([
      { name: 'mms', value: '1' },
      { name: 'medias[]', value: PNG, filename: 'image.png' },
      ...fields,
    ]);
    const response = await api(t, apiKey, 'query')
      .post('/api/scheduled/')
      .set('Content-Type', contentType)
      .send(body);
    expect(response.status).toBe(201);
    return (response.body as { response: number }).response;
  };

  const sendedOf = async (apiKey: string): Promise<SendedEntry[]> => {
    const response = await api(t, apiKey, 'query').get('/api/list/sended/');
    return (response.body as { response: SendedEntry[] }).response;
  };

  /** The user's sent entries once there are `count`, in id order. */
  const dispatched = async (apiKey: string, count: number): Promise<SendedEntry[]> => {
    let entries: SendedEntry[] = [];
    await waitFor(async () => {
      entries = await sendedOf(apiKey);
      return entries.length >= count;
    }, `${count} sent entries`);
    return entries.sort((a, b) => a.id - b.id);
  };

  it('sends each number through the phone, records the final status, and removes the scheduled message', async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id, { adapter_data: '{"delivery":"delivered"}' });

    const id = await schedule(apiKey, {
      text: 'Hello',
      numbers: ['+33612345678', '+33612345679'],
      tag: 'campaign',
    });
    const entries = await dispatched(apiKey, 2);

    expect(entries.map((entry) => [entry.destination, entry.status, entry.id_phone])).toEqual([
      ['+33612345678', 'delivered', phone.id],
      ['+33612345679', 'delivered', phone.id],
    ]);
    expect(entries[0]).toMatchObject({
      text: 'Hello',
      error: null,
      adapter: 'test',
      tag: 'campaign',
      originating_scheduled: id,
      segments: 1,
      encoding: 'GSM-7',
    });
    expect(entries[0].uid).toMatch(/^[0-9a-f]{16}$/);
    const listed = await api(t, apiKey, 'query').get('/api/list/scheduled/');
    expect(listed.body.response).toEqual([]);
  });

  it('sends numbers, then contacts, groups and conditional groups, each destination once, first occurrence winning', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id);
    const direct = await makeContact(ds, user.id, {
      number: '+33600000001',
      data: '{"firstname":"Direct"}',
    });
    const member = await makeContact(ds, user.id, {
      number: '+33600000002',
      data: '{"firstname":"Member"}',
    });
    const twice = await makeContact(ds, user.id, {
      number: '+33600000003',
      data: '{"firstname":"Twice"}',
    });
    await makeContact(ds, user.id, {
      number: '+33600000004',
      data: '{"gender":"female","firstname":"Ada"}',
    });
    await makeContact(ds, user.id, { number: '+33600000005', data: '{"gender":"male"}' });
    const group = await makeGroup(ds, user.id, [member.id, twice.id]);
    const conditional = await makeConditionalGroup(ds, user.id, {
      condition: "contact.gender == 'female'",
    });
    // Due only once all its recipients are linked: the worker is running.
    const scheduled = await makeScheduled(ds, user.id, {
      at: '2999-01-01 00:00:00',
      text: 'Hi {{ contact.firstname }}',
      numbers: [
        { number: '+33600000003', data: '{"firstname":"Number"}' },
        { number: '+33600000009', data: '{}' },
      ],
      contactIds: [direct.id, twice.id],
      groupIds: [group.id],
      conditionalGroupIds: [conditional.id],
    });
    await ds.query('UPDATE scheduled SET at = ?, send_after = ? WHERE id = ?', [
      '2020-01-01 00:00:00',
      '2020-01-01 00:00:00',
      scheduled.id,
    ]);

    const entries = await dispatched(apiKey, 5);

    expect(entries.map((entry) => [entry.destination, entry.text])).toEqual([
      ['+33600000003', 'Hi Number'],
      ['+33600000009', 'Hi '],
      ['+33600000001', 'Hi Direct'],
      ['+33600000002', 'Hi Member'],
      ['+33600000004', 'Hi Ada'],
    ]);
  });

  it('skips numbers on the STOP list, except for a message tagged SMS_STOP', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id);
    await ds.query('INSERT INTO smsstop (id_user, number, created_at) VALUES (?, ?, ?)', [
      user.id,
      '+33612345678',
      '2026-01-01 00:00:00',
    ]);

    await schedule(apiKey, { text: 'Promo', numbers: ['+33612345678', '+33612345679'] });
    await schedule(apiKey, { text: 'Bye', numbers: ['+33612345678'], tag: 'SMS_STOP' });
    const entries = await dispatched(apiKey, 2);

    expect(entries.map((entry) => [entry.destination, entry.text]).sort()).toEqual([
      ['+33612345678', 'Bye'],
      ['+33612345679', 'Promo'],
    ]);
  });

  it("records a test phone's failed entries with why they failed: its delivery setting", async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id, { adapter_data: '{"delivery":"failed"}' });

    await schedule(apiKey, { text: 'Hello', numbers: ['+33612345678'] });
    const [entry] = await dispatched(apiKey, 1);

    expect(entry).toMatchObject({
      status: 'failed',
      error: "The test adapter's delivery setting is failed.",
      id_phone: phone.id,
    });
    expect(entry.uid).toMatch(/^[0-9a-f]{16}$/);
  });

  it('records a failed entry with its reason when the user has no phone', async () => {
    const { apiKey } = await makeUser(ds);

    await schedule(apiKey, { text: 'Hello', numbers: ['+33612345678'] });
    const [entry] = await dispatched(apiKey, 1);

    expect(entry).toMatchObject({
      destination: '+33612345678',
      status: 'failed',
      error: 'No phone to send it: the user has no phone.',
      id_phone: null,
    });
  });

  it('records a failed entry with its reason, through the phone the message names, when a stored template does not compile', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id);
    const named = await makePhone(ds, user.id);

    // post_scheduled refuses such a text: this one was stored while templating was off.
    // Due only once its number is linked: the worker is running.
    const scheduled = await makeScheduled(ds, user.id, {
      at: '2999-01-01 00:00:00',
      text: 'Hi {% include "/etc/passwd" %}',
      id_phone: named.id,
      numbers: [{ number: '+33612345678' }],
    });
    await ds.query('UPDATE scheduled SET at = ?, send_after = ? WHERE id = ?', [
      '2020-01-01 00:00:00',
      '2020-01-01 00:00:00',
      scheduled.id,
    ]);
    const [entry] = await dispatched(apiKey, 1);

    expect(entry).toMatchObject({
      status: 'failed',
      id_phone: named.id,
      adapter: 'test',
      error: 'The template does not compile: the tag "include" is not allowed.',
    });
  });

  it("records a failed entry through the phone the message names when one contact's data fails the render", async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id);
    const named = await makePhone(ds, user.id, { adapter_data: '{"delivery":"delivered"}' });

    await schedule(apiKey, {
      text: 'Your code starts with {{ contact.code|slice(0, 2) }}',
      id_phone: named.id,
      numbers: [
        { number: '+33612345678', data: '{"code":"AB12"}' },
        { number: '+33612345679', data: '{"code":1234}' },
      ],
    });
    const entries = await dispatched(apiKey, 2);

    expect(
      entries.map((entry) => [entry.destination, entry.status, entry.id_phone, entry.error]).sort(),
    ).toEqual([
      ['+33612345678', 'delivered', named.id, null],
      [
        '+33612345679',
        'failed',
        named.id,
        'The template cannot be rendered: slice filter expects value to be an array or string.',
      ],
    ]);
  });

  it('sends the text as is when templating is off', async () => {
    const { user, apiKey } = await makeUser(ds, { settings: { templating: '0' } });
    await makePhone(ds, user.id);

    await schedule(apiKey, { text: 'Hi {{ contact.firstname }}', numbers: ['+33612345678'] });
    const [entry] = await dispatched(apiKey, 1);

    expect(entry.text).toBe('Hi {{ contact.firstname }}');
  });

  it('transliterates to the GSM alphabet when force_gsm_alphabet is on, and records the encoding', async () => {
    const { user, apiKey } = await makeUser(ds, { settings: { force_gsm_alphabet: '1' } });
    const { user: other, apiKey: otherKey } = await makeUser(ds);
    await makePhone(ds, user.id);
    await makePhone(ds, other.id);

    await schedule(apiKey, { text: 'Ça coûte 5 € – “ok”', numbers: ['+33612345678'] });
    await schedule(otherKey, { text: 'Ça coûte 5 € – “ok”', numbers: ['+33612345678'] });
    const [forced] = await dispatched(apiKey, 1);
    const [kept] = await dispatched(otherKey, 1);

    expect(forced.encoding).toBe('GSM-7');
    expect(forced.text).not.toContain('“');
    expect(kept).toMatchObject({ text: 'Ça coûte 5 € – “ok”', encoding: 'UCS-2', segments: 1 });
  });

  it('fails, saying why, a text that transliteration to the GSM alphabet lengthens past 1000 characters', async () => {
    const { user, apiKey } = await makeUser(ds, { settings: { force_gsm_alphabet: '1' } });
    await makePhone(ds, user.id);

    // Each œ becomes oe.
    await schedule(apiKey, { text: 'œ'.repeat(600), numbers: ['+33612345678'] });
    await schedule(apiKey, {
      text: '{% for i in 1..600 %}œ{% endfor %}',
      numbers: ['+33612345679'],
    });
    const entries = await dispatched(apiKey, 2);

    expect(entries.map((entry) => [entry.destination, entry.status, entry.error]).sort()).toEqual([
      [
        '+33612345678',
        'failed',
        'The text is longer than 1000 characters once transliterated to the GSM alphabet.',
      ],
      [
        '+33612345679',
        'failed',
        'The rendered text is longer than 1000 characters once transliterated to the GSM alphabet.',
      ],
    ]);
  });

  it('sends through the named phone, or among the phone group, highest priority first when priorities apply', async () => {
    const { user, apiKey } = await makeUser(ds, { settings: { phone_priority: '1' } });
    const low = await makePhone(ds, user.id, { priority: 1 });
    const high = await makePhone(ds, user.id, { priority: 5 });
    const outside = await makePhone(ds, user.id, { priority: 9 });
    const group = await makePhoneGroup(ds, user.id, [low.id, high.id]);

    await schedule(apiKey, { text: 'named', numbers: ['+33612345678'], id_phone: low.id });
    await schedule(apiKey, { text: 'group', numbers: ['+33612345679'], id_phone_group: group.id });
    await schedule(apiKey, { text: 'any', numbers: ['+33612345670'] });
    const entries = await dispatched(apiKey, 3);

    expect(Object.fromEntries(entries.map((entry) => [entry.text, entry.id_phone]))).toEqual({
      named: low.id,
      group: high.id,
      any: outside.id,
    });
  });

  it('fails a message to a disabled named phone, saying why', async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id, { status: 'disabled' });

    await schedule(apiKey, { text: 'Hello', numbers: ['+33612345678'], id_phone: phone.id });
    const [entry] = await dispatched(apiKey, 1);

    expect(entry).toMatchObject({
      status: 'failed',
      error: 'The phone is disabled.',
      id_phone: phone.id,
    });
  });

  it('stops at a phone limit: the rest fail with the reason, and the phone reports limit_reached', async () => {
    const { user, apiKey } = await makeUser(ds, { settings: { phone_limit: '1' } });
    const phone = await makePhone(ds, user.id);
    await makePhoneLimit(ds, phone.id, { volume: 2, startpoint: 'today' });

    await schedule(apiKey, {
      text: 'Hello',
      numbers: ['+33612345671', '+33612345672', '+33612345673'],
    });
    const entries = (await dispatched(apiKey, 3)).sort((a, b) =>
      a.destination.localeCompare(b.destination),
    );
    const status = await api(t, apiKey, 'query').post(`/api/phone/${phone.id}/status/`);

    expect(entries.map((entry) => entry.status)).toEqual(['unknown', 'unknown', 'failed']);
    expect(entries[2].error).toBe('The phone has reached its sending limit.');
    expect(status.body.response).toBe('limit_reached');
  });

  it('goes from schedule to sent entries to receipts, and usage, stats and invalid numbers follow', async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id);

    await schedule(apiKey, { text: 'Hello', numbers: ['+33612345671', '+33612345672'] });
    const [first, second] = await dispatched(apiKey, 2);
    const receipt = (uid: string, status: string) =>
      api(t, apiKey, 'query').post('/callback/status/test/').send({ uid, status });
    expect((await receipt(first.uid ?? '', 'delivered')).status).toBe(200);
    expect((await receipt(second.uid ?? '', 'failed')).status).toBe(200);

    const entries = await sendedOf(apiKey);
    const usage = await api(t, apiKey, 'query').get('/api/usage/');
    const day = first.at.slice(0, 10);
    const stats = await request(t.url)
      .get('/api/stats/sms-status/')
      .query({ api_key: apiKey, start: `${day} 00:00:00`, end: `${day} 23:59:59` });
    const invalid = await api(t, apiKey, 'query').get('/api/invalid_number/', {
      volume: 1,
      percent_failed: 50,
      percent_unknown: 0,
    });

    expect(Object.fromEntries(entries.map((entry) => [entry.destination, entry.status]))).toEqual({
      '+33612345671': 'delivered',
      '+33612345672': 'failed',
    });
    expect(usage.body.response).toEqual({ total: 2, phones_volumes: { [phone.id]: 2 } });
    expect(stats.body.response).toEqual([
      { at_ymd: day, id_phone: phone.id, status: 'delivered', nb: 1 },
      { at_ymd: day, id_phone: phone.id, status: 'failed', nb: 1 },
    ]);
    expect(invalid.body.response).toEqual([
      {
        destination: '+33612345672',
        total_sms_sent: 1,
        failed_percentage: 100,
        unknown_percentage: 0,
      },
    ]);
  });

  it('answers a STOP reply, puts the number on the STOP list, and the next campaign skips it', async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id);

    const reply = await api(t, apiKey, 'query')
      .post(`/callback/reception/test/${phone.id}/`)
      .send({ origin: '+33612345671', text: ' Stop ' });
    const [answer] = await dispatched(apiKey, 1);
    await schedule(apiKey, { text: 'Promo', numbers: ['+33612345671', '+33612345672'] });
    const entries = await dispatched(apiKey, 2);
    const received = await api(t, apiKey, 'query').get('/api/list/received/');

    expect(reply.status).toBe(200);
    expect(received.body.response).toMatchObject([{ origin: '+33612345671', text: ' Stop ' }]);
    expect(answer).toMatchObject({
      destination: '+33612345671',
      text: 'You will no longer receive messages from this number.',
      tag: 'SMS_STOP',
      id_phone: phone.id,
    });
    expect(entries.map((entry) => [entry.destination, entry.text])).toEqual([
      ['+33612345671', 'You will no longer receive messages from this number.'],
      ['+33612345672', 'Promo'],
    ]);
  });

  it('sends an MMS with its medias through a phone that sends MMS, and links them to the entry', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id);

    await scheduleMms(apiKey, [
      { name: 'text', value: 'See this' },
      { name: 'numbers[]', value: '+33612345678' },
    ]);
    const [entry] = await dispatched(apiKey, 1);
    const links = await ds.query<Array<{ n: number | string }>>(
      'SELECT COUNT(*) AS n FROM media_sended WHERE id_sended = ?',
      [entry.id],
    );

    expect(entry).toMatchObject({ text: 'See this', mms: 1, status: 'unknown' });
    expect(Number(links[0].n)).toBe(1);
  });

  it('refuses a media path that smsgw did not generate with 404', async () => {
    for (const path of ['/media/1/..%2F..%2Fsmsgw.sqlite', '/media/1/image.png', '/media/x/00']) {
      expect((await request(t.url).get(path)).status).toBe(404);
    }
  });

  describe('through a provider (a Kannel fake)', () => {
    let kannel: FakeServer;
    /**
     * The answers the fake gives, in turn; 202 once they run out. `hang` reads the request and
     * never answers; `reset` reads it and cuts the connection.
     */
    let answers: Array<[number, string] | 'hang' | 'reset'>;
    /** Runs before the fake answers a send. */
    let beforeAnswer: () => Promise<void>;
    let requests: string[];

    beforeAll(async () => {
      kannel = await startFakeServer(async (incoming, response) => {
        requests.push(new URL(incoming.url ?? '/', 'http://kannel').searchParams.get('to') ?? '');
        await beforeAnswer();
        const answer = answers.shift() ?? [202, '0: Accepted for delivery'];
        if (answer === 'reset') {
          incoming.socket.destroy();
        } else if (answer !== 'hang') {
          response.writeHead(answer[0], { 'Content-Type': 'text/plain' });
          response.end(answer[1]);
        }
      });
    });
    afterAll(async () => {
      await kannel.close();
    });
    beforeEach(() => {
      answers = [];
      requests = [];
      beforeAnswer = () => Promise.resolve();
    });

    const kannelPhone = (userId: number) =>
      makePhone(ds, userId, {
        adapter: 'kannel',
        adapter_data: JSON.stringify({
          kannel_sendsms_url: `${kannel.url}/cgi-bin/sendsms`,
          username: 'smsgw',
          password: 'secret',
          from: 'smsgw',
        }),
      });

    it('retries what the provider certainly did not take (503, 429), then records the send', async () => {
      const { user, apiKey } = await makeUser(ds);
      await kannelPhone(user.id);
      answers = [
        [503, 'Service unavailable'],
        [429, 'Too many requests'],
      ];

      await schedule(apiKey, { text: 'Hello', numbers: ['+33612345678'] });
      const [entry] = await dispatched(apiKey, 1);

      expect(requests).toEqual(['+33612345678', '+33612345678', '+33612345678']);
      expect(entry).toMatchObject({ status: 'unknown', error: null, adapter: 'kannel' });
    });

    it.each([
      ['reads the message and never answers', 'hang' as const, 'within 1 s'],
      ['reads the message and cuts the connection', 'reset' as const, '(connection'],
    ])(
      'records as unknown, never sending it again, a send to a provider that %s',
      async (_, answer, said) => {
        const { user, apiKey } = await makeUser(ds);
        await kannelPhone(user.id);
        answers = [answer];

        await schedule(apiKey, { text: 'Hello', numbers: ['+33612345678'] });
        const [entry] = await dispatched(apiKey, 1);

        expect(requests).toEqual(['+33612345678']);
        expect(entry).toMatchObject({ status: 'unknown', adapter: 'kannel' });
        expect(entry.error).toContain(said);
        expect(entry.error).toMatch(
          /may have been sent, so it is not sent again: its outcome is unknown\.$/,
        );
      },
    );

    it('fails an MMS whose text with the media links would pass 1000 characters, saying why', async () => {
      const { user, apiKey } = await makeUser(ds);
      await kannelPhone(user.id);

      await scheduleMms(apiKey, [
        { name: 'text', value: 'x'.repeat(990) },
        { name: 'numbers[]', value: '+33612345678' },
      ]);
      const [entry] = await dispatched(apiKey, 1);

      expect(requests).toEqual([]);
      expect(entry).toMatchObject({ status: 'failed', text: 'x'.repeat(990) });
      expect(entry.error).toContain('longer than 1000 characters');
    });

    it('records a send whose phone was deleted while it was in flight, without the phone', async () => {
      const { user, apiKey } = await makeUser(ds);
      const phone = await kannelPhone(user.id);
      beforeAnswer = async () => {
        const deleted = await api(t, apiKey, 'query').delete(`/api/phone/${phone.id}/`);
        expect(deleted.status).toBe(200);
      };

      await schedule(apiKey, { text: 'Hello', numbers: ['+33612345678'] });
      const [entry] = await dispatched(apiKey, 1);

      expect(entry).toMatchObject({
        status: 'unknown',
        error: null,
        id_phone: null,
        adapter: 'kannel',
      });
    });

    it('gives up on a transient failure after DISPATCH_MAX_ATTEMPTS sends, saying why', async () => {
      const { user, apiKey } = await makeUser(ds);
      await kannelPhone(user.id);
      answers = [
        [503, 'Service unavailable'],
        [503, 'Service unavailable'],
        [503, 'Service unavailable'],
      ];

      await schedule(apiKey, { text: 'Hello', numbers: ['+33612345678'] });
      const [entry] = await dispatched(apiKey, 1);

      expect(requests).toHaveLength(3);
      expect(entry.status).toBe('failed');
      expect(entry.error).toMatch(/503.*\(gave up after 3 attempts\)$/);
    });

    it("fails a permanent refusal at once, with the provider's reason", async () => {
      const { user, apiKey } = await makeUser(ds);
      await kannelPhone(user.id);
      answers = [[403, 'Authorization failed for sendsms']];

      await schedule(apiKey, { text: 'Hello', numbers: ['+33612345678'] });
      const [entry] = await dispatched(apiKey, 1);

      expect(requests).toHaveLength(1);
      expect(entry.status).toBe('failed');
      expect(entry.error).toEqual(expect.stringContaining('403'));
      expect(entry.error).not.toContain('secret');
    });

    it('sends the medias of an MMS as links after the text through a phone that cannot send MMS, and serves them', async () => {
      const { user, apiKey } = await makeUser(ds);
      await kannelPhone(user.id);

      await scheduleMms(apiKey, [
        { name: 'text', value: 'See this' },
        { name: 'numbers[]', value: '+33612345678' },
      ]);
      const [entry] = await dispatched(apiKey, 1);
      const link = /^See this\nhttps:\/\/sms\.example\.org(\/media\/\d+\/[0-9a-f]{32}\.png)$/.exec(
        entry.text,
      );
      const file = await request(t.url)
        .get(link?.[1] ?? '/media/none')
        .buffer(true)
        .parse((response, done) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => done(null, Buffer.concat(chunks)));
        });

      expect(link).not.toBeNull();
      expect(entry).toMatchObject({ status: 'unknown', error: null });
      expect(file.status).toBe(200);
      expect(file.body).toEqual(PNG);
    });
  });
});
