import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import { createDatabase, type CreateDatabaseOptions, type DatabaseHandle } from '@nrp/db';

export type TestDatabaseOptions = Pick<CreateDatabaseOptions, 'pgliteExtensions' | 'poolMax'> & {
  /** Defaults to process.env.DATABASE_URL. Pass null to force PGlite. */
  url?: string | null;
};

/** A test's database, with the URL that reaches it when it lives on a PostgreSQL server. */
export type TestDatabase<DB> = DatabaseHandle<DB> & { url?: string };

/**
 * A database isolated to the caller (one per test file): with DATABASE_URL, a fresh database on that server,
 * dropped on close; otherwise an in-memory PGlite.
 *
 * A database rather than a schema: dropping a schema while another file's migrator introspects the catalog of the
 * same database can fail that migration ("schema … does not exist"); separate databases share no such catalog.
 */
export async function createTestDatabase<DB>(opts: TestDatabaseOptions = {}): Promise<TestDatabase<DB>> {
  const serverUrl = opts.url === undefined ? process.env.DATABASE_URL : (opts.url ?? undefined);
  if (!serverUrl) return createDatabase<DB>({ pgliteExtensions: opts.pgliteExtensions });

  const name = `test_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  await withClient(serverUrl, (client) => client.query(`CREATE DATABASE ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  const handle = createDatabase<DB>({ url: url.toString(), poolMax: opts.poolMax ?? 5 });
  let closed = false;
  return {
    ...handle,
    url: url.toString(),
    close: async () => {
      if (closed) return;
      closed = true;
      await handle.close();
      await withClient(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
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
