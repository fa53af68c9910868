/**
 * Memory of the NDJSON export: offchain-svc runs as its own process (as in production) and exports, one after the
 * other, a parent of many small subnames (default 1,000,000) and a parent of maximal records (default 10,000, each
 * with 100 text records of 4,096 characters). Its RSS is sampled every 10 ms from /proc: the peak growth over the
 * RSS before each export is what streaming costs, and must stay within 50 MB (issue 20). Prints one table.
 *
 * On PostgreSQL with DATABASE_URL (a schema of its own, dropped at the end), else on PGlite in a temporary
 * directory. EXPORT_BENCH_ROWS and EXPORT_BENCH_MAXIMAL change the two sizes. The rows are seeded with SQL
 * (namehashes are unique placeholders: the export does not read them).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { Client } from 'pg';
import { hashApiKey } from '@nrp/auth';
import { loadConfig } from '@nrp/server';
import { startServiceProcess } from '@nrp/testkit/src/service-process';
import { configSchema } from '../apps/offchain-svc/src/config';
import {
  migrateDatabase,
  openDatabase,
  type OffchainDatabaseHandle,
} from '../apps/offchain-svc/src/data/database';
import { deploymentNodeOptions } from './production-env';
import { markdownTable } from './table';

const SMALL_ROWS = Number(process.env.EXPORT_BENCH_ROWS ?? 1_000_000);
const MAXIMAL_ROWS = Number(process.env.EXPORT_BENCH_MAXIMAL ?? 10_000);
const LIMIT_MB = 50;
const CHUNK = 50_000;

/** Inserts `count` subnames of `parent` with SQL, in chunks; maximal ones carry 100 texts of 4,096 characters. */
async function seed(
  db: OffchainDatabaseHandle,
  parent: string,
  count: number,
  maximal: boolean,
): Promise<void> {
  for (let start = 0; start < count; start += maximal ? 1000 : CHUNK) {
    const end = Math.min(count, start + (maximal ? 1000 : CHUNK)) - 1;
    const texts = maximal
      ? sql`(SELECT jsonb_object_agg('key' || j, repeat(md5(i::text || '.' || j::text), 128))
             FROM generate_series(1, 100) AS j)`
      : sql`jsonb_build_object('url', 'https://example.com/' || i)`;
    await sql`
      INSERT INTO offchain_subnames (full_name, parent_name, label, namehash, owner, texts, addresses)
      SELECT 'n' || lpad(i::text, 8, '0') || '.' || ${parent}, ${parent}, 'n' || lpad(i::text, 8, '0'),
        '0x' || md5(${parent} || i::text) || md5(i::text || ${parent}),
        '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', ${texts},
        jsonb_build_object('60', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8')
      FROM generate_series(${start}::int, ${end}::int) AS i`.execute(db.db);
  }
  await sql`ANALYZE offchain_subnames`.execute(db.db);
}

function rssBytes(pid: number): number {
  const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return Number(match?.[1] ?? 0) * 1024;
}

interface ExportRun {
  rows: number;
  bytes: number;
  seconds: number;
  rssBeforeMb: number;
  peakGrowthMb: number;
}

/** One whole export through HTTP, the service's RSS sampled every 10 ms. */
async function exportOnce(url: string, pid: number, key: string, parent: string): Promise<ExportRun> {
  const before = rssBytes(pid);
  let peak = before;
  const sampler = setInterval(() => {
    peak = Math.max(peak, rssBytes(pid));
  }, 10);
  const started = performance.now();
  let rows = 0;
  let bytes = 0;
  try {
    const res = await fetch(`${url}/api/v1/subnames/export?parentName=${parent}`, {
      headers: { 'x-auth-token': key },
    });
    if (res.status !== 200 || !res.body) throw new Error(`export of ${parent}: HTTP ${res.status}`);
    const reader = res.body.getReader();
    for (let read = await reader.read(); !read.done; read = await reader.read()) {
      bytes += read.value.length;
      for (const byte of read.value) if (byte === 10) rows += 1;
    }
  } finally {
    clearInterval(sampler);
  }
  peak = Math.max(peak, rssBytes(pid));
  return {
    rows,
    bytes,
    seconds: (performance.now() - started) / 1000,
    rssBeforeMb: before / 2 ** 20,
    peakGrowthMb: (peak - before) / 2 ** 20,
  };
}

