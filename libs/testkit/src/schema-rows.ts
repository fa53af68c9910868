import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { BlobStore } from '@nrp/storage';

/**
 * Every row of every table in `schema`, by table, each row as PostgreSQL's text of it, in order: two schemas with
 * the same answer hold the same data (a restore drill compares a restored schema with the original this way).
 */
export async function schemaRows<DB>(db: Kysely<DB>, schema: string): Promise<Record<string, string[]>> {
  const tables = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = ${schema} and table_type = 'BASE TABLE' order by table_name`.execute(db);
  const rows: Record<string, string[]> = {};
  for (const { name } of tables.rows) {
    const result = await sql<{ row: string }>`
      select t::text as row from ${sql.table(`${schema}.${name}`)} t order by t::text`.execute(db);
    rows[name] = result.rows.map(({ row }) => row);
  }
  return rows;
}

/** Every blob of a store: its key, with the sha-256 and content type of what is stored under it. */
export async function blobContents(blobs: BlobStore): Promise<Record<string, string>> {
  const contents: Record<string, string> = {};
  for (const key of await blobs.list('')) {
    const stored = await blobs.get(key);
    contents[key] = stored
      ? `${createHash('sha256').update(stored.bytes).digest('hex')} ${stored.contentType}`
      : 'gone';
  }
  return contents;
}
