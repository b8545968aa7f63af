import { thrownApiError } from '../../test/support/api-errors';
import { ErrorCode, httpStatusOf } from '../common/errors/api-error';
import {
  checkDataSize,
  cleanLimits,
  MAX_LIMITS,
  parseAdapterData,
  parseAdapterName,
  parseCreatePhoneParams,
  parseForceStatusParams,
  parseName,
  parsePhoneIdParams,
  parsePriority,
  parseRate,
  parseUpdatePhoneParams,
} from './phones.params';

describe('parseName', () => {
  it('treats absent, empty and blank names as not given', () => {
    expect(parseName(undefined)).toBeUndefined();
    expect(parseName('')).toBeUndefined();
    expect(parseName('   ')).toBeUndefined();
  });

  it('keeps a name as sent, and a JSON number as its text', () => {
    expect(parseName(' Phone 1 ')).toBe(' Phone 1 ');
    expect(parseName(42)).toBe('42');
  });

  it('accepts 150 characters, counted as characters, and refuses 151', () => {
    expect(parseName('é'.repeat(150))).toBe('é'.repeat(150));
    expect(parseName('😀'.repeat(150))).toBe('😀'.repeat(150));
    const error = thrownApiError(() => parseName('a'.repeat(151)));
    expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
    expect(error.message).toMatch(/name must be at most 150 characters/);
  });

  it('refuses a name that is not text', () => {
    expect(thrownApiError(() => parseName(['a'])).message).toMatch(/name must be a text/);
  });
});

describe('parseAdapterName', () => {
  it('reads an id or alias and treats empty as not given', () => {
    expect(parseAdapterName('adapters\\TestAdapter')).toBe('adapters\\TestAdapter');
    expect(parseAdapterName('')).toBeUndefined();
  });

  it('refuses a list', () => {
    expect(thrownApiError(() => parseAdapterName(['test'])).code).toBe(ErrorCode.INVALID_PARAMETER);
  });
});

describe('parsePriority', () => {
  it.each([
    ['3', 3],
    [' 7 ', 7],
    ['+2', 2],
    [5, 5],
    ['-4', 0],
    [-9, 0],
    ['0', 0],
  ])('reads %p as %p (negative values become 0)', (value, expected) => {
    expect(parsePriority(value)).toBe(expected);
  });

  it('treats absent and empty as not given', () => {
    expect(parsePriority(undefined)).toBeUndefined();
    expect(parsePriority('')).toBeUndefined();
  });

  it.each(['abc', '1.5', 1.5, '1e3', true, ['1'], '2147483648'])(
    'refuses %p with INVALID_PARAMETER naming priority',
    (value) => {
      const error = thrownApiError(() => parsePriority(value));
      expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
      expect(error.message).toMatch(/priority must be an integer/);
    },
  );
});

describe('parseRate', () => {
  it.each<[unknown, number]>([
    ['0.5', 0.5],
    ['12.25', 12.25],
    [' 50 ', 50],
    ['+3', 3],
    ['.5', 0.5],
    ['2.', 2],
    ['0.001', 0.001],
    ['1000', 1000],
    ['1000.000', 1000],
    [0.25, 0.25],
    [1000, 1000],
  ])('reads %p as %p messages per second', (value, expected) => {
    expect(parseRate(value)).toBe(expected);
  });

  it('treats absent as not given, and empty, blank or null as no pacing', () => {
    expect(parseRate(undefined)).toBeUndefined();
    expect(parseRate('')).toBeNull();
    expect(parseRate('  ')).toBeNull();
    expect(parseRate(null)).toBeNull();
  });

  it.each<unknown>([
    'fast',
    '0',
    0,
    '-1',
    -0.5,
    '0.0009',
    0.0009,
    '1000.0001',
    1001,
    'NaN',
    NaN,
    'Infinity',
    Infinity,
    '1e2',
    '0,5',
    '0x10',
    '5/s',
    true,
    ['1'],
    { rate: 1 },
  ])('refuses %p with INVALID_PARAMETER saying what a rate is', (value) => {
    const error = thrownApiError(() => parseRate(value));
    expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
    expect(error.message).toBe(
      'You have specified an invalid parameter : rate must be a number of messages per second ' +
        'between 0.001 and 1000, such as 0.5 or 50; leave it empty for no pacing.',
    );
  });
});

describe('parseAdapterData', () => {
  it('reads an object, or a JSON object in a string', () => {
    expect(parseAdapterData({ login: 'a' })).toEqual({ login: 'a' });
    expect(parseAdapterData('{"login":"a"}')).toEqual({ login: 'a' });
  });

  it.each([undefined, null, '', ' ', '[]', '{}', [], {}])('treats %p as not sent', (value) => {
    expect(parseAdapterData(value)).toBeUndefined();
  });

  it.each(['login', '"text"', '[1]', '5', ['a'], 5])('refuses %p', (value) => {
    const error = thrownApiError(() => parseAdapterData(value));
    expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
    expect(error.message).toMatch(/adapter_data must be an object/);
  });
});

