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
