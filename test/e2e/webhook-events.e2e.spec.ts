import { Sended } from '../../src/sended/entities/sended.entity';
import { FakeServer, startFakeServer } from '../support/adapters.factories';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makePhone, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';

/*
 * `send_sms` events from the dispatch, on every database engine, with the worker running as
 * `npm start` runs it: each entry recorded (sent, or failed before any provider) reaches the
 * user's send_sms webhook once, with the entry's fields as docs/api.md#webhook-deliveries lists
 * them; another user's webhook hears nothing of it.
 */

describeEachDatabase('send_sms events', (database) => {
  let t: TestApp;
  let receiver: FakeServer;
  const bodies: Array<{ path: string; type: string; body: Record<string, unknown> }> = [];

  beforeAll(async () => {
    receiver = await startFakeServer((incoming, response, body) => {
      const form = new URLSearchParams(body);
      bodies.push({
        path: incoming.url ?? '',
        type: form.get('webhook_type') ?? '',
        body: JSON.parse(form.get('body') ?? '{}') as Record<string, unknown>,
      });
      response.writeHead(200);
      response.end();
    });
    t = await startApp(database(), { WORKER: 'inline', DISPATCH_POLL_MS: '20' });
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  const hook = (apiKey: string, path: string) =>
    api(t, apiKey)
      .json('/api/webhook/', { url: `${receiver.url}${path}`, type: 'send_sms' })
      .expect(201);

  it('tells each recorded entry once, with its fields, to its user only', async () => {
    const { user, apiKey } = await makeUser(t.dataSource);
    const phone = await makePhone(t.dataSource, user.id, {
      adapter_data: '{"delivery":"delivered"}',
    });
    await hook(apiKey, '/mine');
    const other = await makeUser(t.dataSource);
    await makePhone(t.dataSource, other.user.id);
    await hook(other.apiKey, '/theirs');

    await api(t, apiKey)
      .json('/api/scheduled/', {
        text: 'Héllo',
        numbers: ['+33612345670', '+33612345671'],
        tag: 'campaign-7',
      })
      .expect(201);
    await waitFor(
      () => Promise.resolve(bodies.filter((got) => got.path === '/mine').length >= 2),
      'two send_sms events',
    );
    // Whatever else was due goes out within this turn: nothing more may come for these two.
    await new Promise((resolve) => setTimeout(resolve, 300));

    const entries = await t.dataSource
      .getRepository(Sended)
      .find({ where: { id_user: user.id }, order: { id: 'ASC' } });
    const mine = bodies
      .filter((got) => got.path === '/mine')
      .sort((a, b) => Number(a.body.id) - Number(b.body.id));
    expect(mine.map((got) => got.type)).toEqual(['send_sms', 'send_sms']);
    expect(mine.map((got) => got.body)).toEqual(
      entries.map((entry) => ({
        id: entry.id,
        at: entry.at,
        status: 'delivered',
        error: null,
        text: 'Héllo',
        destination: entry.destination,
        origin: phone.id,
        id_phone: phone.id,
        tag: 'campaign-7',
        flash: false,
        mms: false,
        medias: [],
        originating_scheduled: entry.originating_scheduled,
        segments: 1,
        encoding: entry.encoding,
        refusals: [],
      })),
    );
    expect(bodies.filter((got) => got.path === '/theirs')).toEqual([]);
  });

  it('tells an entry that failed before any provider, with its error', async () => {
    const { user, apiKey } = await makeUser(t.dataSource);
    await hook(apiKey, '/nophone');

    await api(t, apiKey)
      .json('/api/scheduled/', { text: 'No phone', numbers: ['+33612345672'] })
      .expect(201);
    await waitFor(
      () => Promise.resolve(bodies.some((got) => got.path === '/nophone')),
      'the send_sms event',
    );

    const [entry] = await t.dataSource.getRepository(Sended).findBy({ id_user: user.id });
    expect(bodies.find((got) => got.path === '/nophone')?.body).toMatchObject({
      id: entry.id,
      status: 'failed',
      error: 'No phone to send it: the user has no phone.',
      origin: null,
      id_phone: null,
    });
  });
});

describeEachDatabase('webhook deliveries in flight at shutdown', (database) => {
  it('let the app close when their outcome cannot be recorded', async () => {
    const answers: Array<() => void> = [];
    const receiver = await startFakeServer((_incoming, response) => {
      answers.push(() => response.writeHead(200).end());
    });
    const t = await startApp(database(), { WORKER: 'inline', DISPATCH_POLL_MS: '20' });
    try {
      const { user, apiKey } = await makeUser(t.dataSource);
      await makePhone(t.dataSource, user.id);
      await api(t, apiKey)
        .json('/api/webhook/', { url: `${receiver.url}/held`, type: 'send_sms' })
        .expect(201);
      await api(t, apiKey)
        .json('/api/scheduled/', { text: 'Held', numbers: ['+33612345673'] })
        .expect(201);
      await waitFor(() => Promise.resolve(answers.length > 0), 'the delivery in flight');
      // The delivery's outcome can no longer be written once its request ends.
      await t.dataSource.query('ALTER TABLE webhook_delivery RENAME TO webhook_delivery_gone');

      const closed = t.close();
      answers.forEach((answer) => answer());
      await expect(closed).resolves.toBeUndefined();
    } finally {
      await receiver.close();
    }
  });
});
