import { makeOutboxRow, makePhoneRow } from '../../test/support/dispatch-rows.factories';
import { pacedPhones, routes, slotsToTake } from './claim-routes';

const NOW = new Date('2026-01-10T12:00:00Z');

describe('routes', () => {
  it("routes a row to the phone it names, else to its user's phones or its group's", () => {
    const phones = [makePhoneRow(1), makePhoneRow(2), makePhoneRow(3, { id_user: 2 })];
    const [named, anyPhone, grouped] = routes(
      [
        makeOutboxRow(1, { id_phone: 2 }),
        makeOutboxRow(2),
        makeOutboxRow(3, { id_phone_group: 7 }),
      ],
      phones,
      new Map([[7, new Set([1])]]),
    );

    expect(named.pinned?.id).toBe(2);
    expect(anyPhone.pinned).toBeUndefined();
    expect(anyPhone.pool.map((candidate) => candidate.id)).toEqual([1, 2]);
    expect(grouped.pool.map((candidate) => candidate.id)).toEqual([1]);
  });

  it('names the paced phones a row may go through', () => {
    const routed = routes(
      [makeOutboxRow(1)],
      [makePhoneRow(1, { rate: 5 }), makePhoneRow(2)],
      new Map(),
    );

    expect([...pacedPhones(routed)]).toEqual([1]);
  });

  it('counts the booked slots high-priority rows not yet booked may take, per paced phone of their route', () => {
    const phones = [makePhoneRow(1, { rate: 5 }), makePhoneRow(2, { rate: 1 }), makePhoneRow(3)];
    const rows = [
      makeOutboxRow(1, { priority: 1 }),
      makeOutboxRow(2, { priority: 1, id_phone: 2 }),
      makeOutboxRow(3),
      makeOutboxRow(4, { priority: 1, via_phone: 1, pace_slot: NOW.getTime() + 500 }),
    ];

    expect(slotsToTake(rows, routes(rows, phones, new Map()))).toEqual(
      new Map([
        [1, 1],
        [2, 2],
      ]),
    );
  });
});
