import type { Kysely } from 'kysely';
import type { OffchainDatabase } from './schema';

export interface SessionRow {
  tokenHash: string;
  /** Lower-case 0x address. */
  address: string;
  expiresAt: Date;
}

export async function insertSession(db: Kysely<OffchainDatabase>, session: SessionRow): Promise<void> {
  await db
    .insertInto('offchain_sessions')
    .values({ token_hash: session.tokenHash, address: session.address, expires_at: session.expiresAt })
    .execute();
}

/** The session with this token hash, unless it expired at or before `now`. */
export async function findLiveSession(
  db: Kysely<OffchainDatabase>,
  tokenHash: string,
  now: Date,
): Promise<SessionRow | undefined> {
  const row = await db
    .selectFrom('offchain_sessions')
    .select(['token_hash', 'address', 'expires_at'])
    .where('token_hash', '=', tokenHash)
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row && { tokenHash: row.token_hash, address: row.address, expiresAt: new Date(row.expires_at) };
}

export async function deleteSession(db: Kysely<OffchainDatabase>, tokenHash: string): Promise<void> {
  await db.deleteFrom('offchain_sessions').where('token_hash', '=', tokenHash).execute();
}

/** Deletes sessions that expired at or before `now`; returns how many. */
export async function pruneSessions(db: Kysely<OffchainDatabase>, now: Date): Promise<number> {
  const result = await db.deleteFrom('offchain_sessions').where('expires_at', '<=', now).executeTakeFirst();
  return Number(result.numDeletedRows);
}
