import { databaseFromEnv, migrate, type DatabaseEnv, type DatabaseHandle } from '@nrp/db';
import { migrations, MIGRATION_TABLE } from './migrations';
import type { MintDatabase } from './schema';

/**
 * The open database: it owns the connection (pool or PGlite), so it is what is closed and pinged; queries take its
 * `db`, the `Kysely<MintDatabase>` that is the context's `db`.
 */
export type MintDatabaseHandle = DatabaseHandle<MintDatabase>;

/** Opens the service's database from its config (PostgreSQL, or PGlite); `migrateDatabase` then migrates it. */
export function openDatabase(config: DatabaseEnv): MintDatabaseHandle {
  return databaseFromEnv<MintDatabase>(config);
}

export function migrateDatabase(handle: MintDatabaseHandle): Promise<string[]> {
  return migrate(handle, { table: MIGRATION_TABLE, migrations });
}
