import { createHash } from 'node:crypto';
import { FakeOvh, FakeServer, startFakeOvh } from '../../../test/support/adapters.factories';
import { ProviderHttp } from '../provider-http';
import { OvhClient, ovhSignature } from './ovh.client';

const CREDENTIALS = {
  appKey: FakeOvh.APP_KEY,
  appSecret: FakeOvh.APP_SECRET,
  consumerKey: FakeOvh.CONSUMER_KEY,
};

describe('ovhSignature', () => {
  it('is $1$ and the SHA-1 of secret, consumer key, method, URL, body and timestamp joined by +', () => {
    const url = 'https://eu.api.ovh.com/1.0/sms/sms-ab12345-1/jobs';
    const body = '{"message":"hi"}';
    const expected = createHash('sha1')
      .update(`${FakeOvh.APP_SECRET}+${FakeOvh.CONSUMER_KEY}+POST+${url}+${body}+1700000000`)
      .digest('hex');

    expect(ovhSignature(CREDENTIALS, 'POST', url, body, 1700000000)).toBe(`$1$${expected}`);
  });
});

describe('OvhClient', () => {
  let fake: FakeOvh;
  let server: FakeServer;
  let apiUrl: string;

  beforeEach(async () => {
    ({ fake, server, apiUrl } = await startFakeOvh());
  });
  afterEach(() => server.close());

  it("asks OVH's time once, then advances it with the local clock", async () => {
    let now = Date.now();
    const client = new OvhClient(
      apiUrl,
      CREDENTIALS,
      new ProviderHttp('OVH', apiUrl, 5000),
      () => now,
    );

    const first = await client.request('GET', `/sms/${FakeOvh.SERVICE}`);
    now += 5000;
    const second = await client.request('GET', `/sms/${FakeOvh.SERVICE}`);

    expect([first.ok && first.status, second.ok && second.status]).toEqual([200, 200]);
    const signed = fake.calls.filter((call) => call.path !== '/auth/time');
    expect(fake.calls.filter((call) => call.path === '/auth/time')).toHaveLength(1);
    expect(Number(signed[1].timestamp) - Number(signed[0].timestamp)).toBe(5);
  });

  it('reports an OVH whose time query fails', async () => {
    fake.failWith = 503;
    const client = new OvhClient(apiUrl, CREDENTIALS, new ProviderHttp('OVH', apiUrl, 5000));

    expect(await client.request('GET', `/sms/${FakeOvh.SERVICE}`)).toEqual({
      ok: false,
      reason: 'OVH answered HTTP 503: it is failing on its side, try again later.',
      mayHaveReached: false,
    });
  });
});
