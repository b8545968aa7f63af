import { thrownApiError } from '../../../test/support/api-errors';
import { ErrorCode, httpStatusOf } from '../errors/api-error';
import { asList, parseBoolean, parseId, parseIdList, parseOptionalString } from './parse';
import { ParamBudget, parseQueryString as parseWithBudget } from './query-string';

const parseQueryString = (source: string) => parseWithBudget(source, new ParamBudget(1000));

/** The ApiError thrown by `run`, or a failure when nothing is thrown. */

describe('parseId (ids are non-negative decimal integers)', () => {
  it.each([
    ['12', 12],
    ['0', 0],
    ['007', 7],
    ['2147483647', 2147483647],
    [12, 12],
    [0, 0],
  ])('accepts %p as %p', (value, expected) => {
    expect(parseId(value, 'id')).toBe(expected);
  });

  it.each([[undefined], [null], ['']])('treats %p as absent', (value) => {
    expect(parseId(value, 'id_phone')).toBeUndefined();
  });

  it.each([
    ['abc'],
    ['-1'],
    ['1.5'],
    ['12abc'],
    [' 1'],
    ['1 '],
    ['1e3'],
    ['+1'],
    ['0x10'],
    ['١٢'],
    ['2147483648'],
    ['99999999999999999999'],
    [-1],
    [1.5],
    [Number.NaN],
    [Number.POSITIVE_INFINITY],
    [2147483648],
    [true],
    [['1']],
    [{ 0: '1' }],
  ])('refuses %p with INVALID_PARAMETER naming the parameter (HTTP 400, never a 500)', (value) => {
    const error = thrownApiError(() => parseId(value, 'id_phone'));

    expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
    expect(error.message).toMatch(/^You have specified an invalid parameter : id_phone /);
    expect(httpStatusOf(error)).toBe(400);
  });

  it('says what it got: the text, or that it was a list or an object', () => {
    expect(thrownApiError(() => parseId('abc', 'page')).message).toBe(
      'You have specified an invalid parameter : page must be a non-negative integer, got "abc".',
    );
    expect(thrownApiError(() => parseId(['1'], 'page')).message).toContain('got a list');
    expect(thrownApiError(() => parseId({ a: '1' }, 'page')).message).toContain('got an object');
  });

  it('cuts a long bad value short in the message', () => {
    const error = thrownApiError(() => parseId('x'.repeat(500), 'id'));

    expect(error.message).toContain(`"${'x'.repeat(40)}…"`);
    expect(error.message.length).toBeLessThan(150);
  });
});

describe('parseBoolean (flash, mms)', () => {
  it.each([['1'], ['true'], ['on'], ['yes'], ['TRUE'], ['Yes'], ['oN'], [1], [true]])(
    'reads %p as true',
    (value) => {
      expect(parseBoolean(value, 'flash')).toBe(true);
    },
  );

  it.each([
    [undefined],
    [null],
    [''],
    ['0'],
    ['false'],
    ['off'],
    ['no'],
    ['FALSE'],
    ['No'],
    [0],
    [false],
  ])('reads %p as false', (value) => {
    expect(parseBoolean(value, 'flash')).toBe(false);
  });

  it.each([['maybe'], ['2'], ['y'], [2], [-1], [['1']], [{}]])(
    'refuses %p with INVALID_PARAMETER naming the parameter',
    (value) => {
      const error = thrownApiError(() => parseBoolean(value, 'mms'));

      expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
      expect(error.message).toMatch(
        /^You have specified an invalid parameter : mms must be a boolean/,
      );
    },
  );
});

describe('parseOptionalString', () => {
  it('takes strings as they are and numbers from JSON bodies as their text', () => {
    expect(parseOptionalString('hello', 'tag')).toBe('hello');
    expect(parseOptionalString('', 'tag')).toBe('');
    expect(parseOptionalString(42, 'tag')).toBe('42');
  });

  it('treats undefined and null as absent', () => {
    expect(parseOptionalString(undefined, 'tag')).toBeUndefined();
    expect(parseOptionalString(null, 'tag')).toBeUndefined();
  });

  it.each([[['a']], [{ a: 'b' }], [true], [Number.NaN]])(
    'refuses %p with INVALID_PARAMETER naming the parameter',
    (value) => {
      const error = thrownApiError(() => parseOptionalString(value, 'tag'));

      expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
      expect(error.message).toBe('You have specified an invalid parameter : tag must be a string.');
    },
  );
});

describe('asList (a scalar where a list is expected is a one-element list)', () => {
  it('keeps an array as it is', () => {
    expect(asList(['a', 'b'])).toEqual(['a', 'b']);
    expect(asList([])).toEqual([]);
  });

  it('reads a map with numeric keys as a list in key order', () => {
    expect(asList({ 7: 'y', 3: 'x', 10: 'z' })).toEqual(['x', 'y', 'z']);
  });

  it('reads a bracket map parsed from a query string in key order', () => {
    const parsed = parseQueryString('n[x]=0&n[10]=c&n[2]=a');
    const numeric = parseQueryString('n[10]=c&n[2]=a');

    expect(asList(numeric.n)).toEqual(['a', 'c']);
    // A map with a non-numeric key is one value (e.g. one recipient object), not a list.
    expect(asList(parsed.n)).toEqual([parsed.n]);
  });

  it('makes a one-element list of a scalar or of a single recipient object', () => {
    expect(asList('+33612345678')).toEqual(['+33612345678']);
    expect(asList(5)).toEqual([5]);
    const recipient = { number: '+33612345678', data: '{}' };
    expect(asList(recipient)).toEqual([recipient]);
  });

  it.each([[undefined], [null], ['']])('reads %p as the empty list', (value) => {
    expect(asList(value)).toEqual([]);
  });
});

describe('parseIdList', () => {
  it('reads a single id, a list and a numeric-key map', () => {
    expect(parseIdList('5', 'contacts')).toEqual([5]);
    expect(parseIdList(['1', '2'], 'contacts')).toEqual([1, 2]);
    expect(parseIdList({ 1: '20', 0: '10' }, 'groups')).toEqual([10, 20]);
    expect(parseIdList(parseQueryString('groups[]=3&groups[]=4').groups, 'groups')).toEqual([3, 4]);
  });

  it('reads absent or empty as no ids', () => {
    expect(parseIdList(undefined, 'contacts')).toEqual([]);
    expect(parseIdList('', 'contacts')).toEqual([]);
  });

  it('refuses a bad element with INVALID_PARAMETER naming its position', () => {
    const error = thrownApiError(() => parseIdList(['1', 'x'], 'contacts'));

    expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
    expect(error.message).toBe(
      'You have specified an invalid parameter : contacts[1] must be a non-negative integer, got "x".',
    );
  });

  it('refuses an empty element inside a list rather than skipping it', () => {
    const error = thrownApiError(() => parseIdList(['1', ''], 'groups'));

    expect(error.code).toBe(ErrorCode.INVALID_PARAMETER);
    expect(error.message).toContain('groups[1]');
  });
});
