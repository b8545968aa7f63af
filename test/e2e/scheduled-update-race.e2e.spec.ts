import { setTimeout as sleep } from 'node:timers/promises';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ExpansionService } from '../../src/dispatch/expansion.service';
import { SenderService } from '../../src/dispatch/sender.service';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { makePhone, makeScheduled, makeUser } from '../support/factories';

/*
 * post_update_scheduled against the dispatch taking the same message (docs/api.md#
 * post_update_scheduled): over many rounds, the update goes over HTTP while the dispatch's
 * expansion runs at the same moment, earlier or later by a few milliseconds. Every round ends in
 * one of two ways only: the update answered 200 and every recipient got the new text at the new
 * numbers, or it answered 404 CANNOT_UPDATE and every recipient got the old text at the old
 * numbers. Never a mix, never a recipient lost or sent twice.
 */

const ROUNDS = 30;
const DUE = '2024-01-02 03:04:05';
const OLD = { text: 'Old text', numbers: ['+33612340001', '+33612340002', '+33612340003'] };
const NEW = {
  text: 'New text',
  numbers: ['+33698760001', '+33698760002', '+33698760003', '+33698760004'],
};
/**
 * How long the expansion waits for the update, by round: 0 starts it just before the request
 * is sent, the longest after the update has committed, the ones between while it is on its way
 * or running.
 */
const DELAYS_MS = [0, 1, 2, 3, 5, 8, 40];

describeEachDatabase('post_update_scheduled racing the dispatch', (database) => {
  let t: TestApp;
  let ds: DataSource;
  let expansion: ExpansionService;
  let sender: SenderService;

  beforeAll(async () => {
    t = await startApp(database(), { WORKER: 'off' });
    ds = t.dataSource;
    expansion = t.app.get(ExpansionService);
    sender = t.app.get(SenderService);
  });
  afterAll(async () => {
    await t.close();
  });

  it('either applies the update and sends it as updated, or refuses it and sends the message as it was', async () => {
    const { user, apiKey } = await makeUser(ds);
    await makePhone(ds, user.id, { adapter_data: '{"delivery":"delivered"}' });
    const outcomes = { updated: 0, refused: 0 };

    for (let round = 0; round < ROUNDS; round++) {
      const scheduled = await makeScheduled(ds, user.id, {
        at: DUE,
        text: OLD.text,
        numbers: OLD.numbers.map((number) => ({ number })),
      });
      const delay = DELAYS_MS[round % DELAYS_MS.length];
      const expand =
        delay === 0 ? expansion.expandNext() : sleep(delay).then(() => expansion.expandNext());
      const update = request(t.url)
        .post(`/api/scheduled/${scheduled.id}/`)
        .set('X-Api-Key', apiKey)
        .send({ text: NEW.text, numbers: NEW.numbers })
        .then((response) => response);
      const [response] = await Promise.all([update, expand]);
      // Whatever is left due (the updated message, when the update won) is sent too.
      while (await expansion.expandNext()) {
        // Expands until nothing is due.
      }
      while ((await sender.sendBatches('race-worker', 10)) > 0) {
        // Sends until nothing is queued.
      }

      const sent = await ds.query<Array<{ text: string; destination: string }>>(
        'SELECT text, destination FROM sended WHERE originating_scheduled = ? ORDER BY destination',
        [scheduled.id],
      );
      const left = await ds.query<unknown[]>('SELECT id FROM scheduled WHERE id = ?', [
        scheduled.id,
      ]);
      const round_ = { round, status: response.status, body: response.body as unknown };
      if (response.status === 200) {
        outcomes.updated++;
        expect({ ...round_, sent }).toEqual({
          ...round_,
          body: expect.objectContaining({
            error: 0,
            response: expect.objectContaining({ id: scheduled.id, text: NEW.text }),
          }),
          sent: NEW.numbers.map((destination) => ({ text: NEW.text, destination })),
        });
      } else {
        outcomes.refused++;
        expect({ ...round_, sent }).toEqual({
          ...round_,
          status: 404,
          body: expect.objectContaining({ error: 128, response: null }),
          sent: OLD.numbers.map((destination) => ({ text: OLD.text, destination })),
        });
      }
      expect(left).toEqual([]);
    }

    expect(outcomes.updated).toBeGreaterThan(0);
    expect(outcomes.refused).toBeGreaterThan(0);
    expect(outcomes.updated + outcomes.refused).toBe(ROUNDS);
  });
});
