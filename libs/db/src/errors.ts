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

/** Socket errors of a connection to the server (refused, reset, timed out, name not resolved). */
const CONNECTION_ERROR_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a server that is going away or refusing work: class 08 (connection exception), 57P01–57P03
 * (admin/crash shutdown, cannot connect now), 53300 (too many connections).
 */
const UNAVAILABLE_SQLSTATE = /^(08...|57P0[123]|53300)$/;

/**
 * `pg`, `pg-pool`, PGlite and Kysely report a lost or closed connection by message only (no code): a lost
 * connection, a pool that timed out waiting for one, a closed pool, PGlite or Kysely (during shutdown).
 */
const UNAVAILABLE_MESSAGES = [
  'Connection terminated',
  'is not queryable',
  'timeout exceeded when trying to connect',
  'Cannot use a pool after calling end on the pool',
  'PGlite is closed',
  'driver has already been destroyed',
];

/**
 * True when `err` (or an error in its `cause` chain, e.g. a DatabaseError from `ping`) says the database cannot
 * be reached or is shutting down, as opposed to a query it refused: services answer 503 with `Retry-After`.
 */
export function isDatabaseUnavailable(err: unknown): boolean {
  let current: unknown = err;
  // Duck-typed, not `instanceof Error`: socket errors may come from another realm (a test runner's sandbox).
  for (let depth = 0; depth < 5 && typeof current === 'object' && current !== null; depth++) {
    const { code, message, errors, cause } = current as {
      code?: unknown;
      message?: unknown;
      errors?: unknown;
      cause?: unknown;
    };
    if (typeof code === 'string' && (CONNECTION_ERROR_CODES.has(code) || UNAVAILABLE_SQLSTATE.test(code))) {
      return true;
    }
    if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((known) => message.includes(known)))
      return true;
    // An AggregateError: each address of a host name refused.
    if (Array.isArray(errors) && errors.some(isDatabaseUnavailable)) return true;
    current = cause;
  }
  return false;
}
