import { databaseFromEnv, migrate, type DatabaseEnv, type DatabaseHandle } from '@nrp/db';
import { MIGRATION_TABLE, migrations } from './migrations';
import type { MetadataDb } from './schema';

/** The service's database as the config describes it (PostgreSQL, or PGlite), not migrated yet. */
export function openDatabase(config: DatabaseEnv): DatabaseHandle<MetadataDb> {
  return databaseFromEnv<MetadataDb>(config);
}

/** Brings the database's tables up to this version of the service. */
export async function migrateDatabase(database: DatabaseHandle<MetadataDb>): Promise<void> {
  await migrate(database, { table: MIGRATION_TABLE, migrations });
}
