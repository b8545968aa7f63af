import { DateTime } from 'luxon';
import { DataSource } from 'typeorm';
import { MESSAGE_EXPIRED } from '../../src/dispatch/validity';
import { api } from '../support/api-client';
import { startApp, TestApp } from '../support/app';
import { describeEachDatabase } from '../support/databases';
import { expectError, INVALID } from '../support/envelope';
import { makePhone, makeUser } from '../support/factories';
import { waitFor } from '../support/instruments';

/*
 * Send windows (docs/dispatch.md#send-windows) through the HTTP API and the inline worker, on
 * every engine. The service runs in UTC and the users in Asia/Tokyo (UTC+9, no daylight saving),
 * so that a window is read in the user's zone; windows are built around the real clock, and a
 * message sent with `window=none` beside one that waits shows that the worker ran. The days the
 * clocks change are send-window.spec.ts's, with set moments.
 */

const ZONE = 'Asia/Tokyo';

const WINDOW_SYNTAX =
  'one or more HH:MM-HH:MM ranges separated by commas, each optionally preceded by days ' +
  '(mon-fri 08:00-20:00, sat 10:00-18:00); a range may cross midnight (22:00-06:00)';

interface Listed {
  id: number;
  at: string;
  window: string | null;
  send_after: string;
}

/**
 * A one-hour window of `ZONE` opening `hours` from now (minutes cut), and that opening as the
 * API lists UTC datetimes.
 */
function windowIn(hours: number): { window: string; opens: string } {
  const start = DateTime.now().setZone(ZONE).plus({ hours }).startOf('minute');
  const end = start.plus({ hours: 1 });
  return {
    window: `${start.toFormat('HH:mm')}-${end.toFormat('HH:mm')}`,
    opens: start.toUTC().toFormat('yyyy-MM-dd HH:mm:ss'),
  };
}

