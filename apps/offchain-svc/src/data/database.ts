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

/** The service's database as the config describes it (PostgreSQL, or PGlite with its extensions), not migrated yet. */
export function openDatabase(config: DatabaseEnv): OffchainDatabaseHandle {
  return databaseFromEnv<OffchainDatabase>(config, PGLITE_EXTENSIONS);
}

/** Brings the database's tables up to this version of the service. */
export async function migrateDatabase(handle: OffchainDatabaseHandle): Promise<void> {
  await migrate(handle, { table: MIGRATION_TABLE, migrations });
}
