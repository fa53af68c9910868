import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql, type Kysely, type Migration } from 'kysely';
// Deep import: only the database helper, not the whole testkit (anvil, contracts).
import { createTestDatabase, type TestDatabase } from '@nrp/testkit/src/database';
import {
  createDatabase,
  isForeignKeyViolation,
  isUniqueViolation,
  migrate,
  MigrationError,
  pgErrorCode,
} from '../src';

interface TestDB {
  owners: { id: number; name: string };
  labels: { id: number; owner_id: number; label: string };
  runs: { id: number };
}

const migrations: Record<string, Migration> = {
  '0001_owners': {
    up: async (db: Kysely<unknown>) => {
      await db.schema
        .createTable('owners')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .execute();
      // Counts how often the migration body ran (must be exactly once, even with concurrent migrators).
      await db.schema
        .createTable('runs')
        .addColumn('id', 'serial', (c) => c.primaryKey())
        .execute();
      await sql`insert into runs default values`.execute(db);
    },
  },
  '0002_labels_trgm': {
    up: async (db: Kysely<unknown>) => {
      await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public`.execute(db);
      await db.schema
        .createTable('labels')
        .addColumn('id', 'integer', (c) => c.primaryKey())
        .addColumn('owner_id', 'integer', (c) => c.notNull().references('owners.id'))
        .addColumn('label', 'text', (c) => c.notNull())
        .execute();
      await sql`CREATE INDEX labels_label_trgm ON labels USING gin (label gin_trgm_ops)`.execute(db);
    },
  },
};

const expectedKind = process.env.DATABASE_URL ? 'postgres' : 'pglite';
let handle: TestDatabase<TestDB>;

beforeAll(async () => {
  handle = await createTestDatabase<TestDB>();
});
afterAll(async () => {
  await handle.close();
});

test(`connects to ${expectedKind} and pings`, async () => {
  expect(handle.kind).toBe(expectedKind);
  await expect(handle.ping()).resolves.toBeUndefined();
});

test('migrates once, then has nothing to do', async () => {
  expect(await migrate(handle, { table: 'test_migrations', migrations })).toEqual([
    '0001_owners',
    '0002_labels_trgm',
  ]);
  expect(await migrate(handle, { table: 'test_migrations', migrations })).toEqual([]);
  const runs = await handle.db.selectFrom('runs').select('id').execute();
  expect(runs).toHaveLength(1);
});

test('maps unique and foreign-key violations', async () => {
  const { db } = handle;
  await db.insertInto('owners').values({ id: 1, name: 'alice' }).execute();
  const dup = await db
    .insertInto('owners')
    .values({ id: 2, name: 'alice' })
    .execute()
    .then(
      () => undefined,
      (err: unknown) => err,
    );
  expect(isUniqueViolation(dup)).toBe(true);
  expect(isForeignKeyViolation(dup)).toBe(false);

  const orphan = await db
    .insertInto('labels')
    .values({ id: 1, owner_id: 99, label: 'x' })
    .execute()
    .then(
      () => undefined,
      (err: unknown) => err,
    );
  expect(isForeignKeyViolation(orphan)).toBe(true);
  expect(isUniqueViolation(orphan)).toBe(false);
  expect(isUniqueViolation(new Error('nope'))).toBe(false);
  expect(pgErrorCode({ code: 'ECONNREFUSED' })).toBeUndefined();
});

test('pg_trgm similarity search works', async () => {
  const { db } = handle;
  await db.insertInto('owners').values({ id: 10, name: 'trgm' }).execute();
  await db
    .insertInto('labels')
    .values([
      { id: 10, owner_id: 10, label: 'vitalik' },
      { id: 11, owner_id: 10, label: 'vitalix' },
      { id: 12, owner_id: 10, label: 'nick' },
    ])
    .execute();
  const rows = await db
    .selectFrom('labels')
    .select(['label', sql<number>`similarity(label, ${'vitalic'})`.as('score')])
    .where(sql<boolean>`label % ${'vitalic'}`)
    .orderBy('score', 'desc')
    .orderBy('label')
    .execute();
  expect(rows.map((r) => r.label)).toEqual(['vitalik', 'vitalix']);
  expect(rows[0]?.score).toBeGreaterThan(0.3);
});

test('a failing migration throws MigrationError and rolls the batch back', async () => {
  const bad: Record<string, Migration> = {
    ...migrations,
    '0003_ok': {
      up: async (db: Kysely<unknown>) => {
        await db.schema.createTable('fresh').addColumn('id', 'integer').execute();
      },
    },
    '0004_broken': {
      up: async (db: Kysely<unknown>) => void (await sql`select * from missing_table`.execute(db)),
    },
  };
  const err = await migrate(handle, { table: 'test_migrations', migrations: bad }).catch((e: unknown) => e);
  expect(err).toBeInstanceOf(MigrationError);
  expect((err as MigrationError).migrationName).toBe('0004_broken');
  expect((err as MigrationError).message).toMatch(/0004_broken.*missing_table/);
  expect(pgErrorCode(err)).toBe('42P01');
  // Kysely runs the pending batch in one transaction on PostgreSQL: 0003 is not applied either.
  const fresh = await sql`select to_regclass('fresh') as t`.execute(handle.db);
  expect(fresh.rows).toEqual([{ t: null }]);
});

test('concurrent migrators (two replicas) apply each migration once', async () => {
  // A second pool on the same database stands for another replica (PGlite has one connection: itself).
  const other = handle.url ? createDatabase<TestDB>({ url: handle.url }) : handle;
  try {
    const fresh: Record<string, Migration> = {
      '0001_counter': {
        up: async (db: Kysely<unknown>) => {
          await db.schema.createTable('counter').addColumn('n', 'integer').execute();
          await sql`select pg_sleep(0.2)`.execute(db);
          await sql`insert into counter values (1)`.execute(db);
        },
      },
    };
    const results = await Promise.all([
      migrate(handle, { table: 'replica_migrations', migrations: fresh }),
      migrate(other, { table: 'replica_migrations', migrations: fresh }),
      migrate(other, { table: 'replica_migrations', migrations: fresh }),
    ]);
    expect(results.flat()).toEqual(['0001_counter']);
    const count = await sql<{ c: number }>`select count(*)::int as c from counter`.execute(handle.db);
    expect(count.rows).toEqual([{ c: 1 }]);
  } finally {
    if (other !== handle) await other.close();
  }
});

describe('PGlite specifics', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'nrp-pglite-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  test('a dataDir persists across reopen', async () => {
    const first = createDatabase<TestDB>({ dataDir: dir });
    await migrate(first, { table: 'test_migrations', migrations });
    await first.db.insertInto('owners').values({ id: 1, name: 'persisted' }).execute();
    await first.close();

    const second = createDatabase<TestDB>({ dataDir: dir });
    expect(await migrate(second, { table: 'test_migrations', migrations })).toEqual([]);
    expect(await second.db.selectFrom('owners').select('name').execute()).toEqual([{ name: 'persisted' }]);
    await second.close();
  });

  test('a schema option keeps tables (and migration bookkeeping) in that schema', async () => {
    const db = createDatabase<TestDB>({ schema: 'svc' });
    try {
      await migrate(db, { table: 'svc_migrations', migrations });
      const tables = await sql<{ table_schema: string; table_name: string }>`
        select table_schema, table_name from information_schema.tables
        where table_name in ('owners', 'svc_migrations') order by table_name`.execute(db.db);
      expect(tables.rows).toEqual([
        { table_schema: 'svc', table_name: 'owners' },
        { table_schema: 'svc', table_name: 'svc_migrations' },
      ]);
    } finally {
      await db.close();
    }
  });

  test('rejects unsafe schema names', () => {
    expect(() => createDatabase({ schema: 'x; drop table y' })).toThrow(/invalid schema name/);
  });
});
