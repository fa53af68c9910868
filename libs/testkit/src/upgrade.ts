import { sql, type Kysely } from 'kysely';
import { createTestDatabase, type TestDatabase } from './database';
import { previousReleaseRef, releaseCode, workingTreeWithMigrations, type ReleaseCode } from './release-code';
import { schemaRows } from './schema-rows';
import { startServiceProcess, type ServiceProcess } from './service-process';
import { until } from './until';

/** The migrations the rehearsal adds to this checkout: the next release's, and one that fails after it. */
const EXPANDS = '9998_expands';
const FAILS = '9999_fails_midway';

/**
 * An expand migration (source text for `workingTreeWithMigrations`) on `table`, as a release brings one: a nullable
 * column without a default, backfilled from every row in one UPDATE, an index on it, and a new table filled with a row
 * per backfilled row. Code that does not know the column keeps reading and writing `table`; its rows leave it null.
 */
export function expandMigration(name: string, table: string): string {
  return `'${name}': {
    up: async (db: Kysely<unknown>) => {
      await sql\`ALTER TABLE ${table} ADD COLUMN upgrade_digest text\`.execute(db);
      await sql\`UPDATE ${table} AS existing SET upgrade_digest = md5(existing::text)\`.execute(db);
      await sql\`CREATE INDEX ${table}_by_upgrade_digest ON ${table} (upgrade_digest)\`.execute(db);
      await sql\`CREATE TABLE upgrade_digests (digest text PRIMARY KEY)\`.execute(db);
      await sql\`INSERT INTO upgrade_digests SELECT upgrade_digest FROM ${table}\`.execute(db);
    },
  }`;
}

/**
 * A migration (source text for `workingTreeWithMigrations`) that fails midway: it creates a table, adds a column to
 * `table` and writes every row of it, then divides by zero. Being one transaction, it must leave nothing behind.
 */
export function failingMigration(name: string, table: string): string {
  return `'${name}': {
    up: async (db: Kysely<unknown>) => {
      await sql\`CREATE TABLE upgrade_probe (id integer)\`.execute(db);
      await sql\`ALTER TABLE ${table} ADD COLUMN upgrade_probe text\`.execute(db);
      await sql\`UPDATE ${table} SET upgrade_probe = 'half-way'\`.execute(db);
      await sql\`SELECT 1 / 0\`.execute(db);
    },
  }`;
}

/** The tables, columns and indexes of `schema`: what a migration changes besides rows. */
export async function schemaCatalog<DB>(db: Kysely<DB>, schema: string): Promise<string[]> {
  const { rows } = await sql<{ entry: string }>`
    select 'column ' || table_name || '.' || column_name || ' ' || data_type as entry
      from information_schema.columns where table_schema = ${schema}
    union all
    select 'index ' || indexname || ': ' || indexdef from pg_indexes where schemaname = ${schema}
    order by 1`.execute(db);
  return rows.map(({ entry }) => entry);
}

export interface ReadyAnswer {
  status: number;
  checks: Record<string, string>;
}

/** A service's `/ready` answer, once `accept` takes it (default: ready). */
export async function readyAnswer(
  url: string,
  accept: (answer: ReadyAnswer) => boolean = ({ status }) => status === 200,
  ms = 60_000,
): Promise<ReadyAnswer> {
  let answer: ReadyAnswer = { status: 0, checks: {} };
  await until(
    async () => {
      const res = await fetch(`${url}/ready`).catch(() => undefined);
      if (!res) return false;
      const body = (await res.json()) as { checks?: Record<string, string> };
      answer = { status: res.status, checks: body.checks ?? {} };
      return accept(answer);
    },
    `${url}/ready`,
    ms,
  );
  return answer;
}

/** Requests sent one after another until stopped; each step answers the statuses it got. */
export interface Traffic {
  /** Steps run so far. */
  readonly steps: number;
  /** Stops after the step under way; answers every answer of 500 or more, as `<step>: <status>`. */
  stop(): Promise<string[]>;
}

export function steadyTraffic(step: (index: number) => Promise<number[]>): Traffic {
  let running = true;
  let steps = 0;
  const failures: string[] = [];
  const loop = (async () => {
    while (running) {
      const statuses = await step(steps).catch((err: unknown) => [`no answer (${String(err)})`]);
      for (const status of statuses) {
        if (typeof status !== 'number' || status >= 500) failures.push(`${steps}: ${status}`);
      }
      steps++;
    }
  })();
  return {
    get steps() {
      return steps;
    },
    stop: async () => {
      running = false;
      await loop;
      return failures;
    },
  };
}

/**
 * The releases an upgrade rehearsal runs: the previous (`releases/previous`); the next, this checkout plus
 * `expandMigration`; and the next plus `failingMigration`.
 */
export type Release = 'previous' | 'next' | 'failing';

/** The service rehearsed: where it keeps its data (the rehearsal's migrations change `table`), and when it is ready. */
export interface RehearsedService {
  schema: string;
  table: string;
  /** The service's migration bookkeeping table in `schema` (`<service>_migrations`). */
  migrationTable: string;
  /** When a release is ready (default: `/ready` answers 200; a service without a chain here takes its database check). */
  ready?: (answer: ReadyAnswer) => boolean;
}

/** A rolling deploy to the next release while the previous one serves, and what its expand migration did. */
export interface Upgrade {
  /** The next release's process, ready. */
  next: ServiceProcess;
  /** The previous release's answers of 500 or more throughout (`Traffic.stop`). */
  failures: string[];
  /** The migrations the migration table records, in name order. */
  migrations: string[];
  /** What the expand migration added to the schema's catalog (`schemaCatalog`). */
  added: string[];
  /** Rows of the table when the next release started. */
  rowsAtStart: number;
  /** Rows of the table whose new column the migration backfilled. */
  backfilled: number;
  /** Rows of the table the previous release wrote after the migration, not knowing the new column (so null). */
  unfilled: number;
  /** Rows of the migration's new table. */
  copied: number;
}

