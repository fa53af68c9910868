import { sql, type Kysely, type Selectable } from 'kysely';
import type { ApiKeysTable, OffchainDatabase } from './schema';

export interface ApiKeyRow {
  id: string;
  keyHash: string;
  parents: string[];
  note: string | null;
  createdAt: Date;
  revokedAt: Date | null;
  /** Self-serve keys: the address that issued the key (lower-case) and the network its parent is read on. */
  issued: { issuer: string; network: string } | null;
  /** The key manages every name below its parents, not only their direct children. */
  includeDescendants: boolean;
  lastUsedAt: Date | null;
}

function toRow(row: Selectable<ApiKeysTable>): ApiKeyRow {
  return {
    id: row.id,
    keyHash: row.key_hash,
    parents: row.parents,
    note: row.note,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    issued: row.issuer !== null && row.network !== null ? { issuer: row.issuer, network: row.network } : null,
    includeDescendants: row.include_descendants,
    lastUsedAt: row.last_used_at,
  };
}

export async function insertApiKey(
  db: Kysely<OffchainDatabase>,
  key: {
    keyHash: string;
    parents: string[];
    note?: string;
    issued?: { issuer: string; network: string };
    includeDescendants?: boolean;
  },
): Promise<ApiKeyRow> {
  const row = await db
    .insertInto('offchain_api_keys')
    .values({
      key_hash: key.keyHash,
      parents: key.parents,
      note: key.note ?? null,
      issuer: key.issued?.issuer.toLowerCase() ?? null,
      network: key.issued?.network ?? null,
      include_descendants: key.includeDescendants ?? false,
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toRow(row);
}

/**
 * Stores a self-serve key unless its issuer already holds `limit` live keys (undefined then, nothing stored). The
 * count and the insert are one step: a per-issuer advisory lock held to the end of the transaction serialises the
 * issuer's concurrent requests, so no two of them both see room for one more key.
 */
export async function insertIssuedApiKeyWithinLimit(
  db: Kysely<OffchainDatabase>,
  key: {
    keyHash: string;
    parents: string[];
    note?: string;
    issued: { issuer: string; network: string };
    includeDescendants: boolean;
  },
  limit: number,
): Promise<ApiKeyRow | undefined> {
  const issuer = key.issued.issuer.toLowerCase();
  return db.transaction().execute(async (trx) => {
    await sql`select pg_advisory_xact_lock(hashtext(${`api-key-issuer:${issuer}`}))`.execute(trx);
    const live = await trx
      .selectFrom('offchain_api_keys')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('issuer', '=', issuer)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    return Number(live.n) < limit ? insertApiKey(trx, key) : undefined;
  });
}

/** Installs a key by hash (the bootstrap key from config): its parents are replaced and it is un-revoked. */
export async function upsertApiKey(
  db: Kysely<OffchainDatabase>,
  key: { keyHash: string; parents: string[]; note?: string },
): Promise<ApiKeyRow> {
  const row = await db
    .insertInto('offchain_api_keys')
    .values({ key_hash: key.keyHash, parents: key.parents, note: key.note ?? null })
    .onConflict((oc) =>
      oc.column('key_hash').doUpdateSet((eb) => ({
        parents: eb.ref('excluded.parents'),
        note: eb.ref('excluded.note'),
        revoked_at: null,
      })),
    )
    .returningAll()
    .executeTakeFirstOrThrow();
  return toRow(row);
}

/** The live (not revoked) key with this hash. */
export async function findActiveApiKeyByHash(
  db: Kysely<OffchainDatabase>,
  keyHash: string,
): Promise<ApiKeyRow | undefined> {
  const row = await db
    .selectFrom('offchain_api_keys')
    .selectAll()
    .where('key_hash', '=', keyHash)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return row && toRow(row);
}

export async function listApiKeys(db: Kysely<OffchainDatabase>): Promise<ApiKeyRow[]> {
  const rows = await db
    .selectFrom('offchain_api_keys')
    .selectAll()
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toRow);
}

/** Revokes a key; false when no live key has this id. */
export async function revokeApiKey(db: Kysely<OffchainDatabase>, id: string): Promise<boolean> {
  const result = await db
    .updateTable('offchain_api_keys')
    .set({ revoked_at: new Date().toISOString() })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** The live keys `issuer` issued, oldest first, at most `limit`. */
export async function listIssuedApiKeys(
  db: Kysely<OffchainDatabase>,
  issuer: string,
  limit: number,
): Promise<ApiKeyRow[]> {
  const rows = await db
    .selectFrom('offchain_api_keys')
    .selectAll()
    .where('issuer', '=', issuer.toLowerCase())
    .where('revoked_at', 'is', null)
    .orderBy('created_at')
    .orderBy('id')
    .limit(limit)
    .execute();
  return rows.map(toRow);
}

/** The live self-serve keys that have at least one webhook. */
export async function listIssuedApiKeysWithWebhooks(db: Kysely<OffchainDatabase>): Promise<ApiKeyRow[]> {
  const rows = await db
    .selectFrom('offchain_api_keys')
    .selectAll()
    .where('issuer', 'is not', null)
    .where('revoked_at', 'is', null)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('offchain_webhooks as w')
          .select('w.id')
          .whereRef('w.api_key_id', '=', 'offchain_api_keys.id'),
      ),
    )
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toRow);
}

/** Revokes a live key that `issuer` issued; false when it has none with this id. */
export async function revokeIssuedApiKey(
  db: Kysely<OffchainDatabase>,
  id: string,
  issuer: string,
): Promise<boolean> {
  const result = await db
    .updateTable('offchain_api_keys')
    .set({ revoked_at: new Date().toISOString() })
    .where('id', '=', id)
    .where('issuer', '=', issuer.toLowerCase())
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}

/** Records a use of the key, to the minute: at most one write per key and minute however busy the key is. */
export async function touchApiKey(db: Kysely<OffchainDatabase>, id: string, now: Date): Promise<void> {
  await db
    .updateTable('offchain_api_keys')
    .set({ last_used_at: now })
    .where('id', '=', id)
    .where((eb) =>
      eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', new Date(now.getTime() - 60_000))]),
    )
    .execute();
}
