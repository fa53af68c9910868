import { sql } from 'kysely';
import { Client } from 'pg';
import { createTestDatabase } from '../src/database';

const url = process.env.DATABASE_URL;

(url ? describe : describe.skip)('createTestDatabase with DATABASE_URL', () => {
  test('isolates each handle in its own schema and drops it on close', async () => {
    const a = await createTestDatabase<{ t: { v: number } }>();
    const b = await createTestDatabase<{ t: { v: number } }>();
    expect(a.kind).toBe('postgres');
    expect(a.schema).toMatch(/^test_/);
    expect(a.schema).not.toBe(b.schema);
    try {
      await sql`create table t (v int)`.execute(a.db);
      await sql`create table t (v int)`.execute(b.db);
      await a.db.insertInto('t').values({ v: 1 }).execute();
      expect(await b.db.selectFrom('t').selectAll().execute()).toEqual([]);
    } finally {
      await a.close();
      await b.close();
    }
    const client = new Client({ connectionString: url });
    await client.connect();
    try {
      const res = await client.query('select nspname from pg_namespace where nspname = any($1)', [
        [a.schema, b.schema],
      ]);
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
    await db.ping();
  } finally {
    await db.close();
  }
});