/**
 * Asserts what `expandMigration` must have done in an upgrade of the service keeping its data in `table` of
 * `schema`: the previous release answered no 5xx throughout, the migration is recorded last, it added exactly its
 * column, table and indexes, every row there was when it ran is backfilled (and copied), and the previous release
 * went on writing rows without the column.
 */
export function expectExpanded(
  upgrade: Upgrade,
  { schema, table }: Pick<RehearsedService, 'schema' | 'table'>,
): void {
  expect(upgrade.failures).toEqual([]);
  expect(upgrade.migrations.at(-1)).toBe(EXPANDS);
  expect(upgrade.added).toEqual([
    `column ${table}.upgrade_digest text`,
    'column upgrade_digests.digest text',
    `index ${table}_by_upgrade_digest: CREATE INDEX ${table}_by_upgrade_digest ON ${schema}.${table} USING btree (upgrade_digest)`,
    `index upgrade_digests_pkey: CREATE UNIQUE INDEX upgrade_digests_pkey ON ${schema}.upgrade_digests USING btree (digest)`,
  ]);
  expect(upgrade.backfilled).toBeGreaterThanOrEqual(upgrade.rowsAtStart);
  expect(upgrade.copied).toBe(upgrade.backfilled);
  expect(upgrade.unfilled).toBeGreaterThan(0);
}

/**
 * One service's rolling deploy, rehearsed on a database of its own: its previous release, the next release and the
 * failing one (`Release`), each started as a process on it.
 */
export interface UpgradeRehearsal {
  database: TestDatabase<unknown>;
  start(release: Release): Promise<ServiceProcess>;
  /**
   * Runs `step` (writes and reads against the previous release) steadily; after five steps starts the next release,
   * and once it is ready (`ready`), five steps more.
   */
  upgrade(step: (index: number) => Promise<number[]>): Promise<Upgrade>;
  /**
   * Starts the failing release while `reads` run against the previous one, until the failing one answers `/ready`
   * with something else than 200: its answer, the 5xx of the reads, and the schema's catalog and rows before and after.
   */
  failMigration(reads: () => Promise<number[]>): Promise<{
    refusal: ReadyAnswer;
    failures: string[];
    before: { catalog: string[]; rows: Record<string, string[]> };
    after: { catalog: string[]; rows: Record<string, string[]> };
  }>;
  close(): Promise<void>;
}

export async function startUpgradeRehearsal(
  url: string | undefined,
  service: string,
  { schema, table, migrationTable, ready }: RehearsedService,
  env: Record<string, string>,
): Promise<UpgradeRehearsal> {
  const database = await createTestDatabase({ url });
  const previous = await releaseCode(await previousReleaseRef(), service);
  const expanding = expandMigration(EXPANDS, table);
  const next = await workingTreeWithMigrations(service, [expanding]);
  const failing = await workingTreeWithMigrations(service, [expanding, failingMigration(FAILS, table)]);
  const processes: ServiceProcess[] = [];
  const releases: Record<Release, ReleaseCode> = { previous, next, failing };
  const start = async (release: Release) => {
    const { entry, dir } = releases[release];
    const started = await startServiceProcess(
      entry,
      { DATABASE_URL: database.url ?? '', ...env },
      { cwd: dir },
    );
    processes.push(started);
    return started;
  };
  const state = async () => ({
    catalog: await schemaCatalog(database.db, schema),
    rows: await schemaRows(database.db, schema),
  });
  const count = async (where = sql`true`) => {
    const { rows } = await sql<{ count: number }>`
      select count(*)::int as count from ${sql.table(`${schema}.${table}`)} where ${where}`.execute(
      database.db,
    );
    return rows[0]?.count ?? 0;
  };
  return {
    database,
    start,
    async upgrade(step) {
      const traffic = steadyTraffic(step);
      await until(() => traffic.steps >= 5, 'writes to the previous release');
      const catalogBefore = await schemaCatalog(database.db, schema);
      const rowsAtStart = await count();
      const started = await start('next');
      await readyAnswer(started.url, ready);
      const stepsAtMigration = traffic.steps;
      await until(() => traffic.steps >= stepsAtMigration + 5, 'writes after the migration');
      const failures = await traffic.stop();
      const migrations = await sql<{ name: string }>`
        select name from ${sql.table(`${schema}.${migrationTable}`)} order by name`.execute(database.db);
      const copied = await sql<{ count: number }>`
        select count(*)::int as count from ${sql.table(`${schema}.upgrade_digests`)}`.execute(database.db);
      return {
        next: started,
        failures,
        migrations: migrations.rows.map(({ name }) => name),
        added: (await schemaCatalog(database.db, schema)).filter((entry) => !catalogBefore.includes(entry)),
        rowsAtStart,
        backfilled: await count(sql`upgrade_digest is not null`),
        unfilled: await count(sql`upgrade_digest is null`),
        copied: copied.rows[0]?.count ?? 0,
      };
    },
    async failMigration(reads) {
      const before = await state();
      const traffic = steadyTraffic(reads);
      const broken = await start('failing');
      const refusal = await readyAnswer(broken.url, ({ status }) => status !== 200);
      await until(() => traffic.steps >= 5, 'reads while the failed release stands');
      const failures = await traffic.stop();
      return { refusal, failures, before, after: await state() };
    },
    async close() {
      for (const started of processes) await started.stop();
      for (const release of Object.values(releases)) await release.remove();
      await database.close();
    },
  };
}
