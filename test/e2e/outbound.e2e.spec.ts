import { IncomingMessage, ServerResponse } from 'node:http';

import { DataSource } from 'typeorm';
import { Phone } from '../../src/phones/entities/phone.entity';
import { FakeServer, startFakeServer } from '../support/adapters.factories';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makePhone, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';

/*
 * The outbound policy end to end, on every database engine: a Kannel phone whose sendsms URL
 * the policy refuses is refused at creation naming the field, and a phone whose URL it came to
 * refuse fails its messages saying why, without connecting.
 */

const ENVELOPE_KEYS = ['error', 'message', 'response', 'next', 'prev'];
const INVALID = 'You have specified an invalid parameter : ';
const POLICY = "by the server's outbound policy";
const ALLOW_HINT = 'an operator can allow it with OUTBOUND_ALLOW.';

interface SendedEntry {
  id: number;
  status: string;
  error: string | null;
  destination: string;
}

/** A Kannel sendsms interface that takes every message and counts the requests it gets. */
class FakeKannel {
  requests = 0;

  readonly handle = (incoming: IncomingMessage, response: ServerResponse): void => {
    this.requests += 1;
    const send = new URL(incoming.url ?? '/', 'http://kannel').searchParams.has('to');
    response.writeHead(send ? 202 : 400, { 'Content-Type': 'text/plain' });
    response.end(send ? '0: Accepted for delivery' : 'Missing receiver number');
  };
}

const kannelData = (url: string) => ({
  kannel_sendsms_url: url,
  username: 'smsgw',
  password: 'kannel-secret',
  from: 'smsgw',
});

