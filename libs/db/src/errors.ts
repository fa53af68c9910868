/** PostgreSQL SQLSTATE codes this project cares about (https://www.postgresql.org/docs/current/errcodes-appendix.html). */
export const PgErrorCode = {
  uniqueViolation: '23505',
  foreignKeyViolation: '23503',
  notNullViolation: '23502',
  checkViolation: '23514',
  serializationFailure: '40001',
  deadlockDetected: '40P01',
  undefinedTable: '42P01',
} as const;

/**
 * The SQLSTATE code of an error thrown by `pg` or PGlite (both expose it as `code`), looking through
 * `cause` chains (e.g. a MigrationError wrapping a driver error). Undefined when it is not a database error.
 */
export function pgErrorCode(err: unknown): string | undefined {
  let current: unknown = err;
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const code: unknown = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** The constraint name reported by the server, when there is one. */
export function pgConstraintName(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null) return undefined;
  const constraint: unknown = (err as { constraint?: unknown }).constraint;
  return typeof constraint === 'string' ? constraint : undefined;
}

export const isUniqueViolation = (err: unknown): boolean => pgErrorCode(err) === PgErrorCode.uniqueViolation;
export const isForeignKeyViolation = (err: unknown): boolean =>
  pgErrorCode(err) === PgErrorCode.foreignKeyViolation;
export const isSerializationFailure = (err: unknown): boolean => {
  const code = pgErrorCode(err);
  return code === PgErrorCode.serializationFailure || code === PgErrorCode.deadlockDetected;
};
