/*
 * What a refused statement means, from the driver's error code (TypeORM's QueryFailedError keeps
 * the driver's error): the same question answered for mysql2 and better-sqlite3.
 */

function driverCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null) {
    return undefined;
  }
  const driverError = (error as { driverError?: unknown }).driverError ?? error;
  const code = (driverError as { code?: unknown }).code;
  return typeof code === 'string' ? code : undefined;
}

/** A row refused by a unique index. */
export function isUniqueViolation(error: unknown): boolean {
  const code = driverCode(error);
  return code === 'ER_DUP_ENTRY' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}

/**
 * A statement that lost a race for a lock and did nothing: InnoDB's deadlock victim (its whole
 * transaction rolled back) or lock wait timeout (the statement undone), SQLite's busy database
 * past the busy timeout. Trying the same work again is safe, and likely to succeed.
 */
export function isLockConflict(error: unknown): boolean {
  const code = driverCode(error);
  return (
    code === 'ER_LOCK_DEADLOCK' ||
    code === 'ER_LOCK_WAIT_TIMEOUT' ||
    (code !== undefined && /^SQLITE_(?:BUSY|LOCKED)/.test(code))
  );
}
