import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { databaseFromEnv, migrate, type DatabaseEnv, type DatabaseHandle } from '@nrp/db';
import { migrations, MIGRATION_TABLE } from './migrations';
import type { OffchainDatabase } from './schema';

/**
 * The open database: it owns the connection (pool or PGlite), so it is what is closed and pinged; queries take its
 * `db`, the `Kysely<OffchainDatabase>` that is the context's `db`.
 */
export type OffchainDatabaseHandle = DatabaseHandle<OffchainDatabase>;

/** PostgreSQL extensions the migrations create; PGlite must load their modules when it opens. */
export const PGLITE_EXTENSIONS = { pg_trgm, btree_gin };

/** Opens the service's database from its config (PostgreSQL, or PGlite with its extensions) and migrates it. */
export async function openDatabase(config: DatabaseEnv): Promise<OffchainDatabaseHandle> {
  const handle = databaseFromEnv<OffchainDatabase>(config, PGLITE_EXTENSIONS);
  try {
    await migrateDatabase(handle);
  } catch (err) {
    await handle.close();
    throw err;
  }
  return handle;
}

export function migrateDatabase(handle: OffchainDatabaseHandle): Promise<string[]> {
  return migrate(handle, { table: MIGRATION_TABLE, migrations });
}
