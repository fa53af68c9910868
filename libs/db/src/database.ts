import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite, type Extension } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { Kysely, PostgresDialect, sql } from 'kysely';
import { PGliteDialect } from 'kysely-pglite-dialect';
import { Pool } from 'pg';

export interface CreateDatabaseOptions {
  /** postgres:// connection string. When absent an embedded PGlite database is used. */
  url?: string;
  /** PGlite data directory (persisted); in memory when absent. Ignored with `url`. */
  dataDir?: string;
  /** Schema to work in: created if missing, and `search_path` is set to `<schema>, public`. */
  schema?: string;
  /**
   * PGlite extension modules, loaded at construction (PGlite cannot load them later). Defaults to
   * `{ pg_trgm }` so that migrations running `CREATE EXTENSION IF NOT EXISTS pg_trgm` work on both backends.
   */
  pgliteExtensions?: Record<string, Extension>;
  /** Maximum pool size for a real server (default 10). */
  poolMax?: number;
}

export interface DatabaseHandle<DB> {
  db: Kysely<DB>;
  kind: 'postgres' | 'pglite';
  /** The schema given at creation, if any (used by `migrate` to place its bookkeeping tables). */
  schema?: string;
  /** Resolves when the database answers `select 1`; rejects with a DatabaseError otherwise. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export class DatabaseError extends Error {
  override readonly name = 'DatabaseError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** Quotes a schema name after validating it (lower-case identifiers only, so no quoting surprises). */
export function assertSchemaName(schema: string): string {
  if (!SCHEMA_NAME.test(schema)) {
    throw new DatabaseError(`invalid schema name "${schema}": use lower-case letters, digits and _`);
  }
  return schema;
}

/**
 * Opens a database: a `pg` pool when `url` is given, otherwise an embedded PGlite (in memory or at
 * `dataDir`). Connections are lazy; call `ping()` to check reachability.
 */
export function createDatabase<DB>(opts: CreateDatabaseOptions = {}): DatabaseHandle<DB> {
  const schema = opts.schema === undefined ? undefined : assertSchemaName(opts.schema);
  return opts.url ? createPostgres<DB>(opts.url, schema, opts.poolMax) : createPglite<DB>(opts, schema);
}

/**
 * How long a query waits for a pooled connection, connecting included: past it the query fails as "database
 * unavailable" (503) instead of waiting on a server that does not answer.
 */
const POOL_CONNECT_TIMEOUT_MS = 5000;

function createPostgres<DB>(url: string, schema: string | undefined, poolMax = 10): DatabaseHandle<DB> {
  const pool = new Pool({
    connectionString: url,
    max: poolMax,
    connectionTimeoutMillis: POOL_CONNECT_TIMEOUT_MS,
    // Set per connection at startup, so every pooled client sees the same search_path.
    ...(schema ? { options: `-c search_path=${schema},public` } : {}),
  });
  // An idle client losing its connection must not crash the process; the pool replaces it.
  pool.on('error', () => undefined);
  // Nor one checked out between two queries of a transaction: its next query fails instead (database unavailable).
  pool.on('connect', (client) => client.on('error', () => undefined));
  let schemaReady: Promise<void> | undefined;
  const ensureSchema = (): Promise<void> => {
    schemaReady ??= pool
      .query(`CREATE SCHEMA IF NOT EXISTS ${schema}`)
      .then(() => undefined)
      .catch((err: unknown) => {
        schemaReady = undefined;
        throw new DatabaseError(`cannot create schema "${schema}"`, { cause: err });
      });
    return schemaReady;
  };
  const db = new Kysely<DB>({
    dialect: new PostgresDialect({
      pool: schema
        ? // Create the schema before the first query is handed a connection.
          { connect: async () => (await ensureSchema(), pool.connect()), end: () => pool.end() }
        : pool,
    }),
  });
  return {
    db,
    kind: 'postgres',
    schema,
    ping: () => ping(db),
    close: () => db.destroy(),
  };
}

function createPglite<DB>(opts: CreateDatabaseOptions, schema: string | undefined): DatabaseHandle<DB> {
  // PGlite creates only the last segment of its data directory.
  if (opts.dataDir) mkdirSync(path.dirname(path.resolve(opts.dataDir)), { recursive: true });
  const pglite = new PGlite({ dataDir: opts.dataDir, extensions: opts.pgliteExtensions ?? { pg_trgm } });
  // PGlite runs one query at a time in submission order, so this runs before anything Kysely sends.
  const setup = schema
    ? pglite.exec(`CREATE SCHEMA IF NOT EXISTS ${schema}; SET search_path TO ${schema}, public;`)
    : Promise.resolve();
  let setupError: unknown;
  setup.catch((err: unknown) => {
    setupError = err;
  });
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) });
  return {
    db,
    kind: 'pglite',
    schema,
    ping: async () => {
      await setup.catch(() => undefined);
      if (setupError !== undefined)
        throw new DatabaseError(`cannot set up schema "${schema}"`, { cause: setupError });
      await ping(db);
    },
    close: async () => {
      await db.destroy();
      if (!pglite.closed) await pglite.close();
    },
  };
}

async function ping<DB>(db: Kysely<DB>): Promise<void> {
  try {
    await sql`select 1`.execute(db);
  } catch (err) {
    throw new DatabaseError(`database unreachable: ${err instanceof Error ? err.message : String(err)}`, {
      cause: err,
    });
  }
}
