import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

/** The form of a sealed value: `enc:v1:<base64 IV>:<base64 ciphertext and tag>`. */
const PREFIX = 'enc:v1:';
const ALGORITHM = 'aes-256-gcm';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const KEY_BYTES = 32;
/** What the fingerprint authenticates: a constant, so that it tells keys apart and no more. */
const FINGERPRINT_INPUT = 'smsgw secrets key fingerprint v1';

/** A sealed value that cannot be opened: another key sealed it, or it was altered or swapped. */
export class UnreadableSecretError extends Error {
  constructor(reason: string) {
    super(`The secret cannot be decrypted: ${reason}.`);
    this.name = 'UnreadableSecretError';
  }
}

/**
 * Encrypts secrets one value at a time with AES-256-GCM, each under a random 96-bit IV and bound
 * to a context (what the value is, and whose) given as additional authenticated data: a value
 * copied to another context fails to open like a tampered one.
 */
export class SecretCipher {
  readonly fingerprint: string;

  /**
   * @param source where the key comes from, in words for the operator ("SECRETS_KEY").
   */
  constructor(
    private readonly key: Buffer,
    readonly source = 'the secrets key',
  ) {
    if (key.length !== KEY_BYTES) {
      throw new Error(`A secrets key is ${KEY_BYTES} bytes, not ${key.length}.`);
    }
    this.fingerprint = createHmac('sha256', key).update(FINGERPRINT_INPUT).digest('hex');
  }

  /** Whether `value` has the sealed form (it may still fail to open). */
  static isSealed(value: unknown): value is string {
    return typeof value === 'string' && value.startsWith(PREFIX);
  }

  seal(plaintext: string, context: string): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv(ALGORITHM, this.key, iv, { authTagLength: TAG_BYTES });
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const sealed = Buffer.concat([
      cipher.update(plaintext, 'utf8'),
      cipher.final(),
      cipher.getAuthTag(),
    ]);
    return `${PREFIX}${iv.toString('base64')}:${sealed.toString('base64')}`;
  }

  /** The plaintext of a value `seal` made with this key and `context`; throws otherwise. */
  open(value: string, context: string): string {
    if (!SecretCipher.isSealed(value)) {
      throw new UnreadableSecretError('it is not in the encrypted form');
    }
    const [ivText, sealedText, ...rest] = value.slice(PREFIX.length).split(':');
    const iv = Buffer.from(ivText ?? '', 'base64');
    const sealed = Buffer.from(sealedText ?? '', 'base64');
    if (rest.length > 0 || iv.length !== IV_BYTES || sealed.length < TAG_BYTES) {
      throw new UnreadableSecretError('its encrypted form is damaged');
    }
    const decipher = createDecipheriv(ALGORITHM, this.key, iv, { authTagLength: TAG_BYTES });
    decipher.setAAD(Buffer.from(context, 'utf8'));
    decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
    try {
      return Buffer.concat([
        decipher.update(sealed.subarray(0, sealed.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
    } catch {
      throw new UnreadableSecretError(
        'it was encrypted with another key, altered, or moved from another field',
      );
    }
  }
}
