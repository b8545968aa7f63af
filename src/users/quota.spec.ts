import {
  addInterval,
  checkRenewInterval,
  closeThreshold,
  dueAlerts,
  quotaView,
  renewedAt,
} from './quota';
import { makeQuotaState } from '../../test/support/quota.factories';

describe('quota rules', () => {
  describe('renewedAt', () => {
    it('leaves a quota whose period is not over, or that does not renew itself', () => {
      expect(renewedAt(makeQuotaState(), '2026-01-31 23:59:59', 'UTC')).toBeNull();
      expect(
        renewedAt(makeQuotaState({ auto_renew: false }), '2026-03-01 00:00:00', 'UTC'),
      ).toBeNull();
    });

    it('starts the next period where the last ended, nothing consumed, alerts due again, reservations kept', () => {
      const renewed = renewedAt(
        makeQuotaState({ consumed: 60, reserved: 3, alerted_close: true, alerted_reached: true }),
        '2026-02-01 00:00:00',
        'UTC',
      );

      expect(renewed).toMatchObject({
        start_date: '2026-02-01 00:00:00',
        expiration_date: '2026-03-01 00:00:00',
        consumed: 0,
        reserved: 3,
        additional: 0,
        alerted_close: false,
        alerted_reached: false,
      });
    });

    it.each([
      // [report_unused, report_unused_additional, consumed, new additional]
      [false, false, 60, 0],
      [true, false, 60, 40],
      [false, true, 60, 20],
      [true, true, 60, 60],
      // The credit is spent first: 110 of 100 + 20 leaves 10 of the additional credit.
      [true, true, 110, 10],
      [true, false, 110, 0],
      [false, true, 120, 0],
    ])(
      'with report_unused %s and report_unused_additional %s, %i of 100 + 20 consumed carries %i over',
      (reportUnused, reportUnusedAdditional, consumed, additional) => {
        const renewed = renewedAt(
          makeQuotaState({
            additional: 20,
            consumed,
            report_unused: reportUnused,
            report_unused_additional: reportUnusedAdditional,
          }),
          '2026-02-10 00:00:00',
          'UTC',
        );

        expect(renewed?.additional).toBe(additional);
      },
    );

    it('renews once per period elapsed, each from the one before', () => {
      const renewed = renewedAt(
        makeQuotaState({ consumed: 30, report_unused: true }),
        '2026-04-15 00:00:00',
        'UTC',
      );

      // February carries 70 over; March and April, with nothing consumed, the whole credit.
      expect(renewed).toMatchObject({
        start_date: '2026-04-01 00:00:00',
        expiration_date: '2026-05-01 00:00:00',
        additional: 100,
        consumed: 0,
      });
    });
  });

  describe('addInterval', () => {
    it('counts months in the service time zone, ending a month from 31 January on 28 February', () => {
      expect(addInterval('2026-01-31 10:00:00', 'P1M', 'UTC')).toBe('2026-02-28 10:00:00');
      // Midnight in Paris is 23:00 UTC in winter, 22:00 in summer.
      expect(addInterval('2026-03-28 23:00:00', 'P1D', 'Europe/Paris')).toBe('2026-03-29 22:00:00');
    });
  });

  describe('checkRenewInterval', () => {
    it('takes ISO 8601 durations of an hour or more', () => {
      expect(checkRenewInterval('P1M')).toEqual({ interval: 'P1M' });
      expect(checkRenewInterval('PT1H')).toEqual({ interval: 'PT1H' });
    });

    it.each(['1 month', 'P', 'PT59M', 'P0D', ''])('refuses %j', (text) => {
      expect(checkRenewInterval(text)).toHaveProperty('reason');
    });
  });

  describe('dueAlerts', () => {
    it('is due close once the share consumed reaches the threshold, reached once nothing is left', () => {
      expect(dueAlerts(makeQuotaState({ consumed: 89 }), 0.9, true)).toEqual([]);
      expect(dueAlerts(makeQuotaState({ consumed: 90 }), 0.9, true)).toEqual(['close']);
      expect(dueAlerts(makeQuotaState({ consumed: 100 }), 0.9, true)).toEqual(['close', 'reached']);
      expect(dueAlerts(makeQuotaState({ consumed: 80, additional: 20 }), 0.9, true)).toEqual([]);
    });

    it('is not due what the period already had, nor what the settings turn off', () => {
      const spent = makeQuotaState({ consumed: 100 });
      expect(dueAlerts({ ...spent, alerted_close: true }, 0.9, true)).toEqual(['reached']);
      expect(dueAlerts({ ...spent, alerted_reached: true }, 0.9, true)).toEqual(['close']);
      expect(dueAlerts(spent, 0, false)).toEqual([]);
    });

    it('counts on what providers took, not on sends in flight', () => {
      expect(dueAlerts(makeQuotaState({ consumed: 95, reserved: 5 }), 0.9, true)).toEqual([
        'close',
      ]);
    });
  });

  it('reads the close threshold as a share, anything else as off', () => {
    expect(closeThreshold('0.75')).toBe(0.75);
    expect(closeThreshold('0')).toBe(0);
    expect(closeThreshold('x')).toBe(0);
    expect(closeThreshold(undefined)).toBe(0);
  });

  describe('quotaView', () => {
    it('shows sends in flight as consumed, and dates in the service time zone', () => {
      expect(
        quotaView(
          makeQuotaState({ consumed: 10, reserved: 2 }),
          '2026-01-15 00:00:00',
          'Europe/Paris',
        ),
      ).toEqual({
        credit: 100,
        additional: 0,
        consumed: 12,
        remaining: 88,
        start_date: '2026-01-01 01:00:00',
        expiration_date: '2026-02-01 01:00:00',
        auto_renew: true,
      });
    });

    it('shows the renewed quota when its renewal is due, and nothing remaining once expired', () => {
      expect(
        quotaView(makeQuotaState({ consumed: 100 }), '2026-02-02 00:00:00', 'UTC'),
      ).toMatchObject({
        consumed: 0,
        remaining: 100,
        start_date: '2026-02-01 00:00:00',
      });
      expect(
        quotaView(makeQuotaState({ auto_renew: false }), '2026-02-02 00:00:00', 'UTC'),
      ).toMatchObject({ consumed: 0, remaining: 0, start_date: '2026-01-01 00:00:00' });
    });
  });
});
