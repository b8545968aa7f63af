import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApiError } from '../common/errors/api-error';
import { UploadedFile } from '../common/http/request';
import { Deferred } from '../common/params/deferred';
import { fingerprintOf, keyedRequest } from './idempotency.fingerprint';

describe('fingerprintOf (docs/idempotency.md)', () => {
  let folder: string;
  beforeAll(() => {
    folder = mkdtempSync(join(tmpdir(), 'smsgw-fingerprint-'));
  });
  afterAll(() => rmSync(folder, { recursive: true, force: true }));

  const file = (name: string, content: string, fieldname = 'medias'): UploadedFile => {
    const path = join(folder, name);
    writeFileSync(path, content);
    return { fieldname, originalname: name, mimetype: 'image/png', path, size: content.length };
  };

  it('is the same for the same values, whatever the order of the fields', async () => {
    expect(await fingerprintOf('op', { a: 1, b: 'x' })).toBe(
      await fingerprintOf('op', { b: 'x', a: 1 }),
    );
  });

  it('differs by operation, by any value, and by the order of a list', async () => {
    const base = await fingerprintOf('op', { a: [1, 2], b: null });
    expect(
      new Set([
        base,
        await fingerprintOf('other', { a: [1, 2], b: null }),
        await fingerprintOf('op', { a: [2, 1], b: null }),
        await fingerprintOf('op', { a: [1, 2], b: false }),
        await fingerprintOf('op', { a: [1, 2] }),
      ]).size,
    ).toBe(5);
  });

  it('leaves out undefined fields, so an absent parameter is one not sent', async () => {
    expect(await fingerprintOf('op', { a: 1, b: undefined })).toBe(
      await fingerprintOf('op', { a: 1 }),
    );
  });

  it('reads deferred parameters as their values', async () => {
    expect(await fingerprintOf('op', { a: Deferred.parse(() => [1]) })).toBe(
      await fingerprintOf('op', { a: [1] }),
    );
  });

  it('takes a file by its content: not its name, nor its path', async () => {
    const one = await fingerprintOf('op', { medias: [file('a.png', 'PNG1')] });
    expect(await fingerprintOf('op', { medias: [file('b.png', 'PNG1')] })).toBe(one);
    expect(await fingerprintOf('op', { medias: [file('c.png', 'PNG2')] })).not.toBe(one);
  });

  it('gives no keyed request without a key, and the key with the fingerprint otherwise', async () => {
    const input = { to: '+33612345678' };
    expect(
      await keyedRequest(
        'op',
        Deferred.parse(() => undefined),
        input,
      ),
    ).toBeUndefined();
    expect(
      await keyedRequest(
        'op',
        Deferred.parse(() => 'k'),
        input,
      ),
    ).toEqual({
      key: 'k',
      fingerprint: await fingerprintOf('op', input),
    });
    await expect(
      keyedRequest(
        'op',
        Deferred.parse<string>(() => {
          throw ApiError.invalid('bad key');
        }),
        input,
      ),
    ).rejects.toThrow('bad key');
  });
});
