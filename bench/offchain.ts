/**
 * `npm run bench:offchain`: offchain-svc on real PostgreSQL (DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test) in a throwaway schema, dropped at the end. Seeds subnames under 100
 * parents straight into the service's tables (multi-row INSERT … SELECT unnest; the service's secondary indexes are
 * dropped during the big load and recreated from their own definitions), then measures over loopback HTTP:
 * p50/p95 of search (parent + labelSearch, parent + metadata, parent + owner, parent alone, owner alone across
 * parents), get-by-name, get-by-namehash and
 * CCIP-Read gateway answers at 10,000 and 1,000,000 rows, create/update throughput, bulk import throughput
 * (1,000-item requests) and a full NDJSON export of every parent (rows/s; the live heap after GC and the peak RSS
 * of this process — service and streaming client — as growth over the export). Prints one table.
 * Bounded: BENCH_ROWS (default 1,000,000), BENCH_SAMPLES (default 300 per operation), BENCH_WRITES (default 2,000),
 * BENCH_BULK_REQUESTS (default 20).
 */
import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { keccak_256 } from '@noble/hashes/sha3';
import { getAddress, hexlify, keccak256, toUtf8Bytes } from 'ethers';
import { sql } from 'kysely';
import { Client } from 'pg';
import { resolverInterface } from '@nrp/chain';
import { dnsEncode, namehash } from '@nrp/ens';
import { createLogger, loadConfig } from '@nrp/server';
import { configSchema } from '../apps/offchain-svc/src/config';
import { issueApiKey } from '../apps/offchain-svc/src/keys/api-keys';
import { openDatabase, type OffchainDatabaseHandle } from '../apps/offchain-svc/src/data/database';
import { createService } from '../apps/offchain-svc/src/service';
import { markdownTable } from './table';

const URL_ = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const TOTAL_ROWS = Number(process.env.BENCH_ROWS ?? 1_000_000);
const SMALL_ROWS = 10_000;
const PARENTS = 100;
const OWNERS = 1_000;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 300);
const WARMUP = 30;
const WRITES = Number(process.env.BENCH_WRITES ?? 2_000);
const WRITE_CONCURRENCY = 16;
const BULK_REQUESTS = Number(process.env.BENCH_BULK_REQUESTS ?? 20);
const BULK_ITEMS = 1000;
const MB = 1024 * 1024;
const BATCH = 10_000;
const GATEWAY_KEY = '0x' + '42'.repeat(32);
const RESOLVER = getAddress('0x' + '0f'.repeat(20));

const encoder = new TextEncoder();
const parentNodeBytes = Array.from({ length: PARENTS }, (_, p) =>
  Buffer.from(namehash(parentName(p)).slice(2), 'hex'),
);

/** namehash(label.parent) = keccak(parentNode ‖ keccak(label)), with @noble/hashes directly (1M rows). */
function nodeOf(row: SeedRow): string {
  const buf = new Uint8Array(64);
  buf.set(parentNodeBytes[row.parent] ?? new Uint8Array(32), 0);
  buf.set(keccak_256(encoder.encode(row.label)), 32);
  return `0x${Buffer.from(keccak_256(buf)).toString('hex')}`;
}

function parentName(p: number): string {
  return `parent${String(p).padStart(3, '0')}.eth`;
}
const owners = Array.from({ length: OWNERS }, (_, i) =>
  getAddress(keccak256(toUtf8Bytes(`owner-${i}`)).slice(0, 42)),
);

/** Row i: a 12-hex-digit pseudo-random label (collisions skipped), its parent, owner, metadata and records. */
interface SeedRow {
  label: string;
  parent: number;
  owner: string;
  tier: string;
  batch: string;
}

/** splitmix32: a cheap deterministic pseudo-random 32-bit value for seed row i. */
function mix(x: number): number {
  x = (x + 0x9e3779b9) | 0;
  x = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
  x = Math.imul(x ^ (x >>> 13), 0xc2b2ae35);
  return (x ^ (x >>> 16)) >>> 0;
}