describe('checkDataSize', () => {
  it('refuses data too large for the column', () => {
    const error = thrownApiError(() => checkDataSize({ callback: 'x'.repeat(70_000) }));
    expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
    expect(error.message).toMatch(/adapter_data must take at most 65535 bytes/);
  });
});

describe('cleanLimits (post_phone rule 3)', () => {
  it('keeps valid limits in order, with integer volumes', () => {
    expect(
      cleanLimits([
        { volume: '100', startpoint: 'today' },
        { volume: 5, startpoint: '-24 hours' },
      ]),
    ).toEqual([
      { volume: 100, startpoint: 'today' },
      { volume: 5, startpoint: '-24 hours' },
    ]);
  });

  it('reads a bracket map with numeric keys in key order', () => {
    expect(
      cleanLimits({
        '3': { volume: '2', startpoint: 'today' },
        '1': { volume: '1', startpoint: 'now' },
      }),
    ).toEqual([
      { volume: 1, startpoint: 'now' },
      { volume: 2, startpoint: 'today' },
    ]);
  });

  it.each([
    ['not an object', 'today'],
    ['a list', [['today', 1]]],
    ['without startpoint', [{ volume: 1 }]],
    ['without volume', [{ startpoint: 'today' }]],
    ['with an empty startpoint', [{ volume: 1, startpoint: '' }]],
    ['with an empty volume', [{ volume: '', startpoint: 'today' }]],
    ['with volume "0" (PHP-falsy)', [{ volume: '0', startpoint: 'today' }]],
    ['with an unparsable startpoint', [{ volume: 1, startpoint: 'garbage' }]],
    ['with a startpoint that is not text', [{ volume: 1, startpoint: ['today'] }]],
    ['with a volume that is an object', [{ volume: { a: 1 }, startpoint: 'today' }]],
  ])('drops an element %s silently', (_case, value) => {
    expect(cleanLimits(value)).toEqual([]);
  });

  it.each([
    ['abc', 1],
    ['-5', 1],
    ['2.9', 2],
  ])('casts volume %p to %p (raised to at least 1)', (volume, expected) => {
    expect(cleanLimits([{ volume, startpoint: 'today' }])).toEqual([
      { volume: expected, startpoint: 'today' },
    ]);
  });

  it('ignores extra keys of an element', () => {
    expect(cleanLimits([{ volume: 3, startpoint: 'today', id: 9 }])).toEqual([
      { volume: 3, startpoint: 'today' },
    ]);
  });

  it('gives no limits for an empty value', () => {
    expect(cleanLimits('')).toEqual([]);
    expect(cleanLimits(undefined)).toEqual([]);
    expect(cleanLimits([])).toEqual([]);
  });

  it(`refuses more than ${MAX_LIMITS} limits with INVALID_PARAMETER`, () => {
    const limits = Array.from({ length: MAX_LIMITS + 1 }, () => ({ volume: 1, startpoint: 'now' }));
    expect(cleanLimits(limits.slice(1))).toHaveLength(MAX_LIMITS);
    const error = thrownApiError(() => cleanLimits(limits));
    expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
    expect(error.message).toMatch(/limits : a phone may have at most 100 limits/);
  });
});

const TOO_MANY_LIMITS = Array.from({ length: MAX_LIMITS + 1 }, () => ({
  volume: 1,
  startpoint: 'today',
}));

describe('parseCreatePhoneParams (post_phone)', () => {
  it('reads rule 1 outright, with a default priority, no rate and no data', () => {
    const input = parseCreatePhoneParams({ name: 'Office', adapter: 'test' }, 'test, twilio');
    expect(input).toMatchObject({
      name: 'Office',
      adapter: 'test',
      priority: 0,
      rate: null,
      adapterData: {},
    });
    expect(input.limits.get()).toEqual([]);
  });

  it('reads the rate, an empty one as none', () => {
    const create = (rate: unknown) =>
      parseCreatePhoneParams({ name: 'Office', adapter: 'test', rate }, 'test');
    expect(create('0.5').rate).toBe(0.5);
    expect(create('').rate).toBeNull();
    expect(thrownApiError(() => create('-1')).code).toBe(ErrorCode.INVALID_PARAMETER);
  });

  it('refuses a missing name, then a missing adapter, listing the adapters', () => {
    expect(thrownApiError(() => parseCreatePhoneParams({ adapter: 'nope' }, 'test')).code).toBe(
      ErrorCode.MISSING_PARAMETER,
    );
    const error = thrownApiError(() =>
      parseCreatePhoneParams({ name: 'Office', priority: 'x' }, 'a, b'),
    );
    expect(error.code).toBe(ErrorCode.MISSING_PARAMETER);
    expect(error.message).toMatch(/adapter is required: one of a, b\.$/);
  });

  it('keeps too many limits for rule 3, after the name is known to be free', () => {
    const input = parseCreatePhoneParams(
      { name: 'Office', adapter: 'test', limits: TOO_MANY_LIMITS },
      'test',
    );
    expect(thrownApiError(() => input.limits.get()).message).toMatch(/at most 100 limits/);
  });
});

