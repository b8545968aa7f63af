import { createReadStream } from 'node:fs';
import { appendFile, unlink } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { ContactFields } from './contacts.params';

/**
 * The checked lines of a contacts_csv, kept on disk beside the upload between the check of the
 * whole file and its writing: reading them back costs a JSON parse a chunk, where reading the
 * CSV again would parse and normalise every number a second time (as long as the first reading).
 * Each chunk is one line of JSON, parsed in one call. Memory holds one chunk, never the file.
 */
export class ImportSpool {
  private appended = 0;

  constructor(private readonly path: string) {}

  async append(chunk: readonly ContactFields[]): Promise<void> {
    const rows = chunk.map((line) => [line.name, line.nameKey, line.number, line.data]);
    this.appended += 1;
    await appendFile(this.path, `${JSON.stringify(rows)}\n`);
  }

  /** The chunks appended, in their order. */
  async *chunks(): AsyncGenerator<ContactFields[]> {
    if (this.appended === 0) {
      return;
    }
    const lines = createInterface({ input: createReadStream(this.path), crlfDelay: Infinity });
    for await (const text of lines) {
      const rows = JSON.parse(text) as string[][];
      yield rows.map(([name, nameKey, number, data]) => ({ name, nameKey, number, data }));
    }
  }

  async remove(): Promise<void> {
    await unlink(this.path).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') {
        throw error;
      }
    });
  }
}