describeEachDatabase('outbound policy', (database) => {
  let fake: FakeKannel;
  let kannel: FakeServer;

  beforeAll(async () => {
    fake = new FakeKannel();
    // On every local address: a connection to 0.0.0.0 or [::] would reach it.
    kannel = await startFakeServer(fake.handle, '::');
  });
  afterAll(async () => {
    await kannel.close();
  });
  beforeEach(() => {
    fake.requests = 0;
  });

  const createKannelPhone = (t: TestApp, apiKey: string, name: string, url: string) =>
    api(t, apiKey).json('/api/phone/', { name, adapter: 'kannel', adapter_data: kannelData(url) });

  const phonesOf = (ds: DataSource, userId: number) =>
    ds.getRepository(Phone).countBy({ id_user: userId });

  describe('by default', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startApp(database());
    });
    afterAll(async () => {
      await t.close();
    });

    it.each([
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', 'link-local'],
      ['http://[::ffff:169.254.169.254]/cgi-bin/sendsms', '::ffff:a9fe:a9fe', 'link-local'],
      ['http://0.0.0.0:PORT/cgi-bin/sendsms', '0.0.0.0', 'unspecified'],
      ['http://[::]:PORT/cgi-bin/sendsms', '::', 'unspecified'],
      ['http://0:PORT/cgi-bin/sendsms', '0.0.0.0', 'unspecified'],
    ])(
      'refuses a kannel phone at %s with INVALID_PARAMETER naming the field, connecting nowhere',
      async (url, address, range) => {
        const { user, apiKey } = await makeUser(t.dataSource);

        const response = await createKannelPhone(
          t,
          apiKey,
          'metadata',
          url.replace('PORT', String(kannel.port)),
        );

        expect({ status: response.status, body: response.body }).toEqual({
          status: 400,
          body: {
            error: 2,
            message: `${INVALID}adapter_data[kannel_sendsms_url] : the address ${address} is refused ${POLICY} (${range}); ${ALLOW_HINT}`,
            response: null,
            next: null,
            prev: null,
          },
        });
        expect(Object.keys(response.body)).toEqual(ENVELOPE_KEYS);
        expect(fake.requests).toBe(0);
        expect(await phonesOf(t.dataSource, user.id)).toBe(0);
      },
    );

    it('refuses to move a kannel phone to a link-local URL, keeping the phone as it was', async () => {
      const { user, apiKey } = await makeUser(t.dataSource);
      const url = `http://127.0.0.1:${kannel.port}/cgi-bin/sendsms`;
      const phone = await makePhone(t.dataSource, user.id, {
        adapter: 'kannel',
        adapter_data: JSON.stringify(kannelData(url)),
      });

      const response = await api(t, apiKey).json(`/api/phone/${phone.id}/`, {
        adapter_data: { kannel_sendsms_url: 'http://[fe80::1]/cgi-bin/sendsms' },
      });

      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        error: 2,
        message: `${INVALID}adapter_data[kannel_sendsms_url] : the address fe80::1 is refused ${POLICY} (link-local); ${ALLOW_HINT}`,
      });
      const stored = await t.dataSource.getRepository(Phone).findOneByOrFail({ id: phone.id });
      expect(JSON.parse(stored.adapter_data ?? '{}')).toMatchObject({ kannel_sendsms_url: url });
    });

    it('creates a kannel phone on loopback, which the default policy allows', async () => {
      const { apiKey } = await makeUser(t.dataSource);

      const response = await createKannelPhone(
        t,
        apiKey,
        'local kannel',
        `http://127.0.0.1:${kannel.port}/cgi-bin/sendsms`,
      );

      expect(response.status).toBe(201);
      expect(fake.requests).toBe(1);
    });
  });

  describe('with OUTBOUND_BLOCK_PRIVATE=true and OUTBOUND_ALLOW=localhost', () => {
    let t: TestApp;

    beforeAll(async () => {
      t = await startApp(database(), {
        OUTBOUND_BLOCK_PRIVATE: 'true',
        OUTBOUND_ALLOW: 'localhost',
        WORKER: 'inline',
        DISPATCH_POLL_MS: '20',
        DISPATCH_RETRY_BASE_MS: '20',
      });
    });
    afterAll(async () => {
      await t.close();
    });

    const sendedOf = async (apiKey: string): Promise<SendedEntry[]> => {
      const response = await api(t, apiKey, 'query').get('/api/list/sended/');
      return (response.body as { response: SendedEntry[] }).response;
    };

    it('refuses a kannel phone on 127.0.0.1, naming the field', async () => {
      const { user, apiKey } = await makeUser(t.dataSource);

      const response = await createKannelPhone(
        t,
        apiKey,
        'local kannel',
        `http://127.0.0.1:${kannel.port}/cgi-bin/sendsms`,
      );

      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        error: 2,
        message: `${INVALID}adapter_data[kannel_sendsms_url] : the address 127.0.0.1 is refused ${POLICY} (loopback); ${ALLOW_HINT}`,
      });
      expect(fake.requests).toBe(0);
      expect(await phonesOf(t.dataSource, user.id)).toBe(0);
    });

    it('creates a kannel phone on localhost, which OUTBOUND_ALLOW lists', async () => {
      const { apiKey } = await makeUser(t.dataSource);

      const response = await createKannelPhone(
        t,
        apiKey,
        'allowed kannel',
        `http://localhost:${kannel.port}/cgi-bin/sendsms`,
      );

      expect(response.status).toBe(201);
      expect(fake.requests).toBe(1);
    });

    it('fails at once, saying why, a message through a phone made before the policy refused its URL', async () => {
      const { user, apiKey } = await makeUser(t.dataSource);
      const url = `http://127.0.0.1:${kannel.port}/cgi-bin/sendsms`;
      await makePhone(t.dataSource, user.id, {
        adapter: 'kannel',
        adapter_data: JSON.stringify(kannelData(url)),
      });

      const scheduled = await api(t, apiKey).json('/api/scheduled/', {
        text: 'Hello',
        numbers: ['+33612345678'],
      });
      expect(scheduled.status).toBe(201);
      let entries: SendedEntry[] = [];
      await waitFor(async () => {
        entries = await sendedOf(apiKey);
        return entries.length > 0;
      }, 'the sent entry');

      expect(entries).toEqual([
        expect.objectContaining({
          destination: '+33612345678',
          status: 'failed',
          error: `smsgw does not connect to Kannel at ${url}: the address 127.0.0.1 is refused ${POLICY} (loopback); ${ALLOW_HINT}`,
        }),
      ]);
      expect(fake.requests).toBe(0);
    });
  });
});
