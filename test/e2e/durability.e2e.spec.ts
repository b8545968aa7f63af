import { DataSource } from 'typeorm';
import { migrate } from '../../src/database/data-source';
import { openTestDataSource } from '../support/app';
import { BuiltApp, requireBuild, startBuiltApp } from '../support/built-app';
import { describeEachDatabase } from '../support/databases';
import { makeUser } from '../support/factories';

/*
 * An answer to get_send_sms or post_scheduled leaves only once the commit that holds its
 * message is synced, however many requests share that commit. The compiled server is killed
 * (SIGKILL) at random moments under concurrent load, then started again on the same database:
 * every message that got a success answer is there, whole, with the id it was answered with.
 * The server runs with WORKER=off, so that nothing dispatches (and deletes) the messages.
 */

const ROUNDS = 3;
const CLIENTS = 20;
/** The kill falls at a random moment within this window after the first answer, in ms. */
const KILL_AFTER = [50, 800];

interface Accepted {
  text: string;
  id: number;
  numbers: number;
}

describeEachDatabase('accepted messages across SIGKILL', (database) => {
  let apiKey: string;
  let userId: number;

  beforeAll(async () => {
    requireBuild();
    const ds = await openTestDataSource(database());
    await migrate(ds);
    const made = await makeUser(ds);
    apiKey = made.apiKey;
    userId = made.user.id;
    await ds.destroy();
  });

  /** Sends one message (get_send_sms, or every fourth post_scheduled with two numbers). */
  async function send(app: BuiltApp, text: string, post: boolean): Promise<Response> {
    const key = `api_key=${apiKey}&text=${encodeURIComponent(text)}`;
    return post
      ? fetch(`${app.url}/api/scheduled/`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: `${key}&numbers[]=%2B33612345678&numbers[]=%2B33612345679`,
        })
      : fetch(`${app.url}/api/send-sms/?${key}&to=%2B33612345678`);
  }

  /**
   * Loads `app` from CLIENTS clients and kills it as the first request after `killAfter` ms from
   * its first answer leaves: what it accepted, what it refused, and how many requests the kill
   * cut.
   */
  async function loadAndKill(app: BuiltApp, round: number, killAfter: number) {
    const accepted: Accepted[] = [];
    const refused: string[] = [];
    let killing = false;
    let cut = 0;
    let due = false;
    let stopped: Promise<void> = Promise.resolve();
    let answered!: () => void;
    const timer = new Promise<void>((resolve) => (answered = resolve)).then(
      () =>
        new Promise<void>((resolve) =>
          setTimeout(() => {
            due = true;
            resolve();
          }, killAfter),
        ),
    );
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        for (let i = 0; !killing; i += 1) {
          const text = `durable ${round}.${client}.${i}`;
          const post = i % 4 === 3;
          const sent = send(app, text, post);
          // The kill comes with a request on its way: when the server answers a whole wave
          // before this process reads the answers, a kill from the timer alone found none.
          if (due && !killing) {
            killing = true;
            stopped = app.stop('SIGKILL');
          }
          try {
            const response = await sent;
            const body = (await response.json()) as { error: number; response: number };
            if (response.ok && body.error === 0) {
              accepted.push({ text, id: body.response, numbers: post ? 2 : 1 });
            } else {
              refused.push(`${text}: ${response.status} ${JSON.stringify(body)}`);
            }
            answered();
          } catch (error) {
            if (killing) {
              // The server died before its answer, or during it: nothing was promised.
              cut += 1;
            } else {
              refused.push(`${text}: ${String(error)}`);
              answered();
            }
          }
        }
      }),
    );
    await timer;
    await stopped;
    return { accepted, refused, cut };
  }

  async function stored(ds: DataSource): Promise<Map<string, { id: number; numbers: number }>> {
    const rows = await ds.query<Array<{ id: number; text: string; numbers: number | string }>>(
      'SELECT s.id, s.text, COUNT(n.id) AS numbers FROM scheduled s ' +
        'LEFT JOIN scheduled_number n ON n.id_scheduled = s.id WHERE s.id_user = ? ' +
        'GROUP BY s.id, s.text',
      [userId],
    );
    return new Map(
      rows.map((row) => [row.text, { id: Number(row.id), numbers: Number(row.numbers) }]),
    );
  }

  it('keeps every message answered with success, across kills at random moments', async () => {
    const env = {
      DATABASE_URL: database().url,
      DATA_DIR: database().dataDir,
      LOG_LEVEL: 'silent',
      WORKER: 'off',
    };
    const accepted: Accepted[] = [];
    for (let round = 0; round < ROUNDS; round += 1) {
      const app = await startBuiltApp(env, database().dataDir);
      const killAfter = KILL_AFTER[0] + Math.random() * (KILL_AFTER[1] - KILL_AFTER[0]);
      const loaded = await loadAndKill(app, round, killAfter);

      expect(loaded.refused).toEqual([]);
      // The kill fell under load: it cut requests.
      expect(loaded.cut).toBeGreaterThan(0);
      accepted.push(...loaded.accepted);
    }

    const ds = await openTestDataSource(database());
    try {
      const rows = await stored(ds);
      const lost = accepted.filter(
        ({ text, id, numbers }) => rows.get(text)?.id !== id || rows.get(text)?.numbers !== numbers,
      );
      expect(lost).toEqual([]);
    } finally {
      await ds.destroy();
    }
  }, 60_000);
});
