import { drive, select, Sql, write, written } from './sql';

describe('written', () => {
  it("gives better-sqlite3's run result as the rows changed and the id of the first", () => {
    expect(written({ changes: 3, lastInsertRowid: 12 })).toEqual({ affected: 3, firstId: 10 });
    expect(written({ changes: 1, lastInsertRowid: BigInt(7) })).toEqual({
      affected: 1,
      firstId: 7,
    });
  });

  it("gives mysql2's header as the rows changed and the first insert id", () => {
    expect(written({ affectedRows: 3, insertId: '10' })).toEqual({ affected: 3, firstId: 10 });
  });
});

describe('drive', () => {
  it('gives each statement its result, and throws a refused one into the body', () => {
    function* body(): Sql<string> {
      const rows = yield* select<{ v: string }>('SELECT v', [1]);
      try {
        yield* write('INSERT refused');
      } catch (error) {
        return `${rows[0].v} then ${(error as Error).message}`;
      }
      return 'not refused';
    }

    const result = drive(body(), ({ sql }) => {
      if (sql === 'INSERT refused') {
        throw new Error('refused');
      }
      return [{ v: 'read' }];
    });

    expect(result).toBe('read then refused');
  });
});
