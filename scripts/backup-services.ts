/** What a backup of each service with a database takes: its schema (from its config), its migrations, its blobs. */
import type { Kysely, Migration } from 'kysely';
import type { z } from 'zod';
import { configSchema as metadataConfig } from '../apps/metadata-svc/src/config';
import { referencedBlobs } from '../apps/metadata-svc/src/data/images';
import * as metadataMigrations from '../apps/metadata-svc/src/data/migrations';
import type { MetadataDb } from '../apps/metadata-svc/src/data/schema';
import { configSchema as mintConfig } from '../apps/mint-svc/src/config';
import * as mintMigrations from '../apps/mint-svc/src/data/migrations';
import { configSchema as offchainConfig } from '../apps/offchain-svc/src/config';
import * as offchainMigrations from '../apps/offchain-svc/src/data/migrations';

export interface BlobReference {
  key: string;
  contentType: string;
}

export interface BackupService {
  /** The service's DATABASE_SCHEMA as its config reads it (its default when unset; `public` when it has none). */
  schemaOf(env: Record<string, string | undefined>): string;
  migrationTable: string;
  migrations: Record<string, Migration>;
  /** The blobs its rows reference (read in the backup's snapshot); absent for a service without blobs. */
  referencedBlobs?(db: Kysely<unknown>): Promise<BlobReference[]>;
}

const schemaFrom =
  (schema: z.ZodType<string | undefined, string | undefined>) =>
  (env: Record<string, string | undefined>): string =>
    schema.parse(env.DATABASE_SCHEMA || undefined) ?? 'public';

export const BACKUP_SERVICES = {
  'metadata-svc': {
    schemaOf: schemaFrom(metadataConfig.shape.DATABASE_SCHEMA),
    migrationTable: metadataMigrations.MIGRATION_TABLE,
    migrations: metadataMigrations.migrations,
    referencedBlobs: (db) => referencedBlobs(db as Kysely<MetadataDb>),
  },
  'mint-svc': {
    schemaOf: schemaFrom(mintConfig.shape.DATABASE_SCHEMA),
    migrationTable: mintMigrations.MIGRATION_TABLE,
    migrations: mintMigrations.migrations,
  },
  'offchain-svc': {
    schemaOf: schemaFrom(offchainConfig.shape.DATABASE_SCHEMA),
    migrationTable: offchainMigrations.MIGRATION_TABLE,
    migrations: offchainMigrations.migrations,
  },
} satisfies Record<string, BackupService>;

export type BackupServiceName = keyof typeof BACKUP_SERVICES;

export function isBackupService(name: string): name is BackupServiceName {
  return Object.hasOwn(BACKUP_SERVICES, name);
}