describe('parseUpdatePhoneParams (post_update_phone)', () => {
  it('requires the id outright', () => {
    expect(thrownApiError(() => parseUpdatePhoneParams({ name: 'x' })).code).toBe(
      ErrorCode.MISSING_PARAMETER,
    );
    expect(thrownApiError(() => parseUpdatePhoneParams({ id: 'one' })).code).toBe(
      ErrorCode.INVALID_PARAMETER,
    );
  });

  it('keeps rule 2 for after rule 1: an invalid name or nothing to change', () => {
    const invalid = parseUpdatePhoneParams({ id: '3', name: ['a'], adapter: 7 });
    expect(invalid.id).toBe(3);
    expect(thrownApiError(() => invalid.changes.get()).message).toMatch(/name must be a text/);
    const nothing = parseUpdatePhoneParams({ id: '3' });
    expect(thrownApiError(() => nothing.changes.get()).code).toBe(ErrorCode.MISSING_PARAMETER);
  });

  it('counts a rate as a change, an empty or null one removing the pacing', () => {
    expect(parseUpdatePhoneParams({ id: '3', rate: '2.5' }).changes.get()).toEqual({ rate: 2.5 });
    expect(parseUpdatePhoneParams({ id: '3', rate: '' }).changes.get()).toEqual({ rate: null });
    expect(parseUpdatePhoneParams({ id: '3', rate: null }).changes.get()).toEqual({ rate: null });
    const invalid = parseUpdatePhoneParams({ id: '3', rate: '0' });
    expect(thrownApiError(() => invalid.changes.get()).message).toMatch(/rate must be a number/);
  });

  it('counts limits alone as a change, an empty one removing every limit', () => {
    const input = parseUpdatePhoneParams({ id: '3', limits: '' });
    expect(input.changes.get()).toEqual({});
    expect(input.limits.get()).toEqual([]);
    expect(parseUpdatePhoneParams({ id: '3', priority: '2' }).limits.get()).toBeUndefined();
  });

  it('keeps too many limits for rule 4', () => {
    const input = parseUpdatePhoneParams({ id: '3', limits: TOO_MANY_LIMITS });
    expect(input.changes.get()).toEqual({});
    expect(thrownApiError(() => input.limits.get()).message).toMatch(/at most 100 limits/);
  });
});

describe('parsePhoneIdParams and parseForceStatusParams', () => {
  it('reads the id', () => {
    expect(parsePhoneIdParams({ id: '12' })).toEqual({ id: 12 });
    expect(thrownApiError(() => parsePhoneIdParams({})).code).toBe(ErrorCode.MISSING_PARAMETER);
  });

  it('checks the status before the id', () => {
    expect(parseForceStatusParams({ id: '4', status: 'disabled' })).toEqual({
      id: 4,
      status: 'disabled',
    });
    const error = thrownApiError(() => parseForceStatusParams({ status: 'limit_reached' }));
    expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
    expect(error.message).toMatch(/status must be "available" or "disabled"/);
  });
});

/*
 * The refusals below are the API's answers, whole: the HTTP status the exception filter gives
 * them, the code and the message. The e2e spec (test/e2e/phones.e2e.spec.ts) keeps one of each
 * over HTTP, for the envelope and each way parameters arrive.
 */

const INVALID = 'You have specified an invalid parameter : ';
const MISSING = 'One require parameter is missing : ';
const RATE_REFUSED =
  `${INVALID}rate must be a number of messages per second between 0.001 and 1000, such as ` +
  '0.5 or 50; leave it empty for no pacing.';

/** A refusal as the API answers it. */
function refusal(action: () => unknown) {
  const error = thrownApiError(action);
  return { status: httpStatusOf(error), code: error.code, message: error.message };
}

