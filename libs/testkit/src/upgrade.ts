import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { createTestDatabase, type TestDatabase } from './database';
import { previousReleaseRef, releaseCode, workingTreeWithMigration } from './release-code';
import { schemaRows } from './schema-rows';
import { startServiceProcess, type ServiceProcess } from './service-process';
import { until } from './until';

const REPO_ROOT = path.resolve(__dirname, '../../..');

/**
 * A migration (source text for `workingTreeWithMigration`) that fails midway: it creates a table, adds a column to
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

/** The releases an upgrade rehearsal runs: the previous, this checkout, and this checkout plus a failing migration. */
export type Release = 'previous' | 'current' | 'failing';

/**
 * One service's rolling deploy, rehearsed on a database of its own: its previous release (`releases/previous`), this
 * checkout, and this checkout with `failingMigration` on `failingTable`, each started as a process on it.
 */
export interface UpgradeRehearsal {
  database: TestDatabase<unknown>;
  start(release: Release): Promise<ServiceProcess>;
  /**
   * Starts the failing release while `reads` run against the previous one, until the failing one answers `/ready`
   * with something else than 200: its answer, the 5xx of the reads, and the schema's catalog and rows before and after.
   */
  failMigration(
    schema: string,
    reads: () => Promise<number[]>,
  ): Promise<{
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
  failingTable: string,
  env: Record<string, string>,
): Promise<UpgradeRehearsal> {
  const database = await createTestDatabase({ url });
  const previous = await releaseCode(await previousReleaseRef(), service);
  const failing = await workingTreeWithMigration(
    service,
    failingMigration('9999_fails_midway', failingTable),
  );
  const processes: ServiceProcess[] = [];
  const entries: Record<Release, [string, string | undefined]> = {
    previous: [previous.entry, previous.dir],
    current: [path.join(REPO_ROOT, 'apps', service, 'src/main.ts'), undefined],
    failing: [failing.entry, failing.dir],
  };
  const start = async (release: Release) => {
    const [entry, cwd] = entries[release];
    const started = await startServiceProcess(
      entry,
      { DATABASE_URL: database.url ?? '', ...env },
      cwd ? { cwd } : {},
    );
    processes.push(started);
    return started;
  };
  const state = async (schema: string) => ({
    catalog: await schemaCatalog(database.db, schema),
    rows: await schemaRows(database.db, schema),
  });
  return {
    database,
    start,
    async failMigration(schema, reads) {
      const before = await state(schema);
      const traffic = steadyTraffic(reads);
      const broken = await start('failing');
      const refusal = await readyAnswer(broken.url, ({ status }) => status !== 200);
      await until(() => traffic.steps >= 5, 'reads while the failed release stands');
      const failures = await traffic.stop();
      return { refusal, failures, before, after: await state(schema) };
    },
    async close() {
      for (const started of processes) await started.stop();
      await previous.remove();
      await failing.remove();
      await database.close();
    },
  };
}
