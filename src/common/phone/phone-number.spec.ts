import { normalizePhoneNumber } from './phone-number';

describe('normalizePhoneNumber', () => {
  it.each([
    ['+33612345678', '+33612345678'],
    ['+33 6 12 34 56 78', '+33612345678'],
    ['+33.6.12.34.56.78', '+33612345678'],
    ['+1 (415) 555-2671', '+14155552671'],
  ])('normalises the international number %s to %s', (input, expected) => {
    expect(normalizePhoneNumber(input)).toBe(expected);
  });

  it.each(['0612345678', '0033612345678', '+336123', 'abc', '', '   '])(
    'refuses %j without a default country',
    (input) => {
      expect(normalizePhoneNumber(input)).toBeNull();
    },
  );

  it('refuses what is not a string', () => {
    expect(normalizePhoneNumber(33612345678)).toBeNull();
    expect(normalizePhoneNumber(['+33612345678'])).toBeNull();
  });

  it('accepts national numbers of the default country, in either case', () => {
    expect(normalizePhoneNumber('0612345678', 'fr')).toBe('+33612345678');
    expect(normalizePhoneNumber('06 12 34 56 78', 'FR')).toBe('+33612345678');
    expect(normalizePhoneNumber('+14155552671', 'fr')).toBe('+14155552671');
  });

  it('ignores a default country that is not an ISO code', () => {
    expect(normalizePhoneNumber('0612345678', 'france')).toBeNull();
  });

  describe('a + that form decoding made a space', () => {
    it.each([
      [' 33612345678', '+33612345678'],
      [' 33 6 12 34 56 78', '+33612345678'],
      [' 14155552671 ', '+14155552671'],
    ])('reads %j as the + that was typed', (input, expected) => {
      expect(normalizePhoneNumber(input)).toBe(expected);
      expect(normalizePhoneNumber(input, 'fr')).toBe(expected);
    });

    it.each(['  33612345678', ' a33612345678', '\t33612345678'])(
      'refuses %j: only one space before a digit is a decoded +',
      (input) => {
        expect(normalizePhoneNumber(input)).toBeNull();
      },
    );

    it('still reads a national number after one space when the + reading is not valid', () => {
      expect(normalizePhoneNumber(' 0612345678', 'fr')).toBe('+33612345678');
      expect(normalizePhoneNumber(' 0612345678')).toBeNull();
    });
  });
});