describeEachDatabase('send windows (inline worker)', (database) => {
  let t: TestApp;
  let ds: DataSource;

  beforeAll(async () => {
    t = await startApp(database(), { WORKER: 'inline', DISPATCH_POLL_MS: '20', TZ: 'UTC' });
    ds = t.dataSource;
  });
  afterAll(async () => {
    await t.close();
  });

  /** A user in ZONE with a `test` phone, and `send_window` set when given. */
  const sender = async (sendWindow = '') => {
    const made = await makeUser(ds, { settings: { timezone: ZONE, send_window: sendWindow } });
    await makePhone(ds, made.user.id);
    return made;
  };

  const sendNow = async (apiKey: string, query: Record<string, string>): Promise<number> => {
    const response = await api(t, apiKey, 'query').get('/api/send-sms/', {
      to: '+33612345678',
      text: 'Hi',
      ...query,
    });
    expect(response.status).toBe(200);
    return (response.body as { response: number }).response;
  };

  const schedule = async (apiKey: string, body: Record<string, unknown>): Promise<number> => {
    const response = await api(t, apiKey).json('/api/scheduled/', body);
    expect(response.status).toBe(201);
    return (response.body as { response: number }).response;
  };

  /** The user's sent entries, once there are `count`. */
  const sentEntries = async (userId: number, count: number) => {
    let rows: Array<{ destination: string; status: string; error: string | null }> = [];
    await waitFor(async () => {
      rows = await ds.query(
        'SELECT destination, status, error FROM sended WHERE id_user = ? ORDER BY id',
        [userId],
      );
      return rows.length >= count;
    }, `${count} sent entries`);
    return rows;
  };

  const sentTo = async (userId: number, count: number): Promise<string[]> =>
    (await sentEntries(userId, count)).map((entry) => entry.destination);

  describe('the settings', () => {
    it('take a window and an IANA zone, and refuse others naming the setting and the syntax', async () => {
      const { apiKey } = await makeUser(ds);
      const post = (body: Record<string, string>) =>
        api(t, apiKey).form('/api/setting/').send(body);

      const stored = await post({ send_window: 'mon-fri 08:00-20:00', timezone: 'asia/tokyo' });
      expect(stored.status).toBe(200);
      const settings = (await api(t, apiKey, 'query').get('/api/setting/')).body as {
        response: Record<string, string>;
      };
      expect(settings.response).toMatchObject({
        send_window: 'mon-fri 08:00-20:00',
        timezone: ZONE,
      });

      expectError(
        await post({ send_window: 'weekdays 8-20' }),
        400,
        2,
        new RegExp(
          `send_window must be empty \\(any time\\), or .*\\(22:00-06:00\\): "weekdays 8-20" is not a range\\.`,
        ),
      );
      expectError(
        await post({ timezone: 'Europe/Lyon' }),
        400,
        2,
        /timezone must be an IANA time zone name \(such as Europe\/Paris\), or empty/,
      );
    });
  });

  describe('the window parameter', () => {
    it.each([
      ['nights', `: "nights" is not a range; got "nights".`],
      [
        'mon 22:00-22:00',
        `: "mon 22:00-22:00" starts and ends at once; for the whole day write 00:00-24:00; got "mon 22:00-22:00".`,
      ],
    ])(
      'refuses %p on get_send_sms and post_scheduled, saying what a window is',
      async (window, end) => {
        const { apiKey } = await sender();
        const message =
          `${INVALID}window must be none (any time), ${WINDOW_SYNTAX}, or left out for your ` +
          `send_window setting${end}`;

        expectError(
          await api(t, apiKey, 'query').get('/api/send-sms/', {
            to: '+33612345678',
            text: 'Hi',
            window,
          }),
          400,
          2,
          message,
        );
        expectError(
          await api(t, apiKey).json('/api/scheduled/', {
            text: 'Hi',
            numbers: ['+33612345678'],
            window,
          }),
          400,
          2,
          message,
        );
        expect(await api(t, apiKey).list('scheduled')).toEqual([]);
      },
    );
  });

  describe('a message due outside its window', () => {
    it("waits in scheduled until the user's window opens, listed with send_after; none goes at once", async () => {
      const { window, opens } = windowIn(3);
      const { user, apiKey } = await sender(window);

      const waiting = await sendNow(apiKey, { to: '+33611111111' });
      await sendNow(apiKey, { to: '+33622222222', window: 'none' });

      expect(await sentTo(user.id, 1)).toEqual(['+33622222222']);
      const listed = await api(t, apiKey).list<Listed>('scheduled');
      expect(listed).toEqual([
        expect.objectContaining({ id: waiting, window: null, send_after: opens }),
      ]);
      const queue = await api(t, apiKey).get('/api/stats/queue/');
      expect(queue.body.response).toEqual({ due: 0, to_come: 1, sending: 0 });
    });

    it('waits for the window it was given rather than the setting; an update of its at moves send_after', async () => {
      // The user's window is always open: the message's own is what holds it back.
      const { apiKey } = await sender('00:00-24:00');
      const { window, opens } = windowIn(5);
      const utc = (moment: DateTime) => moment.toUTC().toFormat('yyyy-MM-dd HH:mm:ss');
      const opening = DateTime.fromFormat(opens, 'yyyy-MM-dd HH:mm:ss', { zone: 'utc' });
      // Two hours after the window opens, an hour after it closes: the next day's opening.
      const id = await schedule(apiKey, {
        text: 'Hi',
        numbers: ['+33633333333'],
        at: utc(opening.plus({ hours: 2 })),
        window,
      });

      expect(await api(t, apiKey).list<Listed>('scheduled')).toEqual([
        expect.objectContaining({ id, window, send_after: utc(opening.plus({ days: 1 })) }),
      ]);

      // Due long ago: it may go out when its window next opens from now.
      const updated = await api(t, apiKey)
        .form(`/api/scheduled/${id}/`)
        .send({ at: '2020-01-01 18:00:00' });
      expect(updated.body.response).toMatchObject({ id, window, send_after: opens });
    });

    it('goes at once when its window is open', async () => {
      const { window } = windowIn(-0.5);
      const { user, apiKey } = await sender(window);

      await sendNow(apiKey, { to: '+33644444444' });

      expect(await sentTo(user.id, 1)).toEqual(['+33644444444']);
    });
  });

  describe('a recipient whose window closed while it was queued', () => {
    /**
     * A message whose recipient is queued with `window` (of ZONE) applying, as if the window
     * had closed since the message was taken: the message is stored far ahead, its window
     * written, then made due.
     */
    const queuedClosed = async (window: string, validity?: number) => {
      const { user, apiKey } = await sender();
      const id = await schedule(apiKey, {
        text: 'Hi',
        numbers: ['+33655555555'],
        at: '2999-01-01 00:00:00',
        ...(validity ? { validity } : {}),
      });
      await ds.query(
        'UPDATE scheduled SET at = ?, send_after = ?, effective_window = ? WHERE id = ?',
        [
          DateTime.utc().toFormat('yyyy-MM-dd HH:mm:ss'),
          '2020-01-01 00:00:00',
          `${ZONE} ${window}`,
          id,
        ],
      );
      return { user, id };
    };

    it('waits in the queue until it reopens, its phone not chosen', async () => {
      const { window, opens } = windowIn(4);
      const { user, id } = await queuedClosed(window);

      let rows: Array<{ state: string; next_attempt_at: string; via_phone: number | null }> = [];
      await waitFor(async () => {
        rows = await ds.query(
          'SELECT state, next_attempt_at, via_phone FROM outbox WHERE originating_scheduled = ?',
          [id],
        );
        return rows.length === 1 && String(rows[0].next_attempt_at).slice(0, 19) === opens;
      }, 'the recipient put back until its window opens');

      expect(rows[0]).toMatchObject({ state: 'queued', via_phone: null });
      const sent = await ds.query('SELECT id FROM sended WHERE id_user = ?', [user.id]);
      expect(sent).toEqual([]);
    });

    it('expires, failed with its reason, when its validity ends before the window reopens', async () => {
      const { window, opens } = windowIn(4);
      const { user } = await queuedClosed(window, 60);

      const [entry] = await sentEntries(user.id, 1);

      expect(entry.status).toBe('failed');
      expect(entry.error).toMatch(
        new RegExp(
          `^${MESSAGE_EXPIRED}: its validity ends at .*, before its send window opens at ${opens}\\.$`,
        ),
      );
    });
  });
});