function seedRow(i: number, seen: Set<string>): SeedRow | undefined {
  const hi = mix(i * 2);
  const lo = mix(i * 2 + 1);
  const parent = i % PARENTS;
  const label = hi.toString(16).padStart(8, '0') + (lo & 0xffff).toString(16).padStart(4, '0');
  const key = `${parent}:${label}`;
  if (seen.has(key)) return undefined;
  seen.add(key);
  const b = mix(lo);
  return {
    label,
    parent,
    owner: owners[b % OWNERS] ?? owners[0] ?? '',
    tier: ['gold', 'silver', 'bronze'][b % 3] ?? 'gold',
    batch: `b${(b >>> 10) % 1000}`,
  };
}

async function insertRows(
  db: OffchainDatabaseHandle,
  from: number,
  to: number,
  seen: Set<string>,
  samples: SeedRow[],
) {
  for (let start = from; start < to; start += BATCH) {
    const cols: Record<string, string[]> = {
      full_name: [],
      parent_name: [],
      label: [],
      namehash: [],
      owner: [],
      texts: [],
      addresses: [],
      metadata: [],
    };
    for (let i = start; i < Math.min(to, start + BATCH); i++) {
      const row = seedRow(i, seen);
      if (!row) continue;
      if (i % 97 === 0 && samples.length < 5_000) samples.push(row);
      const parent = parentName(row.parent);
      cols.full_name?.push(`${row.label}.${parent}`);
      cols.parent_name?.push(parent);
      cols.label?.push(row.label);
      cols.namehash?.push(nodeOf(row));
      cols.owner?.push(row.owner);
      cols.texts?.push(
        JSON.stringify({
          avatar: `https://img.example/${row.label}.png`,
          description: `Subname ${row.label}`,
        }),
      );
      cols.addresses?.push(JSON.stringify({ '60': row.owner }));
      cols.metadata?.push(JSON.stringify({ tier: row.tier, batch: row.batch }));
    }
    await sql`
      INSERT INTO offchain_subnames (full_name, parent_name, label, namehash, owner, texts, addresses, metadata)
      SELECT f, p, l, n, o, t::jsonb, a::jsonb, m::jsonb
      FROM unnest(${cols.full_name}::text[], ${cols.parent_name}::text[], ${cols.label}::text[],
                  ${cols.namehash}::text[], ${cols.owner}::text[], ${cols.texts}::text[],
                  ${cols.addresses}::text[], ${cols.metadata}::text[]) AS u(f, p, l, n, o, t, a, m)`.execute(
      db.db,
    );
  }
}

/** Drops the service's secondary (non-constraint) indexes and returns their definitions to recreate them. */
async function dropSecondaryIndexes(db: OffchainDatabaseHandle, schema: string): Promise<string[]> {
  const { rows } = await sql<{ indexname: string; indexdef: string }>`
    SELECT indexname, indexdef FROM pg_indexes
    WHERE schemaname = ${schema} AND tablename = 'offchain_subnames'
      AND indexname NOT IN (SELECT conname FROM pg_constraint)`.execute(db.db);
  for (const row of rows) await sql`DROP INDEX ${sql.id(schema, row.indexname)}`.execute(db.db);
  return rows.map((r) => r.indexdef);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;
}

async function timeOp(run: (i: number) => Promise<Response>): Promise<{ p50: number; p95: number }> {
  for (let i = 0; i < WARMUP; i++) await (await run(i)).arrayBuffer();
  const times: number[] = [];
  for (let i = 0; i < SAMPLES; i++) {
    const started = performance.now();
    const res = await run(i + WARMUP);
    await res.arrayBuffer();
    times.push(performance.now() - started);
    if (!res.ok) throw new Error(`HTTP ${res.status} from ${res.url}`);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p95: percentile(times, 95) };
}

async function throughput(total: number, run: (i: number) => Promise<Response>): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: WRITE_CONCURRENCY }, async () => {
      while (next < total) {
        const i = next++;
        const res = await run(i);
        await res.arrayBuffer();
        if (res.status !== 200 && res.status !== 201) throw new Error(`write ${i}: HTTP ${res.status}`);
      }
    }),
  );
  return total / ((performance.now() - started) / 1000);
}

