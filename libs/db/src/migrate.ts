import { Kysely, Migrator, type Migration, type MigrationResult } from 'kysely';
import type { DatabaseHandle } from './database';

export type { Migration } from 'kysely';

export interface MigrateOptions {
  /** Bookkeeping table, one per service (e.g. 'offchain_migrations'); its lock table is `<table>_lock`. */
  table: string;
  /** Migrations by name; applied in name order, so prefix them (`0001_init`, `0002_...`). */
  migrations: Record<string, Migration>;
}

export class MigrationError extends Error {
  override readonly name = 'MigrationError';
  constructor(
    message: string,
    readonly migrationName: string | undefined,
    readonly results: readonly MigrationResult[],
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Brings the database to the latest migration. Safe to run from several replicas at once: Kysely's
 * migrator takes a PostgreSQL advisory lock, so one replica migrates and the others find nothing to do.
 * Returns the names of the migrations this call applied; throws MigrationError on failure.
 */
export async function migrate<DB>(
  target: Kysely<DB> | DatabaseHandle<DB>,
  opts: MigrateOptions,
): Promise<string[]> {
  const { db, schema } = target instanceof Kysely ? { db: target, schema: undefined } : target;
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => opts.migrations },
    migrationTableName: opts.table,
    migrationLockTableName: `${opts.table}_lock`,
    ...(schema ? { migrationTableSchema: schema } : {}),
  });
  const { error, results = [] } = await migrator.migrateToLatest();
  if (error !== undefined) {
    const failed = results.find((r) => r.status === 'Error')?.migrationName;
    const reason = error instanceof Error ? error.message : String(error);
    throw new MigrationError(
      failed ? `migration "${failed}" failed: ${reason}` : `migrations (${opts.table}) failed: ${reason}`,
      failed,
      results,
      { cause: error },
    );
  }
  return results.filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