describe('post_phone refusals', () => {
  const ADAPTERS = 'adapters\\TestAdapter, adapters\\TwilioAdapter';
  const create = (params: Record<string, unknown>) => parseCreatePhoneParams(params, ADAPTERS);

  it('refuses an empty or blank name as missing', () => {
    const missingName = {
      status: 400,
      code: ErrorCode.MISSING_PARAMETER,
      message: expect.stringMatching(/^One require parameter is missing : name /),
    };
    expect(refusal(() => create({ name: '', adapter: 'test' }))).toEqual(missingName);
    expect(refusal(() => create({ name: '   ', adapter: 'test' }))).toEqual(missingName);
  });

  it('refuses a missing adapter with MISSING_PARAMETER naming adapter', () => {
    expect(refusal(() => create({ name: 'no adapter' }))).toEqual({
      status: 400,
      code: ErrorCode.MISSING_PARAMETER,
      message: `${MISSING}adapter is required: one of ${ADAPTERS}.`,
    });
  });

  it('names name first when both are missing', () => {
    expect(refusal(() => create({ priority: '1' }))).toEqual({
      status: 400,
      code: ErrorCode.MISSING_PARAMETER,
      message: expect.stringMatching(/^One require parameter is missing : name /),
    });
  });

  it('refuses a name longer than 150 characters with INVALID_PARAMETER', () => {
    expect(create({ name: 'n'.repeat(150), adapter: 'test' }).name).toBe('n'.repeat(150));
    expect(refusal(() => create({ name: 'm'.repeat(151), adapter: 'test' }))).toEqual({
      status: 400,
      code: ErrorCode.INVALID_PARAMETER,
      message: `${INVALID}name must be at most 150 characters long.`,
    });
  });

  it('refuses a priority that is not an integer with INVALID_PARAMETER', () => {
    expect(
      refusal(() => create({ name: 'bad priority', adapter: 'test', priority: 'high' })),
    ).toEqual({
      status: 400,
      code: ErrorCode.INVALID_PARAMETER,
      message: `${INVALID}priority must be an integer from 0 to 2147483647.`,
    });
  });

  it.each<[string, unknown]>([
    ['a negative rate', '-1'],
    ['zero', '0'],
    ['zero as a JSON number', 0],
    ['a negative JSON number', -2.5],
    ['less than 0.001', '0.0009'],
    ['more than 1000', '1000.5'],
    ['more than 1000 as a JSON number', 1001],
    ['NaN', 'NaN'],
    ['Infinity', 'Infinity'],
    ['a decimal comma', '0,5'],
    ['an exponent', '1e2'],
    ['a number followed by text', '5 per second'],
    ['a boolean', true],
    ['a list', [1]],
    ['an object', { per: 1 }],
  ])('refuses %s with HTTP 400 INVALID_PARAMETER', (_, rate) => {
    expect(refusal(() => create({ name: 'bad rate', adapter: 'test', rate }))).toEqual({
      status: 400,
      code: ErrorCode.INVALID_PARAMETER,
      message: RATE_REFUSED,
    });
  });
});

describe('post_update_phone refusals', () => {
  it('refuses an id that is not an integer with INVALID_PARAMETER', () => {
    expect(refusal(() => parseUpdatePhoneParams({ id: 'abc', name: 'x' }))).toEqual({
      status: 400,
      code: ErrorCode.INVALID_PARAMETER,
      message: `${INVALID}id must be a non-negative integer, got "abc".`,
    });
  });

  it('counts empty name, adapter, priority and adapter_data as not sent', () => {
    const input = parseUpdatePhoneParams({
      id: '3',
      name: '',
      adapter: '',
      priority: '',
      adapter_data: '',
    });
    expect(refusal(() => input.changes.get())).toEqual({
      status: 400,
      code: ErrorCode.MISSING_PARAMETER,
      message: expect.stringMatching(/give at least one of/),
    });
  });

  it.each<[string, unknown]>([
    ['text', 'slow'],
    ['over 1000', 5000],
  ])('refuses %s on update with HTTP 400 INVALID_PARAMETER', (_, rate) => {
    const input = parseUpdatePhoneParams({ id: '3', name: 'renamed', rate });
    expect(refusal(() => input.changes.get())).toEqual({
      status: 400,
      code: ErrorCode.INVALID_PARAMETER,
      message: RATE_REFUSED,
    });
  });
});

describe('post_change_phone_status refusals', () => {
  it.each([undefined, '', 'Disabled', 'enabled'])(
    'refuses status %p with INVALID_PARAMETER',
    (status) => {
      const params = status === undefined ? { id: '4' } : { id: '4', status };
      expect(refusal(() => parseForceStatusParams(params))).toEqual({
        status: 400,
        code: ErrorCode.INVALID_PARAMETER,
        message: `${INVALID}status must be "available" or "disabled".`,
      });
    },
  );
});
