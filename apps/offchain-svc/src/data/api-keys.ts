import type { OffchainDb } from './database';

export interface ApiKeyRow {
  id: string;
  keyHash: string;
  parents: string[];
  note: string | null;
  createdAt: Date;
  revokedAt: Date | null;
}

function toRow(row: {
  id: string;
  key_hash: string;
  parents: string[];
  note: string | null;
  created_at: Date;
  revoked_at: Date | null;
}): ApiKeyRow {
  return {
    id: row.id,
    keyHash: row.key_hash,
    parents: row.parents,
    note: row.note,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}

export async function insertApiKey(
  { db }: OffchainDb,
  key: { keyHash: string; parents: string[]; note?: string },
): Promise<ApiKeyRow> {
  const row = await db
    .insertInto('offchain_api_keys')
    .values({ key_hash: key.keyHash, parents: key.parents, note: key.note ?? null })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toRow(row);
}

/** Installs a key by hash (the bootstrap key from config): its parents are replaced and it is un-revoked. */
export async function upsertApiKey(
  { db }: OffchainDb,
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
  { db }: OffchainDb,
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

export async function listApiKeys({ db }: OffchainDb): Promise<ApiKeyRow[]> {
  const rows = await db
    .selectFrom('offchain_api_keys')
    .selectAll()
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toRow);
}

/** Revokes a key; false when no live key has this id. */
export async function revokeApiKey({ db }: OffchainDb, id: string): Promise<boolean> {
  const result = await db
    .updateTable('offchain_api_keys')
    .set({ revoked_at: new Date().toISOString() })
    .where('id', '=', id)
    .where('revoked_at', 'is', null)
    .executeTakeFirst();
  return result.numUpdatedRows > 0n;
}
