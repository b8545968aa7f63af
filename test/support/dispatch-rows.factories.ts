import { OutboxRow, PhoneRow } from '../../src/dispatch/dispatch-rows';

/** A queued outbox row of user 1's message 100, to any of the user's phones, never tried. */
export const makeOutboxRow = (id: number, overrides: Partial<OutboxRow> = {}): OutboxRow => ({
  id,
  id_user: 1,
  originating_scheduled: 100,
  id_phone: null,
  id_phone_group: null,
  destination: `+3360000000${id}`,
  text: 'Hello',
  flash: 0,
  mms: 0,
  tag: null,
  expires_at: null,
  priority: 0,
  effective_window: null,
  media_ids: [],
  state: 'queued',
  attempts: 0,
  error: null,
  quota_segments: null,
  via_phone: null,
  pace_slot: null,
  refusals: [],
  ...overrides,
});

/** An available phone of user 1 on the `test` adapter, unpaced. */
export const makePhoneRow = (id: number, overrides: Partial<PhoneRow> = {}): PhoneRow => ({
  id,
  id_user: 1,
  adapter: 'test',
  adapter_data: null,
  priority: 0,
  status: 'available',
  rate: null,
  ...overrides,
});
