import { DataSource } from 'typeorm';
import { ExpansionService } from '../../src/dispatch/expansion.service';
import { SenderService } from '../../src/dispatch/sender.service';
import { PACE_AHEAD_MS } from '../../src/dispatch/pacing';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { expectError, expectSuccess, INVALID, INVALID_PARAMETER } from '../support/envelope';
import { makePhone, makeScheduled, makeUser } from '../support/factories';
import { countRows } from '../support/scheduled.factories';

/*
 * Message priority (docs/dispatch.md#priority), through the API and the dispatch driven a batch
 * at a time (no worker running): a high-priority message is expanded before a large campaign
 * due earlier, its row claimed in the next batch ahead of the campaign's backlog (or alongside
 * the batch being sent when it comes due), and on a paced
 * phone it takes the slot of the soonest normal row booked, which takes the phone's next free
 * slot.
 */

const BATCH = 10;
const HIGH = '+33699999999';

function numbers(count: number): Array<{ number: string }> {
  return Array.from({ length: count }, (_, n) => ({
    number: `+3361${String(n).padStart(7, '0')}`,
  }));
}

describeEachDatabase('message priority through the dispatch', (database) => {
  jest.setTimeout(60_000);
  let t: TestApp;
  let ds: DataSource;
  let expansion: ExpansionService;
  let sender: SenderService;

  beforeAll(async () => {
    t = await startApp(database(), { WORKER: 'off', DISPATCH_BATCH_SIZE: String(BATCH) });
    ds = t.dataSource;
    expansion = t.app.get(ExpansionService);
    sender = t.app.get(SenderService);
  });
  afterAll(async () => {
    await t.close();
  });
  // Each case's queue alone: a batch would otherwise take the oldest rows of an earlier case.
  afterEach(async () => {
    await ds.query('DELETE FROM outbox');
    await ds.query('DELETE FROM scheduled_number');
    await ds.query('DELETE FROM scheduled');
  });

  /** A normal message to `count` numbers through `phoneId`, due since long ago. */
  const campaign = (userId: number, phoneId: number, count: number) =>
    makeScheduled(ds, userId, {
      id_phone: phoneId,
      numbers: numbers(count),
      at: '2020-01-01 00:00:00',
    });

  const sendHigh = async (apiKey: string, phoneId: number) => {
    const response = await api(t, apiKey).get('/api/send-sms/', {
      to: HIGH,
      text: 'Your code is 1234',
      id_phone: phoneId,
      priority: 'high',
    });
    expect(response.status).toBe(200);
    return response.body.response as number;
  };

  const entries = (userId: number) =>
    ds.query<Array<{ destination: string }>>(
      'SELECT destination FROM sended WHERE id_user = ? ORDER BY id',
      [userId],
    );

  it('refuses a priority other than high or normal with INVALID_PARAMETER naming it', async () => {
    const { apiKey } = await makeUser(ds);

    const sent = await api(t, apiKey).get('/api/send-sms/', {
      to: HIGH,
      text: 'Hi',
      priority: 'urgent',
    });
    const scheduled = await api(t, apiKey)
      .form('/api/scheduled/')
      .send({ text: 'Hi', numbers: HIGH, priority: '1' });

    expectError(
      sent,
      400,
      INVALID_PARAMETER,
      `${INVALID}priority must be high or normal, got "urgent".`,
    );
    expectError(
      scheduled,
      400,
      INVALID_PARAMETER,
      `${INVALID}priority must be high or normal, got "1".`,
    );
  });

  it('lists priority with scheduled messages, normal by default, and changes it with post_update_scheduled', async () => {
    const { apiKey } = await makeUser(ds);
    const client = api(t, apiKey);
    const later = { text: 'Hi', numbers: HIGH, at: '2999-01-01 00:00:00' };

    const normal = await client.form('/api/scheduled/').send(later);
    const high = await client.json('/api/scheduled/', { ...later, priority: 'high' });
    const updated = await client
      .form(`/api/scheduled/${normal.body.response as number}/`)
      .send({ priority: 'high' });

    expect(updated.status).toBe(200);
    expect((await client.listed('scheduled', high.body.response as number))?.priority).toBe('high');
    expect((await client.listed('scheduled', normal.body.response as number))?.priority).toBe(
      'high',
    );
    const kept = await client
      .form(`/api/scheduled/${normal.body.response as number}/`)
      .send({ text: 'Hello' });
    expectSuccess(kept, 200, expect.objectContaining({ priority: 'high', text: 'Hello' }));
  });

  it('expands a high-priority message before a large campaign due earlier, and sends it in the next batch ahead of the backlog', async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id);
    // More than two expansion steps read (500 recipients each): the campaign is still
    // expanding when the high-priority message comes.
    await campaign(user.id, phone.id, 1200);
    await expansion.expandNext();
    await sender.sendBatches('worker-a', 1);
    expect(await entries(user.id)).toHaveLength(BATCH);

    await sendHigh(apiKey, phone.id);
    await expansion.expandNext();
    await sender.sendBatches('worker-a', 1);

    const sent = (await entries(user.id)).map((entry) => entry.destination);
    expect(sent).toHaveLength(2 * BATCH);
    expect(sent.slice(BATCH)).toContain(HIGH);
    expect(
      await countRows(
        ds,
        "SELECT COUNT(*) AS n FROM outbox WHERE id_user = ? AND state = 'queued'",
        [user.id],
      ),
    ).toBeGreaterThan(0);
  });

  it('sends a high-priority row that comes due while a batch is being sent alongside that batch', async () => {
    const { user, apiKey } = await makeUser(ds);
    const phone = await makePhone(ds, user.id);
    await campaign(user.id, phone.id, 30);
    await expansion.expandNext();
    let prepared = 0;
    // The expansion before the first claim finds nothing new; the one alongside the batch's
    // sends finds the high-priority message.
    const prepare = async () => {
      prepared += 1;
      if (prepared === 2) {
        await sendHigh(apiKey, phone.id);
        await expansion.expandBatch();
      }
      return false;
    };

    await sender.sendBatches('worker-c', 1, () => true, prepare);

    const sent = (await entries(user.id)).map((entry) => entry.destination);
    expect(prepared).toBe(2);
    expect(sent).toHaveLength(BATCH + 1);
    expect(sent).toContain(HIGH);
  });

  it("takes the slot of a paced phone's soonest booked normal row, which takes the phone's next free slot; the other booked rows keep theirs", async () => {
    const { user, apiKey } = await makeUser(ds);
    // One send every 5.2 s: one row is claimed, the others are booked seconds apart.
    const phone = await makePhone(ds, user.id, { rate: 0.2 });
    await campaign(user.id, phone.id, 5);
    await expansion.expandNext();
    await sender.sendBatches('worker-b', 1);
    const before = await slots(user.id);
    // The first row was claimed (and may be sent by now), the others booked.
    const booked = before.filter((row) => row.state === 'queued');
    expect(booked).toHaveLength(4);
    expect(booked[0].pace_slot).toBeGreaterThan(Date.now() + PACE_AHEAD_MS);
    const nextFree = await paceNext(phone.id);

    await sendHigh(apiKey, phone.id);
    await expansion.expandNext();
    await sender.sendBatches('worker-b', 1);

    // The claimed row may have been sent meanwhile: the booked ones are compared.
    const after = (await slots(user.id)).filter((row) => row.state === 'queued');
    const spacing = booked[1].pace_slot - booked[0].pace_slot;
    expect(after).toEqual([
      { destination: HIGH, state: 'queued', priority: 1, pace_slot: booked[0].pace_slot },
      ...booked.slice(1),
      { ...booked[0], pace_slot: nextFree },
    ]);
    expect(await paceNext(phone.id)).toBeCloseTo(nextFree + spacing, -1);
  });

  const slots = async (userId: number) =>
    (
      await ds.query<
        Array<{
          destination: string;
          state: string;
          priority: number | string;
          pace_slot: string | number;
        }>
      >(
        'SELECT destination, state, priority, pace_slot FROM outbox WHERE id_user = ? ORDER BY pace_slot, id',
        [userId],
      )
    ).map((row) => ({ ...row, priority: Number(row.priority), pace_slot: Number(row.pace_slot) }));

  const paceNext = async (phoneId: number) =>
    Number(
      (
        await ds.query<Array<{ n: string | number }>>(
          'SELECT pace_next_ms AS n FROM phone WHERE id = ?',
          [phoneId],
        )
      )[0].n,
    );
});
