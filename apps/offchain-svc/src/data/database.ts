import { btree_gin } from '@electric-sql/pglite/contrib/btree_gin';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { createDatabase, migrate, type DatabaseHandle } from '@nrp/db';
import type { DatabaseConfig } from '../config';
import { migrations, MIGRATION_TABLE } from './migrations';
import type { OffchainDatabase } from './schema';

export type OffchainDb = DatabaseHandle<OffchainDatabase>;

/** PostgreSQL extensions the migrations create; PGlite must load their modules when it opens. */
export const PGLITE_EXTENSIONS = { pg_trgm, btree_gin };

/** Opens the service's database from its config (PostgreSQL, or PGlite with pg_trgm) and migrates it. */
export async function openDatabase(config: DatabaseConfig): Promise<OffchainDb> {
  const handle = createDatabase<OffchainDatabase>({
    url: config.DATABASE_URL,
    dataDir: config.PGLITE_DATA_DIR,
    schema: config.DATABASE_SCHEMA,
    poolMax: config.DATABASE_POOL_MAX,
    pgliteExtensions: PGLITE_EXTENSIONS,
  });
  try {
    await migrateDatabase(handle);
  } catch (err) {
    await handle.close();
    throw err;
  }
  return handle;
}

export function migrateDatabase(handle: OffchainDb): Promise<string[]> {
  return migrate(handle, { table: MIGRATION_TABLE, migrations });
}
