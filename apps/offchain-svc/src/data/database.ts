import { createDatabase, migrate, type DatabaseHandle } from '@nrp/db';
import type { DatabaseConfig } from '../config';
import { migrations, MIGRATION_TABLE } from './migrations';
import type { OffchainDatabase } from './schema';

export type OffchainDb = DatabaseHandle<OffchainDatabase>;

/** Opens the service's database from its config (PostgreSQL, or PGlite with pg_trgm) and migrates it. */
export async function openDatabase(config: DatabaseConfig): Promise<OffchainDb> {
  const handle = createDatabase<OffchainDatabase>({
    url: config.DATABASE_URL,
    dataDir: config.PGLITE_DATA_DIR,
    schema: config.DATABASE_SCHEMA,
    poolMax: config.DATABASE_POOL_MAX,
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