/** Bulk imports of BULK_ITEMS new subnames each, sequentially: rows per second. */
async function bulkThroughput(base: string, key: string, prefix: string): Promise<number> {
  const started = performance.now();
  for (let r = 0; r < BULK_REQUESTS; r++) {
    const items = Array.from({ length: BULK_ITEMS }, (_, i) => ({
      parentName: 'writes.eth',
      label: `${prefix}-b${r}-${i}`,
      owner: owners[i % OWNERS],
      texts: [{ key: 'avatar', value: `https://img.example/${i}.png` }],
      addresses: [{ coin: 60, value: owners[i % OWNERS] }],
      metadata: [{ key: 'tier', value: 'gold' }],
    }));
    const res = await fetch(`${base}/api/v1/subnames/bulk`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-token': key },
      body: JSON.stringify({ items }),
    });
    const body = (await res.json()) as { created?: number };
    if (res.status !== 200 || body.created !== BULK_ITEMS) throw new Error(`bulk ${r}: HTTP ${res.status}`);
  }
  return (BULK_REQUESTS * BULK_ITEMS) / ((performance.now() - started) / 1000);
}

interface ExportRun {
  rows: number;
  rowsPerSecond: number;
  heapBeforeMb: number;
  liveHeapMb: number;
  peakRssMb: number;
}

/** A full collection (the npm script runs node with --expose-gc), so heapUsed counts live objects only. */
function collect(): void {
  (globalThis as { gc?: () => void }).gc?.();
}

/**
 * Exports every seeded parent, one NDJSON stream after another, counting lines as the bytes arrive (the client
 * keeps nothing). Memory: the live heap after a full GC before the export and at the end of each parent's stream
 * (the largest: what exporting retains), and the process's peak RSS sampled every 10 ms during the export.
 */
async function exportAll(base: string, key: string): Promise<ExportRun> {
  collect();
  const before = process.memoryUsage();
  let liveHeap = 0;
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }, 10);
  let rows = 0;
  let streaming = 0;
  try {
    for (let p = 0; p < PARENTS; p++) {
      const started = performance.now();
      const res = await fetch(`${base}/api/v1/subnames/export?parentName=${parentName(p)}`, {
        headers: { 'x-auth-token': key },
      });
      if (res.status !== 200 || !res.body) throw new Error(`export ${parentName(p)}: HTTP ${res.status}`);
      const reader = res.body.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        for (const byte of read.value) if (byte === 10) rows++;
      }
      streaming += performance.now() - started;
      collect();
      liveHeap = Math.max(liveHeap, process.memoryUsage().heapUsed);
    }
  } finally {
    clearInterval(sampler);
  }
  return {
    rows,
    rowsPerSecond: rows / (streaming / 1000),
    heapBeforeMb: before.heapUsed / MB,
    liveHeapMb: liveHeap / MB,
    peakRssMb: peakRss / MB,
  };
}

type Measurements = Map<string, { p50: number; p95: number } | number | string>;

