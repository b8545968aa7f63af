import { DataSource } from 'typeorm';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makePhone, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';
import { countRows } from '../support/scheduled.factories';

/*
 * The inline worker keeps up while requests arrive: a message due now is dispatched without
 * waiting for the next poll (the write wakes the worker), and under a flood of get_send_sms the
 * worker is not starved: it expands the flood's messages many per transaction and sends them
 * in full batches between the requests' commits.
 */

/** Far longer than any wait below: only the wake-up can dispatch in time. */
const POLL_MS = '60000';
const CLIENTS = 20;
const FLOOD_MS = 3000;

describeEachDatabase('dispatch while requests arrive (inline worker)', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database(), { WORKER: 'inline', DISPATCH_POLL_MS: POLL_MS });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  const sendSms = async (apiKey: string, to: string): Promise<boolean> => {
    const response = await fetch(
      `${t.url}/api/send-sms/?api_key=${apiKey}&to=${encodeURIComponent(to)}&text=Hello`,
    );
    await response.arrayBuffer();
    return response.status === 200;
  };

  const sent = (userId: number) =>
    countRows(ds, 'SELECT COUNT(*) AS n FROM sended WHERE id_user = ?', [userId]);

  it('dispatches a message due now at once, not at the next poll', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id);

    for (const [index, to] of ['+33612345671', '+33612345672'].entries()) {
      expect(await sendSms(apiKey, to)).toBe(true);
      await waitFor(async () => (await sent(user.id)) === index + 1, `entry ${index + 1}`);
    }
  });

  it('keeps up with a flood of get_send_sms: when it stops, most accepted messages are sent', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id);
    let accepted = 0;
    let next = 0;
    const until = Date.now() + FLOOD_MS;

    await Promise.all(
      Array.from({ length: CLIENTS }, async () => {
        while (Date.now() < until) {
          if (await sendSms(apiKey, `+336${String(10_000_000 + next++)}`)) {
            accepted++;
          }
        }
      }),
    );
    const sentWhenItStopped = await sent(user.id);
    await waitFor(async () => (await sent(user.id)) === accepted, `${accepted} entries`);
    const destinations = await countRows(
      ds,
      'SELECT COUNT(DISTINCT destination) AS n FROM sended WHERE id_user = ?',
      [user.id],
    );

    expect(accepted).toBeGreaterThan(CLIENTS);
    expect(sentWhenItStopped / accepted).toBeGreaterThan(0.5);
    expect(destinations).toBe(accepted);
  });
});
