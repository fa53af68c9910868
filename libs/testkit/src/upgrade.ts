import { sql, type Kysely } from 'kysely';
import { until } from './until';

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
