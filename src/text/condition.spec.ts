import { compileCondition, MAX_CONDITION_LENGTH } from './condition';

const METAS = {
  id: 7,
  name: 'Jane Doe',
  number: '+33612345678',
  created_at: '2024-01-02 10:00:00',
  updated_at: null,
};

function makeContact(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return { firstname: 'Jane', lastname: 'Doe', gender: 'female', vip: '1', ...overrides };
}

/** Whether the contact matches the condition, which must compile. */
function matches(
  expression: string,
  contact: Record<string, unknown> | null = makeContact(),
  metas: Record<string, unknown> = METAS,
): boolean {
  const condition = compileCondition(expression);
  expect(condition.error).toBeNull();
  return condition.matches(contact, metas);
}

describe('compileCondition', () => {
  describe('the examples of RaspiSMS documentation', () => {
    it.each([
      ['1 == 1', true],
      ["contact.gender == 'female'", true],
      ["contact.gender == 'female' && contact.vip == 1", true],
      ["upper(contact.lastname) == 'DOE'", true],
      ["(exists(contact.lastname)) && (upper(contact.lastname) == 'DOE')", true],
    ])('%s selects Jane Doe', (expression, expected) => {
      expect(matches(expression)).toBe(expected);
    });

    it.each([
      ["contact.gender == 'female'", { gender: 'male' }],
      ["contact.gender == 'female' && contact.vip == 1", { vip: '0' }],
      ["upper(contact.lastname) == 'DOE'", { lastname: 'Smith' }],
      ["(exists(contact.lastname)) && (upper(contact.lastname) == 'DOE')", { lastname: null }],
    ])('%s leaves out a contact with %j', (expression, overrides) => {
      expect(matches(expression, makeContact(overrides))).toBe(false);
    });
  });

  describe('values compare as in PHP 8', () => {
    it.each([
      ["contact.vip == 1 (data values are strings: '1' == 1)", 'contact.vip == 1', true],
      ["'1e1' == '10' (two numeric strings compare as numbers)", "'1e1' == '10'", true],
      ["' 1' == 1 (whitespace around a number is allowed)", "' 1' == 1", true],
      ["'abc' == 0 (a string that is no number compares as text)", "'abc' == 0", false],
      ["'' == 0", "'' == 0", false],
      ['null == 0 (null and numbers compare as booleans)', 'null == 0', true],
      ["null == '' (null compares as an empty string with strings)", "null == ''", true],
      ["'1' === 1 (strict equality also compares types)", "'1' === 1", false],
      ["'10' > '9' (numeric strings)", "'10' > '9'", true],
      ["'b' > 'a' (other strings, as text)", "'b' > 'a'", true],
      ['[1, 2] == [1, 2]', '[1, 2] == [1, 2]', true],
    ])('%s', (_rule, expression, expected) => {
      expect(matches(expression)).toBe(expected);
    });

    it('finds a value in a list with loose equality, as in_array', () => {
      expect(matches('contact.vip in [1, 2]')).toBe(true);
      expect(matches("contact.gender not in ['male', 'other']")).toBe(true);
    });

    it('adds numeric strings as numbers and concatenates with ~', () => {
      expect(matches('contact.vip + 1 == 2')).toBe(true);
      expect(matches("contact.firstname ~ ' ' ~ contact.lastname == 'Jane Doe'")).toBe(true);
      expect(matches("1.5 ~ '' == '1.5' and true ~ '' == '1'")).toBe(true);
    });

    it('casts the result to a boolean as PHP does', () => {
      expect(matches("'0'")).toBe(false);
      expect(matches("'a'")).toBe(true);
      expect(matches('[]')).toBe(false);
      expect(matches('contact.vip')).toBe(true);
    });
  });

  describe('reading the contact', () => {
    it('reads a missing attribute as null', () => {
      expect(matches('contact.nickname == null')).toBe(true);
      expect(matches('exists(contact.nickname)')).toBe(false);
    });

    it('reads the contact row as contact_metas', () => {
      expect(matches("contact_metas.number == '+33612345678' and contact_metas.id == 7")).toBe(
        true,
      );
    });

    it('reads nested data and items of lists', () => {
      const contact = makeContact({ address: { city: 'Lyon' }, tags: ['a', 'b'] });
      expect(matches("contact.address.city == 'Lyon' and contact.tags[1] == 'b'", contact)).toBe(
        true,
      );
      expect(matches("contact['first name'] == 'J'", { 'first name': 'J' })).toBe(true);
    });

    it('leaves out a contact whose data is not an object whenever contact.x is read', () => {
      expect(matches('contact.gender == null', null)).toBe(false);
      expect(matches('contact.gender == null', [] as unknown as Record<string, unknown>)).toBe(
        false,
      );
      expect(matches('1 == 1', null)).toBe(true);
    });

    it('leaves out a contact when reading an attribute of a text fails', () => {
      expect(matches('contact.gender.first == null')).toBe(false);
    });

    it('makes a missing value null under ?? and ?.', () => {
      expect(matches("(contact.address.city ?? 'none') == 'none'")).toBe(true);
      expect(matches('contact.address?.city == null')).toBe(true);
    });
  });

  describe('sandbox', () => {
    it.each([
      'contact.constructor',
      'contact.__proto__',
      'contact.toString',
      "contact['constructor']",
      'contact_metas.constructor',
    ])('never reaches JavaScript internals through %s (it is null)', (path) => {
      const contact = makeContact({ tags: ['a'] });
      expect(matches(`${path} == null`, contact)).toBe(true);
      expect(matches(`exists(${path})`, contact)).toBe(false);
    });

    it("never reads a list's JavaScript length: a property of a list is an error, as in PHP", () => {
      const contact = makeContact({ tags: ['a'] });
      expect(matches('contact.tags.length == 1', contact)).toBe(false);
      expect(matches('contact.tags.length == null', contact)).toBe(false);
      expect(matches('count(contact.tags) == 1', contact)).toBe(true);
    });

    it('refuses method calls when compiling', () => {
      const condition = compileCondition("contact.lastname.toUpperCase() == 'DOE'");
      expect(condition.error).toBe(
        "The condition cannot be used: it calls the method toUpperCase(), but a contact's data has no methods.",
      );
      expect(condition.matches(makeContact(), METAS)).toBe(false);
    });

    it.each(['enum', 'min', 'max', 'constructor', 'toString', 'eval', 'require'])(
      'refuses the function %s(), which RaspiSMS does not have',
      (name) => {
        expect(compileCondition(`${name}('x')`).error).toBe(
          `The condition does not parse: The function "${name}" does not exist around position 1.`,
        );
      },
    );

    it('refuses variables other than contact and contact_metas', () => {
      expect(compileCondition('process.env.HOME == null').error).toMatch(
        /^The condition does not parse: Variable "process" is not valid/,
      );
    });

    it('makes constant() null instead of reading the server', () => {
      expect(matches("constant('process') == null and constant('PHP_VERSION') == null")).toBe(true);
    });

    it(`refuses conditions longer than ${MAX_CONDITION_LENGTH} characters`, () => {
      const long = `1 == 1${' and 1 == 1'.repeat(100)}`;
      expect(long.length).toBeGreaterThan(MAX_CONDITION_LENGTH);
      expect(compileCondition(long).error).toBe(
        `The condition is longer than ${MAX_CONDITION_LENGTH} characters.`,
      );
    });

    it('leaves out the contact when a range would exceed 10000 items, instead of building it', () => {
      expect(matches('5 in 1..100000000')).toBe(false);
      expect(matches('5 in 1..10')).toBe(true);
      expect(matches("'c' in 'a'..'e' and count(10..1) == 10")).toBe(true);
    });

    it('stops a pattern that backtracks without end and leaves the contact out', () => {
      const contact = makeContact({ lastname: `${'a'.repeat(40)}!` });
      expect(matches("contact.lastname matches '/^(a+)+$/'", contact)).toBe(false);
    });

    it('stops a pattern after the time it is given', () => {
      // Backtracks for some 10 to 100 ms: done within 5 s, stopped within 1 ms.
      const expression = "not (contact.lastname matches '/^(a+)+$/')";
      const contact = makeContact({ lastname: `${'a'.repeat(22)}!` });
      const patient = compileCondition(expression, { patternTimeoutMs: 5000 });
      const hasty = compileCondition(expression, { patternTimeoutMs: 1 });

      expect(patient.matches(contact, METAS)).toBe(true);
      expect(hasty.matches(contact, METAS)).toBe(false);
    });

    it('tries a pattern once more when it was stopped, as a busy machine can stop a cheap one', () => {
      // The first read of the name holds the thread past the limit, as a process kept off the
      // CPU would be; the second is immediate.
      let reads = 0;
      const contact = {
        get lastname() {
          reads += 1;
          const until = Date.now() + (reads === 1 ? 100 : 0);
          while (Date.now() < until) {
            // Holding the thread.
          }
          return 'Doe';
        },
      };
      const condition = compileCondition("contact.lastname matches '/^Doe$/'", {
        patternTimeoutMs: 20,
      });

      expect(condition.matches(contact, METAS)).toBe(true);
      expect(reads).toBe(2);
    });
  });

  describe('errors exclude the contact', () => {
    it.each([
      ["'abc' + 1", 'arithmetic on a text that is no number'],
      ['1 / 0', 'a division by zero'],
      ['1 % 0', 'a modulo by zero'],
      ["count('abc') == 3", 'count() of a text'],
      ["lower(['a']) == 'a'", 'a list used as text'],
      ['strlen() == 0', 'a missing argument'],
    ])('%s (%s)', (expression) => {
      expect(matches(expression)).toBe(false);
    });

    it('reports a syntax error with its position', () => {
      expect(compileCondition("contact.gender == 'female' &&").error).toMatch(
        /^The condition does not parse: .+ around position \d+\.$/,
      );
      expect(compileCondition('').error).toMatch(/^The condition does not parse: /);
    });
  });

  describe('patterns (matches)', () => {
    it('reads PHP patterns with their delimiters and modifiers', () => {
      expect(matches("contact_metas.number matches '/^\\\\+336/'")).toBe(true);
      expect(matches("contact.lastname matches '#^d#i'")).toBe(true);
      expect(matches("contact.lastname matches '/^d/'")).toBe(false);
      expect(matches("contact.lastname matches '{\\\\Adoe\\\\z}i'")).toBe(true);
    });

    it('refuses a pattern literal that is not valid when compiling', () => {
      expect(compileCondition("contact.lastname matches 'Doe'").error).toBe(
        'The condition cannot be used: the pattern Doe has no delimiter.',
      );
      expect(compileCondition("contact.lastname matches '/(/'").error).toBe(
        'The condition cannot be used: the pattern /(/ is not valid.',
      );
      expect(compileCondition("contact.lastname matches '/a/e'").error).toBe(
        'The condition cannot be used: the pattern modifier e is not supported.',
      );
    });
  });

  describe('functions', () => {
    it.each([
      ["lower('ÉLODIE') == 'élodie'"],
      ["upper('élodie') == 'ÉLODIE'"],
      ["substr('Élodie', 0, 2) == 'Él' and substr('Élodie', -3) == 'die'"],
      ["substr('Élodie', 1, -2) == 'lod' and substr('abc', 5) == ''"],
      ["strlen('Élodie') == 6"],
      ["abs('-5') == 5"],
      ["intval('12abc') == 12 and intval('abc') == 0 and intval(' 7 ') == 7"],
      ["intval('ff', 16) == 255"],
      ["boolval('0') == false and boolval('0.0') == true"],
      ['count([1, 2, 3]) == 3 and count({a: 1}) == 1'],
      ["date('2024-01-01') < date('2025-01-01')"],
      ["date('not a date') == false"],
      ["date_from_format('d/m/Y', '31/02/2024') == false"],
    ])('%s', (expression) => {
      expect(matches(expression)).toBe(true);
    });

    it("tells a birthday by the service zone's date", () => {
      // 22:30 UTC on 11 May is already 12 May in Paris.
      const now = (): Date => new Date('2024-05-11T22:30:00Z');
      const contact = makeContact({ birthday: '1990-05-12' });
      const paris = compileCondition('is_birthday(date(contact.birthday))', {
        now,
        timeZone: 'Europe/Paris',
      });
      const utc = compileCondition('is_birthday(date(contact.birthday))', { now });
      expect(paris.matches(contact, METAS)).toBe(true);
      expect(utc.matches(contact, METAS)).toBe(false);
    });

    it('reads a birthday with date_from_format', () => {
      const now = (): Date => new Date('2024-05-12T12:00:00Z');
      const condition = compileCondition(
        "is_birthday(date_from_format('d/m/Y', contact.birthday))",
        { now },
      );
      expect(condition.matches(makeContact({ birthday: '12/05/1990' }), METAS)).toBe(true);
      expect(condition.matches(makeContact({ birthday: '13/05/1990' }), METAS)).toBe(false);
      expect(condition.matches(makeContact({ birthday: 'unknown' }), METAS)).toBe(false);
    });
  });

  it('compiles once and tests every contact with the same condition', () => {
    const condition = compileCondition("contact.gender == 'female'");
    const contacts = [
      makeContact(),
      makeContact({ gender: 'male' }),
      null,
      makeContact({ firstname: 'Ann' }),
    ];
    expect(contacts.map((contact) => condition.matches(contact, METAS))).toEqual([
      true,
      false,
      false,
      true,
    ]);
  });
});
