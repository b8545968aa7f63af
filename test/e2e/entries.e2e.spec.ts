import request from 'supertest';
import { describeEachDatabase } from '../support/databases';
import { startApp, TestApp } from '../support/app';
import { makePhone, makeUser } from '../support/factories';

describeEachDatabase('get_entries', (database) => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startApp(database());
  });
  afterAll(async () => {
    await t.close();
  });

  it('lists the caller’s phones in the envelope, ordered by id', async () => {
    const { user, apiKey } = await makeUser(t.dataSource);
    const first = await makePhone(t.dataSource, user.id);
    const second = await makePhone(t.dataSource, user.id);

    const response = await request(t.url).get('/api/list/phone/').query({ api_key: apiKey });

    expect(response.status).toBe(200);
    expect(Object.keys(response.body)).toEqual(['error', 'message', 'response', 'next', 'prev']);
    expect(response.body.response.map((phone: { id: number }) => phone.id)).toEqual([
      first.id,
      second.id,
    ]);
  });
});
