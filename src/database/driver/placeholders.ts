/** `?, ?, …`: one placeholder for each of `count` values, as in `IN (…)` or `VALUES (…)`. */
export function marks(count: number): string {
  return Array.from({ length: count }, () => '?').join(', ');
}

/** `(?, ?), (?, ?), …`: the VALUES of a multi-row INSERT of `rows` rows of `width` columns. */
export function rowMarks(rows: number, width: number): string {
  const row = `(${marks(width)})`;
  return Array.from({ length: rows }, () => row).join(', ');
}

/**
 * The values of a multi-row INSERT, row after row: `columns` of each row (as `value` gives them)
 * then `after`. One array filled in place: an array per row and per column list, flattened, cost
 * a campaign's 500-row statements tens of megabytes of garbage.
 */
export function rowValues<T>(
  rows: readonly T[],
  columns: readonly (keyof T)[],
  after: readonly unknown[],
  value: (row: T, column: keyof T) => unknown = (row, column) => row[column],
): unknown[] {
  const values = new Array<unknown>(rows.length * (columns.length + after.length));
  let at = 0;
  for (const row of rows) {
    for (const column of columns) {
      values[at++] = value(row, column);
    }
    for (const extra of after) {
      values[at++] = extra;
    }
  }
  return values;
}

/**
 * `items` cut into pieces of at most `size`, in order. Statements are cut so, because both
 * engines cap what one statement may bind (SQLite at 32,766 values, MySQL's packet size) and one
 * huge statement holds the connection, on SQLite the event loop, for all of its rows.
 */
export function chunks<T>(items: readonly T[], size: number): T[][] {
  const pieces: T[][] = [];
  for (let start = 0; start < items.length; start += size) {
    pieces.push(items.slice(start, start + size));
  }
  return pieces;
}
