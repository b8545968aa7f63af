import { LookupAddress } from 'node:dns';
import { WebhookDelivery } from '../../src/events/entities/webhook-delivery.entity';
import { WebhookDeliverer } from '../../src/webhook-delivery/webhook-deliverer.service';
import { FakeServer, startFakeServer } from '../support/adapters.factories';
import { startApp, TestApp } from '../support/app';
import { api } from '../support/api-client';
import { describeEachDatabase } from '../support/databases';
import { makeUser } from '../support/factories';
import { expectError, INVALID, INVALID_PARAMETER } from '../support/envelope';

/*
 * Webhook URLs pass the outbound policy on the address actually connected to, with
 * OUTBOUND_BLOCK_PRIVATE=true: a name that resolves to 127.0.0.1 is refused at creation, and one
 * that resolved to a public address then, and to 127.0.0.1 when its event is delivered, fails
 * that delivery without reaching 127.0.0.1. The test's resolver stands in for DNS.
 */

const REFUSED =
  "resolves to an address refused by the server's outbound policy (loopback); an operator can " +
  'allow it with OUTBOUND_ALLOW.';

describeEachDatabase('webhook URLs and the outbound policy', (database) => {
  let t: TestApp;
  let receiver: FakeServer;
  let hits = 0;
  const names = new Map<string, string>();

  beforeAll(async () => {
    receiver = await startFakeServer((_request, response) => {
      hits += 1;
      response.writeHead(200);
      response.end();
    });
    const resolve = (host: string): Promise<LookupAddress[]> => {
      const address = names.get(host);
      return address
        ? Promise.resolve([{ address, family: 4 }])
        : Promise.reject(
            Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }),
          );
    };
    t = await startApp(database(), { OUTBOUND_BLOCK_PRIVATE: 'true' }, resolve);
  });
  afterAll(async () => {
    await t.close();
    await receiver.close();
  });

  it('refuses at creation and at update a name that resolves to a loopback address', async () => {
    const { apiKey } = await makeUser(ds());
    names.set('inside.example.test', '127.0.0.1');
    names.set('outside.example.test', '203.0.113.10');
    const url = `http://inside.example.test:${receiver.port}/hook`;

    expectError(
      await api(t, apiKey).json('/api/webhook/', { url, type: 'receive_sms' }),
      400,
      INVALID_PARAMETER,
      `${INVALID}url : the host inside.example.test ${REFUSED}`,
    );
    const created = await api(t, apiKey).json('/api/webhook/', {
      url: 'https://outside.example.test/hook',
      type: 'receive_sms',
    });
    expect(created.status).toBe(201);
    expectError(
      await api(t, apiKey)
        .form(`/api/webhook/${created.body.response as number}/`)
        .send({ url }),
      400,
      INVALID_PARAMETER,
      `${INVALID}url : the host inside.example.test ${REFUSED}`,
    );
  });

  it('fails a delivery whose name resolves to a loopback address by then, without connecting', async () => {
    const { apiKey } = await makeUser(ds());
    names.set('moving.example.test', '203.0.113.10');
    const created = await api(t, apiKey)
      .form('/api/webhook/')
      .send({
        url: `http://moving.example.test:${receiver.port}/hook`,
        type: 'receive_sms',
      });
    expect(created.status).toBe(201);
    const webhookId = created.body.response as number;
    const queued = await api(t, apiKey).json(`/api/webhook/${webhookId}/test/`, {});
    names.set('moving.example.test', '127.0.0.1');
    const before = hits;

    await t.app.get(WebhookDeliverer).deliverDue(new Date());

    expect(
      await ds()
        .getRepository(WebhookDelivery)
        .findOneByOrFail({ id: queued.body.response as number }),
    ).toMatchObject({
      status: 'failed',
      attempts: 1,
      last_http_status: null,
      last_error: `Not sent: the host moving.example.test ${REFUSED}`,
    });
    expect(hits).toBe(before);
  });

  function ds() {
    return t.dataSource;
  }
});
