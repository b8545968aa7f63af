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

describe('parseEntriesParams filters', () => {
  const parse = (params: Record<string, unknown>, country = '') =>
    parseEntriesParams(params, country, 'Europe/Paris');

  it('reads each filter of the type, dates in UTC, numbers in E.164, and keeps them as sent', () => {
    const input = parse(
      {
        entry_type: 'sended',
        status: 'failed',
        id_phone: '4',
        destination: '06 12 34 56 78',
        tag: 'Campaign',
        at_from: '2024-07-01 00:00:00',
        api_key: 'k',
      },
      'fr',
    );

    expect(input.filters).toEqual([
      { column: 'status', op: 'equals', value: 'failed' },
      { column: 'id_phone', op: 'equals', value: 4 },
      { column: 'destination', op: 'equals', value: '+33612345678' },
      { column: 'tag', op: 'exact', value: 'Campaign' },
      { column: 'at', op: 'from', value: '2024-06-30 22:00:00' },
    ]);
    expect(input.filterParams).toEqual({
      status: 'failed',
      id_phone: '4',
      destination: '06 12 34 56 78',
      tag: 'Campaign',
      at_from: '2024-07-01 00:00:00',
    });
  });

  it('matches a contact name on its lowercased key', () => {
    expect(parse({ entry_type: 'contact', name: 'ÉLO' }).filters).toEqual([
      { column: 'name_key', op: 'contains', value: 'élo' },
    ]);
  });

  it('refuses a filter of another type, naming it, even before checking its value', () => {
    expect(() => parse({ entry_type: 'media', status: 'nope' })).toThrow(
      'You have specified an invalid parameter : status : not a filter of media entries; they have none.',
    );
  });

  it('refuses a parameter that is neither a filter of the type, a paging parameter nor the key', () => {
    expect(() =>
      parse({ entry_type: 'sended', statuss: 'failed', api_key: 'k', page: '0' }),
    ).toThrow(
      'You have specified an invalid parameter : statuss : not a filter of sended entries; ' +
        'their filters are status, id_phone, destination, tag, originating_scheduled, at_from, at_to.',
    );
  });

  it('takes a refused parameter left empty as absent, as an empty filter', () => {
    expect(parse({ entry_type: 'sended', statuss: '' }).filters).toEqual([]);
  });
});
