import { databaseFromEnv, migrate, type DatabaseHandle } from '@nrp/db';
import type { Config } from '../config';
import { MIGRATION_TABLE, migrations } from './migrations';
import type { MintDatabase } from './schema';

/** The service's database as the config describes it (PostgreSQL, or PGlite), not migrated yet. */
export function openDatabase(config: Config): DatabaseHandle<MintDatabase> {
  return databaseFromEnv<MintDatabase>(config);
}

/** Brings the database's tables up to this version of the service. */
export async function migrateDatabase(database: DatabaseHandle<MintDatabase>): Promise<void> {
  await migrate(database, { table: MIGRATION_TABLE, migrations });
}
