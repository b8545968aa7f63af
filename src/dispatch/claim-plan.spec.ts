import { Adapter } from '../adapters/adapter';
import { OpenedData } from '../adapters/adapter-data.cipher';
import { QuotaState } from '../users/quota';
import { ClaimInput, ClaimTools, planClaims } from './claim-plan';
import { routes } from './claim-routes';
import { QUOTA_EXPIRED, QUOTA_SPENT, quotaBudget } from './quota-budget';
import { makeQuotaState } from '../../test/support/quota.factories';
import { makeOutboxRow, makePhoneRow } from '../../test/support/dispatch-rows.factories';
import { OutboxRow, PhoneRow } from './dispatch-rows';
import { PACE_AHEAD_MS, PACE_LEAD_MS } from './pacing';

const NOW = new Date('2026-01-10T12:00:00Z');

const quota = (overrides: Partial<QuotaState> = {}): QuotaState =>
  makeQuotaState({ credit: 10, auto_renew: false, ...overrides });

const adapter = (mms = false): Adapter =>
  ({ capabilities: { flash: false, mms } }) as unknown as Adapter;

const tools = (overrides: Partial<ClaimTools> = {}): ClaimTools => ({
  adapter: (name) => (name === 'test' ? adapter() : name === 'mms' ? adapter(true) : undefined),
  open: (): OpenedData => ({ data: {}, unreadable: [] }),
  ...overrides,
});

/** A plan's input for `rows` sent through the user's `phones`, without limits, pacing or quota. */
const input = (
  rows: OutboxRow[],
  phones: PhoneRow[],
  overrides: Partial<ClaimInput> = {},
): ClaimInput => ({
  rows,
  routes: routes(rows, phones, new Map()),
  now: NOW,
  settings: new Map(),
  remaining: new Map(),
  paces: new Map(),
  swappable: new Map(),
  quotas: new Map(),
  mediaPaths: new Map(),
  timeZone: 'UTC',
  publicUrl: 'https://sms.example',
  basePath: '',
  ...overrides,
});

