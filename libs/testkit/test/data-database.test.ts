import { sql } from 'kysely';
import { Client } from 'pg';
import { createTestDatabase } from '../src/database';

const serverUrl = process.env.DATABASE_URL;

(serverUrl ? describe : describe.skip)('createTestDatabase with DATABASE_URL', () => {
  test('isolates each handle in its own database and drops it on close', async () => {
    const a = await createTestDatabase<{ t: { v: number } }>();
    const b = await createTestDatabase<{ t: { v: number } }>();
    expect(a.kind).toBe('postgres');
    expect(a.url).toMatch(/\/test_[0-9a-z]+_[0-9a-f]{8}$/);
    expect(a.url).not.toBe(b.url);
    try {
      await sql`create table t (v int)`.execute(a.db);
      await sql`create table t (v int)`.execute(b.db);
      await a.db.insertInto('t').values({ v: 1 }).execute();
      expect(await b.db.selectFrom('t').selectAll().execute()).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
    const client = new Client({ connectionString: serverUrl });
    await client.connect();
    try {
      const names = [a.url, b.url].map((u) => new URL(u ?? '').pathname.slice(1));
      const res = await client.query('select datname from pg_database where datname = any($1)', [names]);
      expect(res.rows).toEqual([]);
    } finally {
      await client.end();
    }
  });
});

test('falls back to PGlite when forced', async () => {
  const db = await createTestDatabase({ url: null });
  try {
    expect(db.kind).toBe('pglite');
    expect(db.url).toBeUndefined();
    await db.ping();
  } finally {
    await db.close();
  }
});
