import { expiredReason, expiryMs, expiryOf, MESSAGE_EXPIRED, secondsLeft } from './validity';

describe('validity', () => {
  it('ends a message validity minutes after its at, and never one without', () => {
    expect(expiryOf('2026-01-10 23:50:00', 30)).toBe('2026-01-11 00:20:00');
    expect(expiryOf('2026-01-10 23:50:00', 10080)).toBe('2026-01-17 23:50:00');
    expect(expiryOf('2026-01-10 23:50:00', null)).toBeNull();
    expect(expiryMs(null)).toBe(Number.POSITIVE_INFINITY);
  });

  it('counts the whole seconds left, rounded down, none below zero', () => {
    const end = expiryMs('2026-01-10 12:00:00');

    expect(secondsLeft('2026-01-10 12:00:00', end - 90_999)).toBe(90);
    expect(secondsLeft('2026-01-10 12:00:00', end - 500)).toBe(0);
    expect(secondsLeft('2026-01-10 12:00:00', end + 5000)).toBe(0);
    expect(secondsLeft(null, end)).toBeNull();
  });

  it('says when the validity ended in the service time zone, and what came after it', () => {
    expect(expiredReason('2026-07-01 10:00:00', 'Europe/Paris')).toBe(
      `${MESSAGE_EXPIRED}: its validity ended at 2026-07-01 12:00:00.`,
    );
    expect(
      expiredReason('2026-07-01 10:00:00', 'UTC', 'its next attempt at 2026-07-01 10:05:00'),
    ).toBe(
      `${MESSAGE_EXPIRED}: its validity ends at 2026-07-01 10:00:00, before its next attempt at 2026-07-01 10:05:00.`,
    );
  });
});
