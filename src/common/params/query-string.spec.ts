import { parseQueryString } from './query-string';

describe('parseQueryString (DECISIONS §2: PHP bracket syntax everywhere)', () => {
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

  it('keeps a malformed percent sequence as it is instead of failing', () => {
    expect(parseQueryString('text=100%&b=%E0%A4%A')).toEqual({ text: '100%', b: '%E0%A4%A' });
  });

  it('reads an empty source as no parameters', () => {
    expect(parseQueryString('')).toEqual({});
  });
});