async function measure(
  db: OffchainDatabaseHandle,
  base: string,
  keys: { writes: string; parents: string },
  samples: SeedRow[],
  round: number,
): Promise<Measurements> {
  const key = keys.writes;
  const pick = (i: number): SeedRow =>
    samples[(i * 7919 + round) % samples.length] ?? (samples[0] as SeedRow);
  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify(body),
    });
  const out: Measurements = new Map();
  out.set(
    'search parent + labelSearch',
    await timeOp((i) => {
      const row = pick(i);
      const start = i % 10;
      return post('/api/v1/subnames/search', {
        parentName: parentName(row.parent),
        labelSearch: row.label.slice(start, start + 3),
      });
    }),
  );
  out.set(
    'search parent + metadata (batch, ~0.1%)',
    await timeOp((i) => {
      const row = pick(i);
      return post('/api/v1/subnames/search', {
        parentName: parentName(row.parent),
        metadata: { batch: row.batch },
      });
    }),
  );
  out.set(
    'search parent + metadata (tier, ~33%)',
    await timeOp((i) => {
      const row = pick(i);
      return post('/api/v1/subnames/search', {
        parentName: parentName(row.parent),
        metadata: { tier: row.tier },
      });
    }),
  );
  out.set(
    'search parent + owner',
    await timeOp((i) => {
      const row = pick(i);
      return post('/api/v1/subnames/search', { parentName: parentName(row.parent), owner: row.owner });
    }),
  );
  out.set(
    'search parent alone',
    await timeOp((i) => post('/api/v1/subnames/search', { parentName: parentName(pick(i).parent) })),
  );
  out.set(
    'search owner alone (across parents)',
    await timeOp((i) => post('/api/v1/subnames/search', { owner: pick(i).owner })),
  );
  out.set(
    'get by name',
    await timeOp((i) => {
      const row = pick(i);
      return fetch(`${base}/api/v1/subnames/${row.label}.${parentName(row.parent)}`);
    }),
  );
  out.set(
    'get by namehash',
    await timeOp((i) => {
      const row = pick(i);
      return fetch(`${base}/api/v1/subnames/namehash/${namehash(`${row.label}.${parentName(row.parent)}`)}`);
    }),
  );
  out.set(
    'gateway GET text()',
    await timeOp((i) => {
      const row = pick(i);
      const name = `${row.label}.${parentName(row.parent)}`;
      const inner = resolverInterface.encodeFunctionData('text', [namehash(name), 'avatar']);
      const data = resolverInterface.encodeFunctionData('resolve', [dnsEncode(name), inner]);
      return fetch(`${base}/api/v1/gateway/${RESOLVER}/${data}.json`);
    }),
  );
  out.set(
    'gateway POST multicall(addr, text, contenthash)',
    await timeOp((i) => {
      const row = pick(i);
      const name = `${row.label}.${parentName(row.parent)}`;
      const node = namehash(name);
      const inner = resolverInterface.encodeFunctionData('multicall', [
        [
          resolverInterface.encodeFunctionData('addr(bytes32)', [node]),
          resolverInterface.encodeFunctionData('text', [node, 'avatar']),
          resolverInterface.encodeFunctionData('contenthash', [node]),
        ],
      ]);
      const data = resolverInterface.encodeFunctionData('resolve', [dnsEncode(name), inner]);
      return post('/api/v1/gateway', { sender: RESOLVER, data });
    }),
  );
  const prefix = `w${round}${hexlify(randomBytes(2)).slice(2)}`;
  out.set(
    'create (req/s, 16 concurrent)',
    await throughput(WRITES, (i) =>
      post(
        '/api/v1/subnames',
        {
          parentName: 'writes.eth',
          label: `${prefix}-${i}`,
          owner: owners[i % OWNERS],
          texts: [{ key: 'avatar', value: `https://img.example/${i}.png` }],
          addresses: [{ coin: 60, value: owners[i % OWNERS] }],
          metadata: [{ key: 'tier', value: 'gold' }],
        },
        { 'x-auth-token': key },
      ),
    ),
  );
  out.set(
    'update (req/s, 16 concurrent)',
    await throughput(WRITES, (i) =>
      post(
        '/api/v1/subnames',
        {
          parentName: 'writes.eth',
          label: `${prefix}-${i}`,
          texts: [{ key: 'url', value: `https://u/${i}` }],
        },
        { 'x-auth-token': key },
      ),
    ),
  );
  out.set(
    `bulk import (rows/s, ${BULK_REQUESTS} sequential requests of ${BULK_ITEMS})`,
    `${Math.round(await bulkThroughput(base, key, prefix))} rows/s`,
  );
  await sql`DELETE FROM offchain_subnames WHERE parent_name = 'writes.eth'`.execute(db.db);
  const exported = await exportAll(base, keys.parents);
  out.set('export every parent (rows/s, NDJSON)', `${Math.round(exported.rowsPerSecond)} rows/s`);
  out.set('export: rows exported', exported.rows.toLocaleString('en-US'));
  out.set(
    'export memory: live heap before → after each parent (max); peak RSS',
    `${exported.heapBeforeMb.toFixed(1)} → ${exported.liveHeapMb.toFixed(1)} MB; ${exported.peakRssMb.toFixed(0)} MB`,
  );
  return out;
}

