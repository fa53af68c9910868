import { sql, type ColumnType, type Generated, type Kysely } from 'kysely';
import { isAddress } from 'ethers';
import { commonProblems, ProblemError } from '@nrp/validation';
import { generateNonce } from './generate-nonce';
import { authProblems } from './problems';
import { isValidScope, scopeAllows } from './scope';
import { assertTableName, DEFAULT_NONCE_TABLE } from './nonce-migration';

export interface IssuedNonce {
  nonce: string;
  /** Unix time in milliseconds. */
  expiresAt: number;
}

/** Single-use sign-in nonces, bound to an address (case-insensitive) and a scope. */
export interface NonceStore {
  issue(address: string, scope: string, now?: Date): Promise<IssuedNonce>;
  /**
   * Marks the nonce used, atomically, if it is live, unused, issued to `address` and its scope allows
   * `scope`; otherwise throws INVALID_NONCE, EXPIRED_NONCE or NONCE_SCOPE_MISMATCH and leaves it untouched.
   */
  consume(nonce: string, address: string, scope: string, now?: Date): Promise<void>;
}

export interface NonceRow {
  nonce: string;
  /** Lower-case 0x address. */
  address: string;
  scope: string;
  expires_at: ColumnType<Date, Date, Date>;
  created_at: Generated<Date>;
  used_at: ColumnType<Date | null, Date | null | undefined, Date | null>;
}

export interface NonceTables {
  auth_nonces: NonceRow;
}

export interface NonceStoreOptions {
  /** Default `auth_nonces`; must match the table given to `nonceMigration`. */
  table?: string;
  /** Lifetime of a nonce in milliseconds. */
  ttlMs: number;
}

export interface PgNonceStore extends NonceStore {
  /** Deletes nonces that expired at or before `now`; returns how many. A swept nonce then reads as unknown. */
  sweepExpired(now?: Date): Promise<number>;
}

/** Any table name: the rows are typed by NonceRow whatever the table is called. */
type AnyNonceTables = Record<string, NonceRow>;

/**
 * A NonceStore on PostgreSQL (or PGlite). `db` may be the service's own Kysely instance; its database type
 * only needs to contain the nonce table, created by `nonceMigration(table)`.
 */
export function createNonceStore<DB = NonceTables>(db: Kysely<DB>, options: NonceStoreOptions): PgNonceStore {
  const table = assertTableName(options.table ?? DEFAULT_NONCE_TABLE);
  const { ttlMs } = options;
  if (!Number.isInteger(ttlMs) || ttlMs <= 0) throw new RangeError('ttlMs must be a positive integer');
  const k = db as unknown as Kysely<AnyNonceTables>;

  return {
    async issue(address, scope, now = new Date()) {
      if (!isAddress(address)) {
        throw new ProblemError(commonProblems.INVALID_INPUT, `"${address}" is not an Ethereum address.`);
      }
      if (!isValidScope(scope)) {
        throw new ProblemError(commonProblems.INVALID_INPUT, `"${scope}" is not a valid nonce scope.`);
      }
      const nonce = generateNonce();
      const expiresAt = now.getTime() + ttlMs;
      await k
        .insertInto(table)
        .values({ nonce, address: address.toLowerCase(), scope, expires_at: new Date(expiresAt) })
        .execute();
      return { nonce, expiresAt };
    },

    async consume(nonce, address, scope, now = new Date()) {
      const lower = address.toLowerCase();
      // One statement: of concurrent consumers, exactly one sees the row come back. Every condition is in the
      // WHERE clause, so a request that fails any of them leaves the nonce usable.
      if (isValidScope(scope)) {
        const consumed = await k
          .updateTable(table)
          .set({ used_at: now })
          .where('nonce', '=', nonce)
          .where('used_at', 'is', null)
          .where('address', '=', lower)
          .where('expires_at', '>', now)
          .where(sql<boolean>`string_to_array(${scope}, '+') <@ string_to_array(${sql.ref('scope')}, '+')`)
          .returning('nonce')
          .executeTakeFirst();
        if (consumed) return;
      }
      // Nothing was consumed: read the row to say why.
      const row = await k
        .selectFrom(table)
        .select(['address', 'scope', 'expires_at', 'used_at'])
        .where('nonce', '=', nonce)
        .executeTakeFirst();
      if (!row) throw new ProblemError(authProblems.INVALID_NONCE, 'The nonce is unknown.');
      if (row.used_at !== null)
        throw new ProblemError(authProblems.INVALID_NONCE, 'The nonce was already used.');
      if (row.address !== lower) {
        throw new ProblemError(authProblems.INVALID_NONCE, 'The nonce was issued to another address.');
      }
      if (new Date(row.expires_at).getTime() <= now.getTime()) {
        throw new ProblemError(
          authProblems.EXPIRED_NONCE,
          `The nonce expired at ${new Date(row.expires_at).toISOString()}.`,
        );
      }
      if (!scopeAllows(row.scope, scope)) {
        throw new ProblemError(
          authProblems.NONCE_SCOPE_MISMATCH,
          `The nonce was issued for scope "${row.scope}", which does not allow "${scope}".`,
        );
      }
      // Every condition holds now, so another request consumed it between the two statements.
      throw new ProblemError(authProblems.INVALID_NONCE, 'The nonce was already used.');
    },

    async sweepExpired(now = new Date()) {
      const result = await k.deleteFrom(table).where('expires_at', '<=', now).executeTakeFirst();
      return Number(result.numDeletedRows);
    },
  };
}
