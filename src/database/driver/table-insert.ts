import { DataSource, EntityTarget, ObjectLiteral } from 'typeorm';
import { InsertTree } from './group-commit';
import { rowMarks } from './placeholders';

/** Rows per multi-row INSERT, and bytes, to stay below MySQL's max_allowed_packet. */
const ROWS_PER_INSERT = 1000;
const BYTES_PER_INSERT = 1024 * 1024;

/**
 * INSERT statements into one table, with bound parameters, columns in a fixed order. A CSV may
 * bring 200,000 numbers, which must cost neither a statement each nor the query builder's
 * per-value work (seconds at that size): they go in multi-row INSERTs.
 */
export class TableInsert {
  private readonly head: string;
  private readonly width: number;
  private readonly single: string;

  constructor(dataSource: DataSource, entity: EntityTarget<ObjectLiteral>, columns: string[]) {
    const driver = dataSource.driver;
    this.head =
      `INSERT INTO ${driver.escape(dataSource.getMetadata(entity).tableName)} ` +
      `(${columns.map((column) => driver.escape(column)).join(', ')}) VALUES `;
    this.width = columns.length;
    this.single = this.head + rowMarks(1, this.width);
  }

  /** One row, its values in the order of the columns. */
  row(values: unknown[], children?: (id: number) => InsertTree[]): InsertTree {
    return { sql: this.single, parameters: values, children };
  }

  /** As few statements as the limits on one statement allow. */
  rows(rows: unknown[][]): InsertTree[] {
    const statements: InsertTree[] = [];
    let parameters: unknown[] = [];
    let count = 0;
    let bytes = 0;
    const flush = () => {
      const sql = this.head + rowMarks(count, this.width);
      statements.push({ sql, parameters });
      parameters = [];
      count = 0;
      bytes = 0;
    };
    for (const row of rows) {
      const size = row.reduce<number>(
        (total, value) => total + (typeof value === 'string' ? Buffer.byteLength(value) : 8),
        0,
      );
      if (count === ROWS_PER_INSERT || (count > 0 && bytes + size > BYTES_PER_INSERT)) {
        flush();
      }
      parameters.push(...row);
      count += 1;
      bytes += size;
    }
    if (count > 0) {
      flush();
    }
    return statements;
  }
}
