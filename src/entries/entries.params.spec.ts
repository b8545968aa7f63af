import { ErrorCode } from '../common/errors/api-error';
import { parseEntriesParams } from './entries.params';

describe('parseEntriesParams', () => {
  it('reads the type and the page, 0 when none is given', () => {
    expect(parseEntriesParams({ entry_type: 'sended' }, '', 'UTC')).toEqual({
      type: 'sended',
      cursor: { mode: 'page', page: 0 },
      filters: [],
      filterParams: {},
    });
    expect(parseEntriesParams({ entry_type: 'phone', page: '3' }, '', 'UTC').cursor).toEqual({
      mode: 'page',
      page: 3,
    });
  });

  it('lets a cursor win over the page', () => {
    expect(
      parseEntriesParams({ entry_type: 'media', page: '2', after_id: '9' }, '', 'UTC').cursor,
    ).toEqual({
      mode: 'after',
      id: 9,
    });
    expect(
      parseEntriesParams({ entry_type: 'media', page: '2', before_id: '9' }, '', 'UTC').cursor,
    ).toEqual({
      mode: 'before',
      id: 9,
    });
  });

  it('refuses an unknown entry type with INVALID_PARAMETER listing the nine, before the cursor', () => {
    expect(() => parseEntriesParams({ entry_type: 'users', page: 'x' }, '', 'UTC')).toThrow(
      expect.objectContaining({
        code: ErrorCode.INVALID_PARAMETER,
        message:
          'You have specified an invalid parameter : entry_type must be one of : sended, ' +
          'received, scheduled, contact, group, conditional_group, phone, phone_group, media.',
      }),
    );
  });

  it('refuses both cursors at once with INVALID_PARAMETER', () => {
    expect(() =>
      parseEntriesParams({ entry_type: 'sended', after_id: '1', before_id: '2' }, '', 'UTC'),
    ).toThrow(
      'You have specified an invalid parameter : after_id, before_id : give at most one of ' +
        'after_id and before_id.',
    );
  });

  it('refuses a page that is not a non-negative integer with INVALID_PARAMETER naming it', () => {
    expect(() => parseEntriesParams({ entry_type: 'sended', page: '-1' }, '', 'UTC')).toThrow(
      'You have specified an invalid parameter : page must be a non-negative integer, got "-1".',
    );
  });
});
