import { randomBytes } from 'node:crypto';
import { SecretCipher, UnreadableSecretError } from './secret-cipher';

const KEY = Buffer.alloc(32, 7);
const cipher = new SecretCipher(KEY);
const CONTEXT = 'phone/1/2/adapter_data/password';

describe('SecretCipher', () => {
  it('seals a value into the versioned form and opens it again', () => {
    const sealed = cipher.seal('p4ssw0rd é', CONTEXT);

    expect(sealed).toMatch(/^enc:v1:[A-Za-z0-9+/]{16}:[A-Za-z0-9+/=]+$/);
    expect(sealed).not.toContain('p4ssw0rd');
    expect(SecretCipher.isSealed(sealed)).toBe(true);
    expect(cipher.open(sealed, CONTEXT)).toBe('p4ssw0rd é');
  });

  it('seals the empty text too', () => {
    expect(cipher.open(cipher.seal('', CONTEXT), CONTEXT)).toBe('');
  });

  it('draws a new 96-bit IV for every value', () => {
    const ivs = new Set(
      Array.from({ length: 100 }, () => cipher.seal('same', CONTEXT).split(':')[2]),
    );

    expect(ivs.size).toBe(100);
    expect(Buffer.from([...ivs][0], 'base64')).toHaveLength(12);
  });

  it('refuses a value opened in another context: values cannot be swapped between fields', () => {
    const sealed = cipher.seal('secret', CONTEXT);

    expect(() => cipher.open(sealed, 'phone/1/2/adapter_data/pin')).toThrow(UnreadableSecretError);
    expect(() => cipher.open(sealed, 'phone/1/3/adapter_data/password')).toThrow(
      UnreadableSecretError,
    );
  });

  it('refuses a value sealed with another key', () => {
    const sealed = new SecretCipher(randomBytes(32)).seal('secret', CONTEXT);

    expect(() => cipher.open(sealed, CONTEXT)).toThrow(/another key, altered, or moved/);
  });

  it.each([
    ['a flipped bit of the ciphertext', (parts: string[]) => [parts[0], flip(parts[1])]],
    ['a flipped bit of the IV', (parts: string[]) => [flip(parts[0]), parts[1]]],
    ['a shortened ciphertext', (parts: string[]) => [parts[0], parts[1].slice(0, 8)]],
    ['a missing part', (parts: string[]) => [parts[0]]],
    ['an extra part', (parts: string[]) => [...parts, 'x']],
  ])('refuses a tampered value: %s', (_, tamper) => {
    const [, , ...parts] = cipher.seal('secret', CONTEXT).split(':');

    expect(() => cipher.open(`enc:v1:${tamper(parts).join(':')}`, CONTEXT)).toThrow(
      UnreadableSecretError,
    );
  });

  it('refuses a plaintext where a sealed value is expected', () => {
    expect(() => cipher.open('secret', CONTEXT)).toThrow(/not in the encrypted form/);
  });

  it('fingerprints its key without revealing it: the same for the same key, another for another', () => {
    expect(cipher.fingerprint).toMatch(/^[0-9a-f]{64}$/);
    expect(cipher.fingerprint).toBe(new SecretCipher(Buffer.from(KEY)).fingerprint);
    expect(cipher.fingerprint).not.toBe(new SecretCipher(randomBytes(32)).fingerprint);
    expect(cipher.fingerprint).not.toContain(KEY.toString('hex'));
  });

  it('takes only 32-byte keys', () => {
    expect(() => new SecretCipher(Buffer.alloc(16))).toThrow(/32 bytes/);
  });
});

function flip(base64: string): string {
  const bytes = Buffer.from(base64, 'base64');
  bytes[0] ^= 1;
  return bytes.toString('base64');
}
