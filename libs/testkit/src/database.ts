import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createDatabase, pgErrorCode, type CreateDatabaseOptions, type DatabaseHandle } from '@nrp/db';

export type TestDatabaseOptions = Pick<CreateDatabaseOptions, 'pgliteExtensions' | 'poolMax'> & {
  /** Defaults to process.env.DATABASE_URL. Pass null to force PGlite. */
  url?: string | null;
};

/**
 * A database isolated to the caller (one per test file): with DATABASE_URL, a fresh uniquely named schema
 * in that database, dropped (CASCADE) on close; otherwise an in-memory PGlite.
 */
export async function createTestDatabase<DB>(opts: TestDatabaseOptions = {}): Promise<DatabaseHandle<DB>> {
  const url = opts.url === undefined ? process.env.DATABASE_URL : (opts.url ?? undefined);
  if (!url) return createDatabase<DB>({ pgliteExtensions: opts.pgliteExtensions });

  const schema = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await withClient(url, async (client) => {
    // Extensions are database-wide; keep pg_trgm in public so every test schema sees it on its search_path.
    await ignoreDuplicate(() => client.query('CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public'));
    await client.query(`CREATE SCHEMA ${schema}`);
  });
  const handle = createDatabase<DB>({ url, schema, poolMax: opts.poolMax ?? 5 });
  let closed = false;
  return {
    ...handle,
    close: async () => {
      if (closed) return;
      closed = true;
      await handle.close();
      await withClient(url, (client) => client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`));
    },
  };
}

async function withClient<T>(url: string, fn: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** Concurrent `CREATE EXTENSION IF NOT EXISTS` from parallel test files can race on the catalog. */
async function ignoreDuplicate(fn: () => Promise<unknown>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    const code = pgErrorCode(err);
    if (code !== '23505' && code !== '42710') throw err;
  }
}
