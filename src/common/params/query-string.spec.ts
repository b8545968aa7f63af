import { ApiError, httpStatusOf } from '../errors/api-error';
import {
  MAX_BRACKET_DEPTH,
  ParamBudget,
  parseQueryString as parseWithBudget,
} from './query-string';

const parseQueryString = (source: string) => parseWithBudget(source, new ParamBudget(1_000_000));

describe('parseQueryString (PHP bracket syntax everywhere)', () => {
  it('reads `numbers[]=a&numbers[]=b` as a list', () => {
    expect(parseQueryString('numbers[]=a&numbers[]=b')).toEqual({ numbers: ['a', 'b'] });
  });

  it('reads percent-encoded brackets as brackets', () => {
    expect(parseQueryString('numbers%5B%5D=a&numbers%5B%5D=b')).toEqual({ numbers: ['a', 'b'] });
  });

  it('reads recipient objects and keeps their `data` as the raw JSON string', () => {
    const parsed = parseQueryString(
      'numbers[0][number]=%2B33612345678&numbers[0][data]={"firstname":"John"}' +
        '&numbers[1][number]=%2B33698765432&numbers[1][data]=%7B%22firstname%22%3A%22Jane%22%7D',
    );

    expect(parsed).toEqual({
      numbers: [
        { number: '+33612345678', data: '{"firstname":"John"}' },
        { number: '+33698765432', data: '{"firstname":"Jane"}' },
      ],
    });
  });

  it('reads `+` and `%20` as spaces, and `%2B` as a plus sign', () => {
    expect(
      parseQueryString('limits[1][startpoint]=this+week%20midnight&limits[1][volume]=5'),
    ).toEqual(
      // The list is compacted: the one element given is the first, whatever its index.
      { limits: [{ startpoint: 'this week midnight', volume: '5' }] },
    );
    expect(parseQueryString('to=%2B33612345678&raw=+33612345678')).toEqual({
      to: '+33612345678',
      raw: ' 33612345678',
    });
  });

  it('orders a list by its indexes, not by the order they came in', () => {
    expect(parseQueryString('numbers[1]=b&numbers[0]=a')).toEqual({ numbers: ['a', 'b'] });
  });

  it('reads `adapter_data[login]=x` as a map', () => {
    expect(parseQueryString('adapter_data[login]=x&adapter_data[password]=y')).toEqual({
      adapter_data: { login: 'x', password: 'y' },
    });
  });

  it('keeps a list with more than 20 indexed elements a list (qs would make it a map)', () => {
    const source = Array.from({ length: 30 }, (_, i) => `numbers[${i}]=n${i}`).join('&');

    const parsed = parseQueryString(source);

    expect(Array.isArray(parsed.numbers)).toBe(true);
    expect(parsed.numbers).toEqual(Array.from({ length: 30 }, (_, i) => `n${i}`));
  });

  it('keeps a lone high index such as `numbers[25]` in a list', () => {
    expect(parseQueryString('numbers[25]=x')).toEqual({ numbers: ['x'] });
  });

  it('keeps every element past the thousandth, indexed or appended', () => {
    const indexed = Array.from({ length: 1500 }, (_, i) => `numbers[${i}]=${i}`).join('&');
    const appended = Array.from({ length: 1500 }, (_, i) => `contacts[]=${i}`).join('&');

    const parsed = parseQueryString(`${indexed}&${appended}`);

    expect(parsed.numbers).toHaveLength(1500);
    expect((parsed.numbers as string[])[1499]).toBe('1499');
    expect(parsed.contacts).toHaveLength(1500);
    expect((parsed.contacts as string[])[1499]).toBe('1499');
  });

  it('keeps more than a thousand distinct parameters', () => {
    const source = Array.from({ length: 1200 }, (_, i) => `p${i}=${i}`).join('&');

    const parsed = parseQueryString(source);

    expect(Object.keys(parsed)).toHaveLength(1200);
    expect(parsed.p1199).toBe('1199');
  });

  it('does not honour `__proto__` keys', () => {
    const parsed = parseQueryString('__proto__[admin]=1&a[__proto__][admin]=1&b=2');

    expect(parsed.b).toBe('2');
    expect(Object.prototype.hasOwnProperty.call(parsed, '__proto__')).toBe(false);
    expect((parsed as { admin?: unknown }).admin).toBeUndefined();
    expect(({} as { admin?: unknown }).admin).toBeUndefined();
    expect((parsed.a as { admin?: unknown } | undefined)?.admin).toBeUndefined();
  });

  it('returns maps without a prototype, so names such as `constructor` are plain keys', () => {
    const parsed = parseQueryString('constructor=x&hasOwnProperty=y&toString=z');

    expect(Object.getPrototypeOf(parsed)).toBeNull();
    expect(parsed.constructor).toBe('x');
    expect(parsed.hasOwnProperty).toBe('y');
    expect(parsed.toString).toBe('z');
  });

  it('reads a repeated plain name as a list (the guard then refuses a repeated api_key)', () => {
    expect(parseQueryString('api_key=a&api_key=b')).toEqual({ api_key: ['a', 'b'] });
  });

  it('decodes parameter names, so `api%5Fkey` is `api_key`', () => {
    expect(parseQueryString('api%5Fkey=abc')).toEqual({ api_key: 'abc' });
  });

  it('takes dots and commas literally', () => {
    expect(parseQueryString('a.b=1&c=1,2')).toEqual({ 'a.b': '1', c: '1,2' });
  });

  it('keeps a `%` that starts no escape as it is, as PHP does', () => {
    expect(parseQueryString('text=100%&b=%zz&c=50%25%')).toEqual({
      text: '100%',
      b: '%zz',
      c: '50%%',
    });
  });

  it.each([
    ['text=caf%E9', 'text'],
    ['b=%E0%A4%A', 'b'],
    ['adapter_data[account_sid]=%ED%A0%80', 'adapter_data[account_sid]'],
    ['numbers[0][data]=%FF%FE', 'numbers[0][data]'],
  ])(
    'refuses escapes that are not UTF-8 text (%s), naming the parameter as written',
    (source, name) => {
      expect(() => parseQueryString(source)).toThrow(
        `You have specified an invalid parameter : ${name} : the value's percent-escapes are not UTF-8 text`,
      );
    },
  );

  it('refuses a parameter name whose escapes are not UTF-8 text', () => {
    expect(() => parseQueryString('a%FF=1')).toThrow(
      "You have specified an invalid parameter : a%FF : the parameter name's percent-escapes are not UTF-8 text.",
    );
  });

  it('decodes escapes mixed with raw non-ASCII text and stray `%`s', () => {
    expect(parseQueryString('t=%C3%A9t%C3%A9 à 100%')).toEqual({ t: 'été à 100%' });
  });

  it('reads an empty source as no parameters', () => {
    expect(parseQueryString('')).toEqual({});
  });

  it('appends `[]` after the largest index given, as PHP does', () => {
    expect(parseQueryString('a[5]=x&a[]=y&a[2]=z')).toEqual({ a: ['z', 'x', 'y'] });
  });

  it('finds an index again in any order, and keeps the list in index order', () => {
    expect(parseQueryString('a[2][x]=1&a[0][y]=2&a[2][z]=3&a[1]=4&a[0][w]=5&a[]=6&a[1]=7')).toEqual(
      { a: [{ y: '2', w: '5' }, ['4', '7'], { x: '1', z: '3' }, '6'] },
    );
  });

  it('makes a map of a bag mixing indexes and names', () => {
    expect(parseQueryString('a[0]=x&a[k]=y')).toEqual({ a: { 0: 'x', k: 'y' } });
  });

  it('lets a later value replace an earlier bracket map of the same name, and the reverse', () => {
    expect(parseQueryString('a[b]=1&a=2')).toEqual({ a: '2' });
    expect(parseQueryString('a=2&a[b]=1')).toEqual({ a: { b: '1' } });
  });

  it('makes a list of a value given twice at the same bracket path', () => {
    expect(parseQueryString('a[b]=1&a[b]=2')).toEqual({ a: { b: ['1', '2'] } });
  });

  it('ignores text after a closing bracket, and takes a name whose bracket never closes whole', () => {
    expect(parseQueryString('a[b]c=1&d[e=2&f[g][h=3')).toEqual({
      a: { b: '1' },
      'd[e': '2',
      f: { g: '3' },
    });
  });

  it('reads a name without `=` as an empty value and skips empty pairs', () => {
    expect(parseQueryString('&&flag&&a=1&')).toEqual({ flag: '', a: '1' });
  });

  it('returns bracket maps that inherit nothing, at every level', () => {
    const parsed = parseQueryString('a[constructor][prototype]=1&b[x]=2');
    const b = parsed.b as Record<string, unknown>;

    expect(parsed.a).toEqual({ constructor: { prototype: '1' } });
    expect(b.constructor).toBeUndefined();
    expect(b.toString).toBeUndefined();
    expect('hasOwnProperty' in b).toBe(false);
    expect(Object.getPrototypeOf(Object.getPrototypeOf(b))).toBeNull();
    expect(({} as { prototype?: unknown }).prototype).toBeUndefined();
  });

  it('drops every name with a `__proto__` part, percent-encoded or not', () => {
    const parsed = parseQueryString(
      '__proto__=1&a[__proto__]=2&a[b][__proto__][c]=3&%5F%5Fproto%5F%5F[x]=4&a[ok]=5',
    );

    expect(parsed).toEqual({ a: { ok: '5' } });
    expect(({} as { x?: unknown; c?: unknown }).x).toBeUndefined();
  });

  it(`reads ${MAX_BRACKET_DEPTH} levels of brackets and refuses more, naming the parameter`, () => {
    expect(parseQueryString('a[1][2][3][4][5]=x')).toEqual({ a: [[[[['x']]]]] });
    expect(() => parseQueryString('ok=1&numbers[0][data][a][b][c][d]=x')).toThrow(
      'You have specified an invalid parameter : numbers[0][data][a][b][c][d] : ' +
        `brackets are nested deeper than ${MAX_BRACKET_DEPTH} levels.`,
    );
  });

  describe('MAX_PARAMS', () => {
    it('reads up to the budget of parameters and refuses one more with 413', () => {
      const source = Array.from({ length: 10 }, (_, i) => `a[]=${i}`).join('&');

      expect(parseWithBudget(source, new ParamBudget(10)).a).toHaveLength(10);
      const error = catchError(() => parseWithBudget(`${source}&b=1`, new ParamBudget(10)));
      expect(error.message).toBe(
        'You have specified an invalid parameter : the request has more than 10 parameters (MAX_PARAMS).',
      );
      expect(httpStatusOf(error)).toBe(413);
    });

    it('shares one budget between the sources of a request', () => {
      const budget = new ParamBudget(3);
      parseWithBudget('a=1&b=2', budget);

      expect(budget.remaining).toBe(1);
      expect(() => parseWithBudget('c=3&d=4', budget)).toThrow(/more than 3 parameters/);
    });

    it('counts pairs, not empty separators', () => {
      expect(parseWithBudget('&&&a=1&&&b=2&&&', new ParamBudget(2))).toEqual({ a: '1', b: '2' });
    });
  });

  describe('cost in proportion to the input, whatever its shape', () => {
    const KIB = 1024;
    /** `unit(i)` repeated, `&`-separated, up to `bytes`. */
    const body = (bytes: number, unit: (i: number) => string): string => {
      const parts: string[] = [];
      let size = 0;
      for (let i = 0; size < bytes; i += 1) {
        const part = unit(i);
        parts.push(part);
        size += part.length + 1;
      }
      return parts.join('&');
    };
    const SHAPES: Array<[string, (bytes: number) => string]> = [
      ['appends to one list', (bytes) => body(bytes, () => 'a[]=1')],
      ['ascending indexes', (bytes) => body(bytes, (i) => `a[${i}]=1`)],
      ['descending indexes', (bytes) => body(bytes, (i) => `a[${1e6 - i}]=1`)],
      ['distinct names', (bytes) => body(bytes, (i) => `p${i}=1`)],
      ['one name repeated', (bytes) => body(bytes, () => 'a=1')],
      ['nested appends', (bytes) => body(bytes, () => 'a[][][][][]=1')],
      ['deepest maps', (bytes) => body(bytes, (i) => `a[${i}][b][c][d][e]=1`)],
      ['many keys of one map', (bytes) => body(bytes, (i) => `m[k${i}]=1`)],
      ['escapes and stray %', (bytes) => body(bytes, () => 'a[]=%C3%A9%')],
      ['separators only', (bytes) => '&'.repeat(bytes)],
      ['one name of opening brackets', (bytes) => `a${'['.repeat(bytes)}=1`],
      ['one name of closing brackets', (bytes) => `a[${']'.repeat(bytes)}=1`],
      ['one name of bracket pairs', (bytes) => `a${'[]'.repeat(bytes / 2)}=1`],
      ['one long value', (bytes) => `a=${'%41'.repeat(bytes / 3)}`],
    ];

    /** The fastest of three runs, in ms: the least disturbed by other work on the machine. */
    const fastest = (source: string, budget: number): number => {
      let best = Infinity;
      for (let run = 0; run < 3; run += 1) {
        const started = performance.now();
        try {
          parseWithBudget(source, new ParamBudget(budget));
        } catch (error) {
          expect(error).toBeInstanceOf(ApiError);
        }
        best = Math.min(best, performance.now() - started);
      }
      return best;
    };

    it.each(SHAPES)(
      'reads 1 MiB of %s, as many parameters as MAX_PARAMS allows, in well under a second',
      (_shape, make) => {
        // The most work a request may ask for: 20,000 parameters of the shape, and one long
        // value to fill the rest of the MiB (or one parameter of the whole MiB).
        const pairs = make(1024 * KIB)
          .split('&')
          .slice(0, 19_999)
          .join('&');
        const source = `${pairs}&z=${'x'.repeat(Math.max(0, 1024 * KIB - pairs.length - 3))}`;

        // Tens of ms on an idle machine (bench/params.ts); qs took seconds to minutes. The
        // bound is generous so that a loaded machine does not fail it.
        expect(fastest(source, 20_000)).toBeLessThan(1000);
      },
    );

    it.each(SHAPES)('refuses 1 MiB of %s over MAX_PARAMS before parsing it', (_shape, make) => {
      const source = make(1024 * KIB);
      const over = source.split('&').filter((pair) => pair !== '').length > 20_000;

      expect(fastest(source, 20_000)).toBeLessThan(over ? 100 : 1000);
    });

    it.each(SHAPES)(
      'parses 1 MiB of %s with no limit on parameters in seconds at most',
      (_shape, make) => {
        // The parser's own cost, past MAX_PARAMS: 100-300 ms on an idle machine for the heaviest
        // shapes, where qs took minutes (bench/params.ts prints how it grows with the size).
        expect(fastest(make(1024 * KIB), Number.MAX_SAFE_INTEGER)).toBeLessThan(3000);
      },
    );
  });
});

function catchError(action: () => unknown): ApiError {
  try {
    action();
  } catch (error) {
    return error as ApiError;
  }
  throw new Error('expected an error');
}