async function main(): Promise<void> {
  const databaseUrl = process.env.DATABASE_URL;
  const schema = `bench_export_${randomBytes(4).toString('hex')}`;
  const dataDir = databaseUrl ? undefined : mkdtempSync(path.join(tmpdir(), 'bench-export-'));
  const dbEnv: Record<string, string> = databaseUrl
    ? { DATABASE_URL: databaseUrl, DATABASE_SCHEMA: schema }
    : { PGLITE_DATA_DIR: dataDir ?? '' };
  const key = `offchain_${randomBytes(16).toString('hex')}`;
  const parents = { small: 'many.eth', maximal: 'maximal.eth' };

  const admin = databaseUrl ? new Client({ connectionString: databaseUrl }) : undefined;
  await admin?.connect();
  // The migrations' extensions, where every schema of the database finds them (as bench/offchain.ts does).
  for (const extension of ['pg_trgm', 'btree_gin']) {
    await admin?.query(`CREATE EXTENSION IF NOT EXISTS ${extension} SCHEMA public`).catch(() => undefined);
  }
  const db = openDatabase(loadConfig(configSchema, dbEnv));
  const seedStarted = performance.now();
  try {
    await migrateDatabase(db);
    await seed(db, parents.small, SMALL_ROWS, false);
    await seed(db, parents.maximal, MAXIMAL_ROWS, true);
  } finally {
    await db.close();
  }
  const seedSeconds = (performance.now() - seedStarted) / 1000;

  const svc = await startServiceProcess(
    'apps/offchain-svc/src/main.ts',
    {
      ...dbEnv,
      BOOTSTRAP_API_KEY_HASH: hashApiKey(key),
      BOOTSTRAP_API_KEY_PARENTS: `${parents.small},${parents.maximal}`,
      WEBHOOK_DELIVERY_INTERVAL_MS: '0',
      // The heap settings of its Deployment: what V8 keeps before collecting is the growth this bench measures.
      NODE_OPTIONS: deploymentNodeOptions('offchain-svc'),
    },
    { readyTimeoutMs: 120_000 },
  );
  const runs: Array<[string, ExportRun]> = [];
  try {
    // A first small request warms the process (modules, pools) so its RSS before each export is its steady state.
    await fetch(`${svc.url}/api/v1/subnames/export?parentName=none.eth`, {
      headers: { 'x-auth-token': key },
    });
    runs.push([
      `${SMALL_ROWS.toLocaleString('en-US')} subnames`,
      await exportOnce(svc.url, svc.pid, key, parents.small),
    ]);
    runs.push([
      `${MAXIMAL_ROWS.toLocaleString('en-US')} maximal records (100 texts × 4,096 chars)`,
      await exportOnce(svc.url, svc.pid, key, parents.maximal),
    ]);
  } finally {
    await svc.stop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    await admin?.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin?.end();
  }

  const header = [
    'export',
    'lines',
    'MB streamed',
    'seconds',
    'RSS before (MB)',
    'peak RSS growth (MB)',
    `≤ ${LIMIT_MB} MB`,
  ];
  const lines = runs.map(([what, r]) => [
    what,
    r.rows.toLocaleString('en-US'),
    (r.bytes / 2 ** 20).toFixed(0),
    r.seconds.toFixed(1),
    r.rssBeforeMb.toFixed(0),
    r.peakGrowthMb.toFixed(1),
    r.peakGrowthMb <= LIMIT_MB ? 'yes' : 'NO',
  ]);
  console.log(
    [
      `offchain-svc export memory on ${databaseUrl ? 'PostgreSQL' : 'PGlite'}, the service as its own process ` +
        `(seeded in ${seedSeconds.toFixed(0)} s)`,
      markdownTable(header, lines),
    ].join('\n'),
  );
  if (runs[0]?.[1].rows !== SMALL_ROWS || runs[1]?.[1].rows !== MAXIMAL_ROWS) {
    throw new Error('an export did not stream every row');
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