function fmt(value: { p50: number; p95: number } | number | string | undefined): string {
  if (value === undefined) return '-';
  if (typeof value === 'string') return value;
  if (typeof value === 'number') return `${Math.round(value)} req/s`;
  return `${value.p50.toFixed(2)} / ${value.p95.toFixed(2)} ms`;
}

async function main(): Promise<void> {
  const schema = `bench_offchain_${Date.now().toString(36)}`;
  const admin = new Client({ connectionString: URL_ });
  await admin.connect();
  for (const ext of ['pg_trgm', 'btree_gin']) {
    await admin.query(`CREATE EXTENSION IF NOT EXISTS ${ext} SCHEMA public`).catch(() => undefined);
  }
  const env = { DATABASE_URL: URL_, DATABASE_SCHEMA: schema, DATABASE_POOL_MAX: '20' };
  const config = loadConfig(configSchema, {
    ...env,
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '10000000',
    GATEWAY_SIGNER_KEY: GATEWAY_KEY,
  });
  const db = openDatabase(config);
  const instance = await createService(config, createLogger('bench', 'silent'));
  const server: Server = instance.app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const keys = {
    writes: (await issueApiKey(db, ['writes.eth'])).key,
    parents: (
      await issueApiKey(
        db,
        Array.from({ length: PARENTS }, (_, p) => parentName(p)),
      )
    ).key,
  };
  const seen = new Set<string>();
  const samples: SeedRow[] = [];
  const results: Array<{ rows: number; seedSeconds: number; m: Measurements }> = [];
  try {
    let seeded = 0;
    for (const target of [SMALL_ROWS, TOTAL_ROWS]) {
      if (target <= seeded) continue;
      const started = performance.now();
      const big = target - seeded > 100_000;
      const indexDefs = big ? await dropSecondaryIndexes(db, schema) : [];
      await insertRows(db, seeded, target, seen, samples);
      for (const def of indexDefs) await sql.raw(def).execute(db.db);
      // What autovacuum does after a bulk load: statistics and the visibility map (index-only counts).
      await sql`VACUUM ANALYZE offchain_subnames`.execute(db.db);
      const seedSeconds = (performance.now() - started) / 1000;
      seeded = target;
      const { rows } = await sql<{ n: string }>`SELECT count(*) AS n FROM offchain_subnames`.execute(db.db);
      results.push({
        rows: Number(rows[0]?.n ?? 0),
        seedSeconds,
        m: await measure(db, base, keys, samples, results.length),
      });
    }
  } finally {
    await new Promise((resolve) => server.close(resolve));
    for (const step of instance.onShutdown) await step();
    await db.close();
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }

  const first = results[0];
  const last = results[results.length - 1];
  const header = [
    'operation',
    ...results.map((r) => `p50 / p95 at ${r.rows.toLocaleString('en-US')} rows`),
    'p95 ratio',
  ];
  const lines = [...(first?.m.keys() ?? [])].map((op) => {
    const a = first?.m.get(op);
    const b = last?.m.get(op);
    const ratio = typeof a === 'object' && typeof b === 'object' ? `${(b.p95 / a.p95).toFixed(2)}x` : '';
    return [op, ...results.map((r) => fmt(r.m.get(op))), ratio];
  });
  lines.push([
    'seed time (bulk insert + indexes + VACUUM ANALYZE)',
    ...results.map((r) => `${r.seedSeconds.toFixed(1)} s`),
    '',
  ]);
  console.log(
    [
      `offchain-svc on PostgreSQL (${PARENTS} parents, ${SAMPLES} sequential requests per latency, loopback HTTP)`,
      markdownTable(header, lines),
    ].join('\n'),
  );
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
