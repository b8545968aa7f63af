import { QuotaState } from '../../src/users/quota';

/** A quota of user 1 for January 2026, renewed monthly, nothing used nor alerted. */
export const makeQuotaState = (overrides: Partial<QuotaState> = {}): QuotaState => ({
  id_user: 1,
  credit: 100,
  additional: 0,
  consumed: 0,
  reserved: 0,
  start_date: '2026-01-01 00:00:00',
  expiration_date: '2026-02-01 00:00:00',
  renew_interval: 'P1M',
  auto_renew: true,
  report_unused: false,
  report_unused_additional: false,
  alerted_close: false,
  alerted_reached: false,
  ...overrides,
});
