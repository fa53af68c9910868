import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { BlobStore } from '@nrp/storage';

/**
 * A function answering a digest of every row of every table in the database's current schema (PostgreSQL or
 * PGlite), in one query: it changes when anything is written. The tables are listed once, on the first call.
 */
export function databaseFingerprint<DB>(db: Kysely<DB>): () => Promise<string> {
  let digestQuery: ReturnType<typeof sql<Record<string, string | null>>> | undefined;
  return async () => {
    if (!digestQuery) {
      const tables = await sql<{ name: string }>`
        select table_name as name from information_schema.tables
        where table_schema = current_schema() and table_type = 'BASE TABLE' order by table_name`.execute(db);
      const columns = tables.rows.map(
        ({ name }) =>
          sql`(select md5(string_agg(t::text, '|' order by t::text)) from ${sql.table(name)} t) as ${sql.ref(name)}`,
      );
      digestQuery = sql<Record<string, string | null>>`select ${sql.join(columns)}`;
    }
    const row = (await digestQuery.execute(db)).rows[0] ?? {};
    return createHash('sha256').update(JSON.stringify(row)).digest('hex');
  };
}

/** The stored keys of a blob store, as one string. */
export async function blobKeysFingerprint(blobs: BlobStore): Promise<string> {
  return (await blobs.list('')).sort().join('\n');
}
