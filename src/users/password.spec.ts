import { scryptSync } from 'node:crypto';
import {
  hashPassword,
  PASSWORD_MAX_LENGTH,
  PASSWORD_MIN_LENGTH,
  passwordProblem,
  verifyPassword,
} from './password';

const BASE64 = '[A-Za-z0-9+/]+={0,2}';

describe('password hashing (scrypt, parameters stored beside the hash)', () => {
  it('stores scrypt$N$r$p$salt$hash with N = 2^15, r = 8, p = 1, a 16-byte salt and a 32-byte hash', async () => {
    const stored = await hashPassword('correct horse battery');

    expect(stored).toMatch(new RegExp(`^scrypt\\$32768\\$8\\$1\\$${BASE64}\\$${BASE64}$`));
    const [, , , , salt, hash] = stored.split('$');
    expect(Buffer.from(salt, 'base64')).toHaveLength(16);
    expect(Buffer.from(hash, 'base64')).toHaveLength(32);
  });

  it('salts every hash: the same password never gives the same output', async () => {
    const [first, second] = await Promise.all([
      hashPassword('correct horse battery'),
      hashPassword('correct horse battery'),
    ]);

    expect(first).not.toBe(second);
  });

  it('verifies the password a hash was made from, and no other', async () => {
    const stored = await hashPassword('correct horse battery');

    expect(await verifyPassword('correct horse battery', stored)).toBe(true);
    expect(await verifyPassword('correct horse batterY', stored)).toBe(false);
    expect(await verifyPassword('correct horse battery ', stored)).toBe(false);
    expect(await verifyPassword('', stored)).toBe(false);
  });

  it('still verifies a hash stored with other parameters, so that the cost can rise later', async () => {
    const salt = Buffer.from('0123456789abcdef');
    const hash = scryptSync('an older password', salt, 24, { N: 2 ** 14, r: 4, p: 2 });
    const stored = ['scrypt', 2 ** 14, 4, 2, salt.toString('base64'), hash.toString('base64')].join(
      '$',
    );

    expect(await verifyPassword('an older password', stored)).toBe(true);
    expect(await verifyPassword('another password', stored)).toBe(false);
  });

  it('answers false without a stored hash (no user, no password), and for a foreign format', async () => {
    expect(await verifyPassword('correct horse battery', null)).toBe(false);
    expect(await verifyPassword('', null)).toBe(false);
    expect(await verifyPassword('correct horse battery', 'bcrypt$2b$10$abc')).toBe(false);
    expect(await verifyPassword('correct horse battery', 'plain text')).toBe(false);
  });
});

describe('passwordProblem (10 to 1,024 code points)', () => {
  it.each([
    ['x'.repeat(PASSWORD_MIN_LENGTH), null],
    ['x'.repeat(PASSWORD_MAX_LENGTH), null],
    // Ten emoji are twenty UTF-16 units but ten characters.
    ['😀'.repeat(10), null],
    ['😀'.repeat(9), 'must have 10 to 1024 characters, not 9.'],
    ['x'.repeat(PASSWORD_MIN_LENGTH - 1), 'must have 10 to 1024 characters, not 9.'],
    ['é'.repeat(PASSWORD_MAX_LENGTH + 1), 'must have 10 to 1024 characters, not 1025.'],
    ['', 'must have 10 to 1024 characters, not 0.'],
  ])('%#: %j', (password, problem) => {
    expect(passwordProblem(password)).toBe(problem);
  });
});
