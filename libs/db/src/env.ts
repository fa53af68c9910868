import type { Extension } from '@electric-sql/pglite';
import { z } from 'zod';
import { requiredInProduction } from '@nrp/validation';
import { createDatabase, type DatabaseHandle } from './database';

const schemaName = z.string().regex(/^[a-z_][a-z0-9_]{0,62}$/, 'use lower-case letters, digits and _');

/** DATABASE_SCHEMA with a service's own default (so services sharing one PostgreSQL keep apart). */
export const databaseSchemaEnv = (defaultSchema: string) =>
  schemaName.optional().transform((value) => value ?? defaultSchema);

/**
 * Where a service keeps its tables, the same variables in every service:
 * - `DATABASE_URL`: postgres:// connection string; when unset an embedded PGlite database is used,
 * - `PGLITE_DATA_DIR`: PGlite's data directory; in memory when unset too (ignored with DATABASE_URL),
 * - `DATABASE_SCHEMA`: schema of the tables (created if missing),
 * - `DATABASE_POOL_MAX`: PostgreSQL pool size.
 * With `NODE_ENV=production` DATABASE_URL is required: a PGlite database is for development and tests.
 * Services extend their config with its `shape` and end it with `.superRefine(requireDatabaseUrlInProduction)`.
 */
const databaseEnvShape = {
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/, error: 'must be a postgres:// URL' }).optional(),
  DATABASE_SCHEMA: schemaName.optional(),
  DATABASE_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  PGLITE_DATA_DIR: z.string().optional(),
  NODE_ENV: z.string().optional(),
};

/** The check `databaseEnvSchema` applies; a config that extends its shape adds it with `.superRefine`. */
export const requireDatabaseUrlInProduction = requiredInProduction('DATABASE_URL', 'PGlite');

export const databaseEnvSchema = z.object(databaseEnvShape).superRefine(requireDatabaseUrlInProduction);

export type DatabaseEnv = z.output<typeof databaseEnvSchema>;

/** Opens the database the parsed variables describe; `pgliteExtensions` as in `createDatabase`. */
export function databaseFromEnv<DB>(
  env: Pick<DatabaseEnv, 'DATABASE_URL' | 'DATABASE_SCHEMA' | 'PGLITE_DATA_DIR'> & {
    DATABASE_POOL_MAX?: number;
  },
  pgliteExtensions?: Record<string, Extension>,
): DatabaseHandle<DB> {
  return createDatabase<DB>({
    url: env.DATABASE_URL,
    dataDir: env.PGLITE_DATA_DIR,
    schema: env.DATABASE_SCHEMA,
    poolMax: env.DATABASE_POOL_MAX,
    pgliteExtensions,
  });
}
