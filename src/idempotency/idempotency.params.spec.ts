import { ApiError } from '../common/errors/api-error';
import { Deferred } from '../common/params/deferred';
import { parseIdempotencyKey } from './idempotency.params';

/** The key, or the message of its refusal. */
function outcome(key: Deferred<string | undefined>): string | undefined {
  try {
    return key.get();
  } catch (error) {
    return (error as ApiError).message;
  }
}

const refusal = (name: string, got: string) =>
  'You have specified an invalid parameter : ' +
  `${name} : a key must be 1 to 255 printable ASCII characters (space to ~), got ${got}.`;

describe('parseIdempotencyKey (docs/idempotency.md)', () => {
  it('has no key when neither the header nor the parameter is sent', () => {
    expect(outcome(parseIdempotencyKey(undefined, { text: 'x' }))).toBeUndefined();
  });

  it('reads the header, and takes it over the parameter', () => {
    expect(outcome(parseIdempotencyKey('a', {}))).toBe('a');
    expect(outcome(parseIdempotencyKey('a', { idempotency_key: 'b' }))).toBe('a');
    expect(outcome(parseIdempotencyKey(undefined, { idempotency_key: 'b' }))).toBe('b');
  });

  it('keeps the refusal of a malformed key for its rule, rather than throwing at once', () => {
    expect(() => parseIdempotencyKey('', {})).not.toThrow();
  });

  it.each([
    ['an empty header', '', {}, 'Idempotency-Key', 'an empty value'],
    [
      'a header beside a good parameter',
      'é',
      { idempotency_key: 'b' },
      'Idempotency-Key',
      'a character outside that range',
    ],
    ['an empty parameter', undefined, { idempotency_key: '' }, 'idempotency_key', 'an empty value'],
    [
      'a newline',
      undefined,
      { idempotency_key: 'a\nb' },
      'idempotency_key',
      'a character outside that range',
    ],
    [
      'DEL',
      undefined,
      { idempotency_key: 'a\x7f' },
      'idempotency_key',
      'a character outside that range',
    ],
    [
      '256 characters',
      undefined,
      { idempotency_key: 'k'.repeat(256) },
      'idempotency_key',
      '256 characters',
    ],
  ])('refuses %s, naming where it came from', (_case, header, params, name, got) => {
    expect(outcome(parseIdempotencyKey(header, params))).toBe(refusal(name, got));
  });

  it('refuses a parameter that is not a string (a JSON number or list)', () => {
    for (const value of [12, ['a', 'b'], { a: 1 }]) {
      expect(outcome(parseIdempotencyKey(undefined, { idempotency_key: value }))).toBe(
        'You have specified an invalid parameter : idempotency_key : a key must be a string.',
      );
    }
  });

  it('accepts every printable ASCII character, up to 255 of them', () => {
    const all = Array.from({ length: 95 }, (_, i) => String.fromCharCode(0x20 + i)).join('');
    expect(outcome(parseIdempotencyKey(all, {}))).toBe(all);
    expect(outcome(parseIdempotencyKey(undefined, { idempotency_key: 'k'.repeat(255) }))).toBe(
      'k'.repeat(255),
    );
  });

  it('joins a header sent twice, as one key', () => {
    expect(outcome(parseIdempotencyKey(['a', 'b'], {}))).toBe('a, b');
  });
});
