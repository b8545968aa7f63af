import { compilePhpPattern } from './php-pattern';
import { PhpError } from './php-values';

describe('compilePhpPattern', () => {
  it('reads the pattern between any delimiter, and the modifiers after it', () => {
    expect(compilePhpPattern('/^a/i').test('Abc')).toBe(true);
    expect(compilePhpPattern('#^a#').test('Abc')).toBe(false);
    expect(compilePhpPattern('~a.c~s').test('a\nc')).toBe(true);
  });

  it('closes a bracket delimiter with its pair', () => {
    expect(compilePhpPattern('{^\\d+$}').test('123')).toBe(true);
    expect(compilePhpPattern('(^x)').test('xy')).toBe(true);
  });

  it('keeps an escaped delimiter inside the pattern', () => {
    expect(compilePhpPattern('/a\\/b/').test('a/b')).toBe(true);
    expect(compilePhpPattern('#a\\#b#u').test('a#b')).toBe(true);
  });

  it('translates \\A, \\z and \\Z, which JavaScript lacks', () => {
    expect(compilePhpPattern('/\\Aab\\z/').test('ab')).toBe(true);
    expect(compilePhpPattern('/\\Aab\\z/').test('ab\n')).toBe(false);
    expect(compilePhpPattern('/ab\\Z/').test('ab\n')).toBe(true);
  });

  it('translates named groups written the Python way', () => {
    expect(compilePhpPattern('/(?P<x>a)(?P=x)/').test('aa')).toBe(true);
  });

  it.each([
    ['abc', 'has no delimiter'],
    ['/abc', 'has no ending delimiter'],
    ['/a/x', 'modifier x is not supported'],
    ['/a++/', 'is not valid'],
    ['/(/', 'is not valid'],
  ])('refuses %s: it %s', (pattern, reason) => {
    expect(() => compilePhpPattern(pattern)).toThrow(PhpError);
    expect(() => compilePhpPattern(pattern)).toThrow(reason);
  });
});