describe('planClaims', () => {
  it('claims a row through its phone with its text', () => {
    const plan = planClaims(input([makeOutboxRow(1)], [makePhoneRow(1)]), tools());

    expect(plan.claimed).toHaveLength(1);
    expect(plan.claimed[0]).toMatchObject({ phone: { id: 1 }, text: 'Hello', slot: null });
    expect(plan.refused).toEqual([]);
  });

  it("chooses among the user's phones by priority, then by what each limited one has left after the plan's own claims", () => {
    const plan = planClaims(
      input(
        [makeOutboxRow(1), makeOutboxRow(2), makeOutboxRow(3)],
        [makePhoneRow(1, { priority: 1 }), makePhoneRow(2, { priority: 5 })],
        {
          settings: new Map([[1, { phone_limit: '1', phone_priority: '1' }]]),
          remaining: new Map([
            [1, 5],
            [2, 1],
          ]),
        },
      ),
      tools(),
    );

    expect(plan.claimed.map((claimed) => [claimed.row.id, claimed.phone.id])).toEqual([
      [1, 2],
      [2, 1],
      [3, 1],
    ]);
  });

  it('chooses a phone that sends MMS for an MMS, and one free now over a paced one whose turn is far', () => {
    const far = NOW.getTime() + 10 * PACE_AHEAD_MS;
    const plan = planClaims(
      input(
        [makeOutboxRow(1, { mms: 1 }), makeOutboxRow(2)],
        [makePhoneRow(1, { adapter: 'mms', rate: 1 }), makePhoneRow(2)],
        {
          paces: new Map([[1, { next: far, spacing: 1000 }]]),
        },
      ),
      tools(),
    );

    expect(plan.claimed.map((claimed) => [claimed.row.id, claimed.phone.id])).toEqual([[2, 2]]);
    expect(plan.bookings).toEqual([{ id: 1, phoneId: 1, slot: far }]);
  });

  it('refuses a row its user has no phone for, saying why', () => {
    const plan = planClaims(
      input([makeOutboxRow(1), makeOutboxRow(2, { id_phone_group: 7 })], []),
      tools(),
    );

    expect(plan.refused.map(({ reason }) => reason)).toEqual([
      'No phone to send it: the user has no phone.',
      'No phone to send it: the phone group has no phone.',
    ]);
  });

  it('refuses a row whose phone is not available, has an unknown adapter or unreadable credentials', () => {
    const plan = planClaims(
      input(
        [
          makeOutboxRow(1, { id_phone: 1 }),
          makeOutboxRow(2, { id_phone: 2 }),
          makeOutboxRow(3, { id_phone: 3 }),
        ],
        [
          makePhoneRow(1, { status: 'no_credit' }),
          makePhoneRow(2, { adapter: 'gone' }),
          makePhoneRow(3),
        ],
      ),
      tools({ open: (opened) => ({ data: {}, unreadable: opened.id === 3 ? ['password'] : [] }) }),
    );

    expect(plan.claimed).toEqual([]);
    expect(plan.refused.map(({ reason }) => reason)).toEqual([
      'The phone has no credit left.',
      "The phone's adapter gone is unknown.",
      expect.stringMatching(/send its adapter_data again with post_update_phone\.$/),
    ]);
  });

  it("refuses rows beyond a limited phone's remaining volume", () => {
    const plan = planClaims(
      input([makeOutboxRow(1), makeOutboxRow(2)], [makePhoneRow(1)], {
        settings: new Map([[1, { phone_limit: '1' }]]),
        remaining: new Map([[1, 1]]),
      }),
      tools(),
    );

    expect(plan.claimed.map((claimed) => claimed.row.id)).toEqual([1]);
    expect(plan.refused.map(({ reason }) => reason)).toEqual([
      'The phone has reached its sending limit.',
    ]);
  });

  it('sends medias as links appended to the text through a phone without MMS, and as an MMS through one with', () => {
    const rows = [
      makeOutboxRow(1, { media_ids: [5], id_phone: 1 }),
      makeOutboxRow(2, { media_ids: [5], id_phone: 2, mms: 1 }),
    ];
    const plan = planClaims(
      input(rows, [makePhoneRow(1), makePhoneRow(2, { adapter: 'mms' })], {
        mediaPaths: new Map([[5, 'u1/a.png']]),
      }),
      tools(),
    );

    expect(plan.claimed[0]).toMatchObject({
      text: 'Hello\nhttps://sms.example/media/u1/a.png',
      medias: [],
    });
    expect(plan.claimed[1]).toMatchObject({
      text: 'Hello',
      medias: [{ path: 'u1/a.png', mimetype: null, url: 'https://sms.example/media/u1/a.png' }],
    });
  });

  it('refuses medias as links without PUBLIC_URL', () => {
    const plan = planClaims(
      input([makeOutboxRow(1, { media_ids: [5] })], [makePhoneRow(1)], {
        mediaPaths: new Map([[5, 'u1/a.png']]),
        publicUrl: null,
      }),
      tools(),
    );

    expect(plan.refused[0].reason).toMatch(/PUBLIC_URL is not set/);
  });

  it('gives paced rows consecutive slots, and books those too far ahead instead of claiming them', () => {
    const rate = 1;
    const spacing = 1000 / (rate * 0.97);
    const plan = planClaims(
      input(
        [makeOutboxRow(1), makeOutboxRow(2), makeOutboxRow(3), makeOutboxRow(4)],
        [makePhoneRow(1, { rate })],
        {
          paces: new Map([[1, { next: NOW.getTime(), spacing }]]),
        },
      ),
      tools(),
    );

    const first = NOW.getTime() + PACE_LEAD_MS;
    expect(plan.claimed.map((claimed) => claimed.slot)).toEqual([first, first + spacing]);
    expect(plan.bookings.map((booking) => booking.id)).toEqual([3, 4]);
    expect(plan.bookings.every((booking) => booking.slot > NOW.getTime() + PACE_AHEAD_MS)).toBe(
      true,
    );
    expect(plan.paces.get(1)).toBeCloseTo(first + 4 * spacing);
  });

  it('keeps the slot a row was booked', () => {
    const slot = NOW.getTime() + 500;
    const plan = planClaims(
      input([makeOutboxRow(1, { via_phone: 1, pace_slot: slot })], [makePhoneRow(1, { rate: 1 })], {
        paces: new Map([[1, { next: NOW.getTime() + 5000, spacing: 1000 }]]),
      }),
      tools(),
    );

    expect(plan.claimed[0].slot).toBe(slot);
    expect(plan.paces.size).toBe(0);
  });

  it("gives a high-priority row the slot of the soonest normal row booked beyond the claim's reach, and that row the phone's next free slot", () => {
    const far = NOW.getTime() + 60_000;
    const booked = [
      { id: 10, slot: NOW.getTime() + PACE_AHEAD_MS + 1000 },
      { id: 11, slot: NOW.getTime() + PACE_AHEAD_MS + 2000 },
    ];
    const plan = planClaims(
      input(
        [makeOutboxRow(1, { priority: 1 }), makeOutboxRow(2, { priority: 1 }), makeOutboxRow(3)],
        [makePhoneRow(1, { rate: 1 })],
        {
          paces: new Map([[1, { next: far, spacing: 1000 }]]),
          swappable: new Map([[1, booked]]),
        },
      ),
      tools(),
    );

    expect(plan.claimed).toEqual([]);
    expect(plan.bookings).toEqual([
      { id: 1, phoneId: 1, slot: booked[0].slot },
      { id: 10, phoneId: 1, slot: far },
      { id: 2, phoneId: 1, slot: booked[1].slot },
      { id: 11, phoneId: 1, slot: far + 1000 },
      { id: 3, phoneId: 1, slot: far + 2000 },
    ]);
    expect(plan.paces.get(1)).toBe(far + 3000);
  });

  it('books a high-priority row at the next free slot when no normal row is booked ahead of it, and claims it when that slot is near', () => {
    const far = NOW.getTime() + 60_000;
    const booked = plan([makeOutboxRow(1, { priority: 1 })], far);
    const near = plan([makeOutboxRow(1, { priority: 1 })], NOW.getTime());

    expect(booked.bookings).toEqual([{ id: 1, phoneId: 1, slot: far }]);
    expect(near.claimed.map((claimed) => claimed.slot)).toEqual([NOW.getTime() + PACE_LEAD_MS]);
    expect(near.bookings).toEqual([]);

    function plan(rows: OutboxRow[], next: number) {
      return planClaims(
        input(rows, [makePhoneRow(1, { rate: 1 })], {
          paces: new Map([[1, { next, spacing: 1000 }]]),
          swappable: new Map([[1, []]]),
        }),
        tools(),
      );
    }
  });

  it('never moves a booked row for a normal-priority row', () => {
    const far = NOW.getTime() + 60_000;
    const plan = planClaims(
      input([makeOutboxRow(1)], [makePhoneRow(1, { rate: 1 })], {
        paces: new Map([[1, { next: far, spacing: 1000 }]]),
        swappable: new Map([[1, [{ id: 10, slot: NOW.getTime() + PACE_AHEAD_MS + 1000 }]]]),
      }),
      tools(),
    );

    expect(plan.bookings).toEqual([{ id: 1, phoneId: 1, slot: far }]);
  });

  it("reserves each claimed row's segments of its user's quota, and refuses what it cannot cover", () => {
    const plan = planClaims(
      input([makeOutboxRow(1), makeOutboxRow(2), makeOutboxRow(3)], [makePhoneRow(1)], {
        quotas: new Map([[1, quotaBudget(quota({ credit: 2 }))]]),
      }),
      tools(),
    );

    expect(plan.claimed.map((claimed) => claimed.row.quota_segments)).toEqual([1, 1]);
    expect(plan.reserved.get(1)).toBe(2);
    expect(plan.refused[0].reason).toMatch(
      new RegExp(`^${QUOTA_SPENT}: this message needs 1 SMS segment and 0 are left`),
    );
  });

  it('refuses every row of a user whose quota expired', () => {
    const plan = planClaims(
      input([makeOutboxRow(1)], [makePhoneRow(1)], {
        quotas: new Map([[1, quotaBudget(quota({ expiration_date: '2026-01-05 00:00:00' }))]]),
      }),
      tools(),
    );

    expect(plan.reserved.size).toBe(0);
    expect(plan.refused[0].reason).toMatch(new RegExp(`^${QUOTA_EXPIRED} on `));
  });

  it('gives a slot back when the quota refuses its row', () => {
    const plan = planClaims(
      input([makeOutboxRow(1), makeOutboxRow(2)], [makePhoneRow(1, { rate: 1 })], {
        paces: new Map([[1, { next: NOW.getTime(), spacing: 1000 }]]),
        quotas: new Map([[1, quotaBudget(quota({ credit: 1 }))]]),
      }),
      tools(),
    );

    expect(plan.claimed).toHaveLength(1);
    expect(plan.paces.get(1)).toBe(NOW.getTime() + PACE_LEAD_MS + 1000);
  });

  describe('validity', () => {
    // NOW is 2026-01-10 12:00:00 UTC.
    const expired = (expiresAt: string) =>
      `The message expired before it could be sent: its validity ended at ${expiresAt}.`;

    it('refuses a row whose message expired, before choosing a phone, spending a limit or reserving quota', () => {
      const budget = quotaBudget(quota());
      const plan = planClaims(
        input(
          [
            makeOutboxRow(1, { expires_at: '2026-01-10 11:59:59', id_phone: 1 }),
            makeOutboxRow(2, { expires_at: '2026-01-10 12:00:00' }),
            makeOutboxRow(3, { expires_at: '2026-01-10 12:00:01' }),
            makeOutboxRow(4),
          ],
          [makePhoneRow(1)],
          {
            settings: new Map([[1, { phone_limit: '1' }]]),
            remaining: new Map([[1, 2]]),
            quotas: new Map([[1, budget]]),
          },
        ),
        tools(),
      );

      expect(
        plan.refused.map(({ row: refused, phone: named, reason }) => [
          refused.id,
          named?.id ?? null,
          reason,
        ]),
      ).toEqual([
        [1, 1, expired('2026-01-10 11:59:59')],
        [2, null, expired('2026-01-10 12:00:00')],
      ]);
      expect(plan.claimed.map((claimed) => claimed.row.id)).toEqual([3, 4]);
      expect(plan.reserved.get(1)).toBe(2);
    });

    it('shows the end of the validity in the service time zone', () => {
      const plan = planClaims(
        input([makeOutboxRow(1, { expires_at: '2026-01-10 11:00:00' })], [makePhoneRow(1)], {
          timeZone: 'Europe/Paris',
        }),
        tools(),
      );

      expect(plan.refused[0].reason).toBe(expired('2026-01-10 12:00:00'));
    });

    it('refuses, rather than books, a row whose sending slot comes after its message expires, and gives the slot to the next row', () => {
      const spacing = 10_000;
      const first = NOW.getTime() + PACE_LEAD_MS;
      const plan = planClaims(
        input(
          [
            makeOutboxRow(1),
            makeOutboxRow(2, { expires_at: '2026-01-10 12:00:05' }),
            makeOutboxRow(3, { expires_at: '2026-01-10 12:01:00' }),
          ],
          [makePhoneRow(1, { rate: 0.1 })],
          { paces: new Map([[1, { next: NOW.getTime(), spacing }]]) },
        ),
        tools(),
      );

      expect(plan.claimed.map((claimed) => [claimed.row.id, claimed.slot])).toEqual([[1, first]]);
      expect(plan.refused.map((refused) => [refused.row.id, refused.phone?.id])).toEqual([[2, 1]]);
      expect(plan.refused[0].reason).toBe(
        'The message expired before it could be sent: its validity ends at 2026-01-10 12:00:05, ' +
          "before the phone's sending slot at 2026-01-10 12:00:10.",
      );
      expect(plan.bookings).toEqual([{ id: 3, phoneId: 1, slot: first + spacing }]);
      expect(plan.paces.get(1)).toBe(first + 2 * spacing);
    });

    it('refuses a booked row whose kept slot comes after its message expires', () => {
      const slot = NOW.getTime() + 1500;
      const plan = planClaims(
        input(
          [makeOutboxRow(1, { via_phone: 1, pace_slot: slot, expires_at: '2026-01-10 12:00:01' })],
          [makePhoneRow(1, { rate: 1 })],
          { paces: new Map([[1, { next: NOW.getTime() + 5000, spacing: 1000 }]]) },
        ),
        tools(),
      );

      expect(plan.claimed).toEqual([]);
      expect(plan.refused[0].reason).toMatch(
        /before the phone's sending slot at 2026-01-10 12:00:01\.$/,
      );
      expect(plan.paces.size).toBe(0);
    });

    it('claims a paced row whose slot comes before its message expires', () => {
      const plan = planClaims(
        input(
          [makeOutboxRow(1, { expires_at: '2026-01-10 12:00:01' })],
          [makePhoneRow(1, { rate: 1 })],
          {
            paces: new Map([[1, { next: NOW.getTime(), spacing: 1000 }]]),
          },
        ),
        tools(),
      );

      expect(plan.claimed[0].slot).toBe(NOW.getTime() + PACE_LEAD_MS);
      expect(plan.refused).toEqual([]);
    });
  });

  describe('failover', () => {
    const refusal = (id_phone: number) => ({
      id_phone,
      adapter: 'test',
      at: '2026-01-10 11:59:00',
      reason: `Phone ${id_phone} refused it.`,
    });

    it('leaves out the phones that refused the row', () => {
      const plan = planClaims(
        input(
          [makeOutboxRow(1, { refusals: [refusal(1)] })],
          [makePhoneRow(1, { priority: 9 }), makePhoneRow(2, { priority: 1 })],
          { settings: new Map([[1, { phone_priority: '1' }]]) },
        ),
        tools(),
      );

      expect(plan.claimed.map((claimed) => claimed.phone.id)).toEqual([2]);
    });

    it('records the last refusal as the outcome when no other phone is left, the earlier ones its detail', () => {
      const plan = planClaims(
        input(
          [makeOutboxRow(1, { refusals: [refusal(1), refusal(2)] })],
          [makePhoneRow(1), makePhoneRow(2)],
        ),
        tools(),
      );

      expect(plan.claimed).toEqual([]);
      expect(plan.refused).toHaveLength(1);
      expect(plan.refused[0]).toMatchObject({
        phone: { id: 2 },
        reason: 'Phone 2 refused it.',
        row: { refusals: [refusal(1)] },
      });
    });
  });

  describe('send windows', () => {
    // NOW is Saturday 2026-01-10, 13:00 in Paris.
    const PARIS = (window: string) => ({ effective_window: `Europe/Paris ${window}` });

    it('claims a row whose window is open, and defers the others until their window opens', () => {
      const plan = planClaims(
        input(
          [
            makeOutboxRow(1, PARIS('08:00-20:00')),
            makeOutboxRow(2, PARIS('18:00-19:00')),
            makeOutboxRow(3, PARIS('mon-fri 08:00-20:00')),
          ],
          [makePhoneRow(1)],
          { remaining: new Map([[1, 1]]), settings: new Map([[1, { phone_limit: '1' }]]) },
        ),
        tools(),
      );

      expect(plan.claimed.map((claimed) => claimed.row.id)).toEqual([1]);
      expect(plan.deferred).toEqual([
        { id: 2, until: Date.parse('2026-01-10T17:00:00Z') },
        { id: 3, until: Date.parse('2026-01-12T07:00:00Z') },
      ]);
      expect(plan.refused).toEqual([]);
    });

    it('claims the deferred row once the clock reaches its opening', () => {
      const opening = new Date('2026-01-10T17:00:00Z');
      const plan = planClaims(
        input([makeOutboxRow(2, PARIS('18:00-19:00'))], [makePhoneRow(1)], { now: opening }),
        tools(),
      );

      expect(plan.claimed.map((claimed) => claimed.row.id)).toEqual([2]);
      expect(plan.deferred).toEqual([]);
    });

    it('refuses a row whose message expires before its window opens, with both moments', () => {
      const plan = planClaims(
        input(
          [makeOutboxRow(1, { ...PARIS('18:00-19:00'), expires_at: '2026-01-10 12:30:00' })],
          [makePhoneRow(1)],
        ),
        tools(),
      );

      expect(plan.deferred).toEqual([]);
      expect(plan.refused[0].reason).toBe(
        'The message expired before it could be sent: its validity ends at 2026-01-10 12:30:00, ' +
          'before its send window opens at 2026-01-10 17:00:00.',
      );
    });

    it('defers a paced row whose slot comes after its window closes, giving the slot back', () => {
      const spacing = 40_000;
      const first = NOW.getTime() + PACE_LEAD_MS;
      const window = { effective_window: 'UTC 11:00-12:01' };
      const plan = planClaims(
        input(
          [makeOutboxRow(1, window), makeOutboxRow(2, window), makeOutboxRow(3, window)],
          [makePhoneRow(1, { rate: 0.025 })],
          {
            paces: new Map([[1, { next: NOW.getTime(), spacing }]]),
          },
        ),
        tools(),
      );

      expect(plan.claimed.map((claimed) => claimed.row.id)).toEqual([1]);
      expect(plan.bookings).toEqual([{ id: 2, phoneId: 1, slot: first + spacing }]);
      expect(plan.deferred).toEqual([{ id: 3, until: Date.parse('2026-01-11T11:00:00Z') }]);
      expect(plan.paces.get(1)).toBe(first + 2 * spacing);
    });

    it('holds back no row whose stored window does not read', () => {
      const plan = planClaims(
        input(
          [makeOutboxRow(1, { effective_window: 'Mars/Olympus 08:00-09:00' })],
          [makePhoneRow(1)],
        ),
        tools(),
      );

      expect(plan.claimed.map((claimed) => claimed.row.id)).toEqual([1]);
    });
  });

  it('leaves its input as it was', () => {
    const budget = quotaBudget(quota());
    const pace = { next: NOW.getTime(), spacing: 1000 };
    const remaining = new Map([[1, 5]]);
    planClaims(
      input([makeOutboxRow(1)], [makePhoneRow(1, { rate: 1 })], {
        settings: new Map([[1, { phone_limit: '1' }]]),
        remaining,
        paces: new Map([[1, pace]]),
        quotas: new Map([[1, budget]]),
      }),
      tools(),
    );

    expect(remaining.get(1)).toBe(5);
    expect(pace).toEqual({ next: NOW.getTime(), spacing: 1000 });
    expect(budget.left).toBe(10);
  });

  it('leaves the booked slots it was given as they were', () => {
    const booked = [{ id: 10, slot: NOW.getTime() + 60_000 }];
    const swappable = new Map([[1, booked]]);
    const plan = planClaims(
      input([makeOutboxRow(1, { priority: 1 })], [makePhoneRow(1, { rate: 1 })], {
        paces: new Map([[1, { next: NOW.getTime() + 120_000, spacing: 1000 }]]),
        swappable,
      }),
      tools(),
    );

    expect(plan.bookings).toHaveLength(2);
    expect(swappable.get(1)).toEqual([{ id: 10, slot: NOW.getTime() + 60_000 }]);
  });
});
