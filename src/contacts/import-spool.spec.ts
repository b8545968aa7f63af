import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ContactFields } from './contacts.params';
import { ImportSpool } from './import-spool';

const line = (i: number): ContactFields => ({
  name: `Ann "${i}"\n`,
  nameKey: `ann "${i}"`,
  number: `+3361234${String(i).padStart(4, '0')}`,
  data: i % 2 === 0 ? '{}' : '{"city":"Lyon, \\"centre\\""}',
});

describe('ImportSpool', () => {
  let folder: string;
  beforeEach(() => {
    folder = mkdtempSync(join(tmpdir(), 'smsgw-spool-'));
  });
  afterEach(() => {
    rmSync(folder, { recursive: true, force: true });
  });

  const read = async (spool: ImportSpool) => {
    const chunks: ContactFields[][] = [];
    for await (const chunk of spool.chunks()) {
      chunks.push(chunk);
    }
    return chunks;
  };

  it('gives back the chunks appended, whole and in order', async () => {
    const spool = new ImportSpool(join(folder, 'upload.checked'));
    const lines = Array.from({ length: 7 }, (_, i) => line(i));
    await spool.append(lines.slice(0, 4));
    await spool.append(lines.slice(4));

    const chunks = await read(spool);

    expect(chunks).toEqual([lines.slice(0, 4), lines.slice(4)]);
  });

  it('gives nothing when nothing was appended, and removes its file, present or not', async () => {
    const path = join(folder, 'upload.checked');
    const empty = new ImportSpool(path);
    expect(await read(empty)).toEqual([]);
    await empty.remove();

    const spool = new ImportSpool(path);
    await spool.append([line(1)]);
    expect(existsSync(path)).toBe(true);
    await spool.remove();
    expect(existsSync(path)).toBe(false);
  });
});
