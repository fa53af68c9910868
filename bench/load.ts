/**
 * `npm run bench:load`: the dev stack of `npm start` (anvil with ENS, the demo names and every service's hook), each
 * service in its own child process, then one service at a time under a mix of its everyday requests at
 * BENCH_CONNECTIONS (64) connections for BENCH_DURATION seconds (30) with autocannon.
 * Each service runs as in production, from its built bundle (`dist/apps/<service>/main.js`, built first by
 * `scripts/build-service.ts`, the `nx build` target). Storage: by default PGlite (in memory) and process memory;
 * with DATABASE_URL PostgreSQL (a schema of its own per service and run, dropped at the end), and with REDIS_URL the
 * services share rate limits and caches through Redis.
 * Prints one table: requests/s, p50/p95/p99 latency, errors split into 429 and everything else (the goal is zero
 * non-429 errors), and the service process's peak RSS (VmHWM from /proc: Linux only).
 *
 * The load comes from one IP, standing in for many clients: the global per-IP limit (RATE_LIMIT_PER_MINUTE) and the
 * gateway's per-client share are lifted, the per-route limits (nonces, uploads, deletes) stay as configured, so
 * their 429s are counted apart.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import autocannon from 'autocannon';
import { Client } from 'pg';
import { resolverInterface } from '@nrp/chain';
import { dnsEncode, namehash, tokenIdFromNamehash } from '@nrp/ens';
import { startAnvil, type DevStackContext } from '@nrp/testkit';
import { prepareDevChain, services, type ServiceModule } from '../scripts/dev-stack';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const DURATION_SECONDS = Number(process.env.BENCH_DURATION ?? 30);
const HOST = '127.0.0.1';
const BASE_PORT = 3301;
const DATABASE_URL = process.env.DATABASE_URL;
const REDIS_URL = process.env.REDIS_URL;
const RUN = `bench_load_${Date.now().toString(36)}`;

interface MixEntry {
  method: 'GET' | 'POST';
  path: string;
  body?: unknown;
  headers?: Record<string, string>;
  /** How many of every `sum(weight)` requests this one is. */
  weight: number;
}

interface StackFacts {
  ctx: DevStackContext;
  offchainApiKey: string;
}

/** Each service's everyday traffic: mostly reads of the demo names, with the writes clients make. */
function mixes({ ctx, offchainApiKey }: StackFacts): Record<ServiceModule['key'], MixEntry[]> {
  const [owner, minter] = ctx.accounts;
  if (!owner || !minter) throw new Error('the dev chain has no accounts');
  const json = { 'content-type': 'application/json' };
  const wrappedToken = tokenIdFromNamehash(namehash('wrapped.eth'));
  const alice = 'alice.offchain.eth';
  const profileCall = resolverInterface.encodeFunctionData('resolve', [
    dnsEncode(alice),
    resolverInterface.encodeFunctionData('multicall', [
      [
        resolverInterface.encodeFunctionData('addr(bytes32)', [namehash(alice)]),
        resolverInterface.encodeFunctionData('text', [namehash(alice), 'avatar']),
        resolverInterface.encodeFunctionData('contenthash', [namehash(alice)]),
      ],
    ]),
  ]);
  return {
    resolver: [
      { method: 'GET', path: '/ens/v2/profile/demo.eth', weight: 4 },
      { method: 'GET', path: '/ens/v2/texts/demo.eth?keys=description,url', weight: 2 },
      { method: 'GET', path: '/ens/v2/addresses/demo.eth?chains=eth,base', weight: 2 },
      { method: 'GET', path: `/ens/v2/reverse/${owner.address}/profile`, weight: 1 },
      { method: 'GET', path: '/ens/v2/profile/alice.offchain.eth', weight: 1 },
    ],
    offchain: [
      // What every wallet's lookup of an offchain subname costs, through the universal resolver.
      {
        method: 'GET',
        path: `/api/v1/gateway/${ctx.contracts.offchainResolver}/${profileCall}.json`,
        weight: 4,
      },
      { method: 'GET', path: '/api/v1/subnames/alice.offchain.eth', weight: 4 },
      { method: 'GET', path: `/api/v1/subnames/namehash/${namehash('bob.offchain.eth')}`, weight: 2 },
      {
        method: 'POST',
        path: '/api/v1/subnames/search',
        headers: json,
        body: { parentName: 'offchain.eth', size: 20 },
        weight: 2,
      },
      {
        method: 'POST',
        path: '/api/v1/subnames',
        headers: { ...json, 'x-auth-token': offchainApiKey },
        body: {
          parentName: 'offchain.eth',
          label: 'load',
          texts: [{ key: 'description', value: 'load test' }],
        },
        weight: 1,
      },
    ],
    mint: [
      {
        method: 'GET',
        path: `/api/v1/mint/estimate?parentName=mint.eth&label=load&minterAddress=${minter.address}&isTestnet=true`,
        weight: 6,
      },
      {
        method: 'POST',
        path: '/api/v1/mint',
        headers: json,
        body: { parentName: 'mint.eth', label: 'load', minterAddress: minter.address, isTestnet: true },
        weight: 3,
      },
      { method: 'GET', path: '/api/v1/listings/sepolia/mint.eth', weight: 1 },
    ],
    metadata: [
      { method: 'GET', path: `/metadata/network/${ctx.chainId}/token/${wrappedToken}`, weight: 4 },
      { method: 'GET', path: `/metadata/network/${ctx.chainId}/token/${wrappedToken}/image.png`, weight: 4 },
      {
        method: 'POST',
        path: '/auth/nonce',
        headers: json,
        body: { address: owner.address, scope: 'avatar' },
        weight: 1,
      },
    ],
  };
}

function autocannonRequests(mix: MixEntry[]): autocannon.Request[] {
  return mix.flatMap((entry) =>
    Array.from({ length: entry.weight }, () => ({
      method: entry.method,
      path: entry.path,
      ...(entry.headers ? { headers: entry.headers } : {}),
      ...(entry.body !== undefined ? { body: JSON.stringify(entry.body) } : {}),
    })),
  );
}

interface Running {
  module: ServiceModule;
  url: string;
  child: ChildProcess;
}

async function waitReady(url: string, child: ChildProcess, name: string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${name} exited with code ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/ready`)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`${name} was not ready within 120 s`);
}

/** Peak resident set size of a process (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const match = /^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  return match ? Number(match[1]) / 1024 : Number.NaN;
}

/** Every request of the mix once: a mix that answers errors would measure nothing. */
async function checkMix(url: string, mix: MixEntry[], name: string): Promise<void> {
  for (const entry of mix) {
    const res = await fetch(`${url}${entry.path}`, {
      method: entry.method,
      headers: entry.headers,
      ...(entry.body !== undefined ? { body: JSON.stringify(entry.body) } : {}),
    });
    await res.arrayBuffer();
    if (res.status >= 400) throw new Error(`${name}: ${entry.method} ${entry.path} answered ${res.status}`);
  }
}

interface Row {
  service: string;
  requestsPerSecond: number;
  p50: number;
  p95: number;
  p99: number;
  tooMany: number;
  otherErrors: number;
  total: number;
  peakRssMb: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? Number.NaN;
}

async function load(service: Running, mix: MixEntry[]): Promise<Row> {
  const latencies: number[] = [];
  let tooMany = 0;
  let otherErrors = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: service.url,
        connections: CONNECTIONS,
        duration: DURATION_SECONDS,
        requests: autocannonRequests(mix),
      },
      (err, done) => (err ? reject(err) : resolve(done)),
    );
    instance.on('response', (_client, statusCode, _bytes, responseTime) => {
      latencies.push(responseTime);
      if (statusCode === 429) tooMany++;
      else if (statusCode >= 400) otherErrors++;
    });
  });
  latencies.sort((a, b) => a - b);
  return {
    service: service.module.name,
    requestsPerSecond: latencies.length / DURATION_SECONDS,
    p50: percentile(latencies, 50),
    p95: percentile(latencies, 95),
    p99: percentile(latencies, 99),
    tooMany,
    // Connection errors and timeouts are errors too.
    otherErrors: otherErrors + result.errors + result.timeouts,
    total: latencies.length,
    peakRssMb: service.child.pid ? peakRssMb(service.child.pid) : Number.NaN,
  };
}

function printTable(rows: Row[]): void {
  const header = [
    'Service',
    'req/s',
    'p50 ms',
    'p95 ms',
    'p99 ms',
    'requests',
    '429',
    'non-429 errors',
    'peak RSS MB',
  ];
  const lines = rows.map((r) => [
    r.service,
    r.requestsPerSecond.toFixed(0),
    r.p50.toFixed(1),
    r.p95.toFixed(1),
    r.p99.toFixed(1),
    String(r.total),
    String(r.tooMany),
    String(r.otherErrors),
    r.peakRssMb.toFixed(0),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...lines.map((l) => (l[i] ?? '').length)));
  const row = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] ?? 0) : c.padStart(widths[i] ?? 0))).join(' | ')} |`;
  console.log(
    [
      `Load: ${CONNECTIONS} connections, ${DURATION_SECONDS} s per service, one service at a time; ` +
        `built bundles, ${DATABASE_URL ? 'PostgreSQL' : 'PGlite'}, ${REDIS_URL ? 'Redis' : 'no Redis'}`,
      row(header),
      `|${widths.map((w, i) => (i === 0 ? `${'-'.repeat(w + 1)}-` : `${'-'.repeat(w + 1)}:`)).join('|')}|`,
      ...lines.map(row),
    ].join('\n'),
  );
}

/** Builds the service's production bundle (as `nx build <service>` does) and answers its path. */
function bundle(service: string): string {
  const built = spawnSync(
    process.execPath,
    ['-r', 'esbuild-register', path.join('scripts', 'build-service.ts'), service],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
  if (built.status !== 0) throw new Error(`building ${service} failed`);
  return path.join('dist', 'apps', service, 'main.js');
}

/** PostgreSQL (a schema per service and run) and Redis (a cache prefix per run) when configured. */
function storageEnv(service: string): Record<string, string> {
  const schema = `${RUN}_${service.replace(/-/g, '_')}`;
  return {
    ...(DATABASE_URL ? { DATABASE_URL, DATABASE_SCHEMA: schema } : {}),
    ...(REDIS_URL ? { REDIS_URL, CACHE_REDIS_PREFIX: `${RUN}:` } : {}),
  };
}

async function dropSchemas(): Promise<void> {
  if (!DATABASE_URL) return;
  const admin = new Client({ connectionString: DATABASE_URL });
  await admin.connect();
  try {
    for (const { name } of services) {
      await admin.query(`DROP SCHEMA IF EXISTS ${RUN}_${name.replace(/-/g, '_')} CASCADE`);
    }
  } finally {
    await admin.end();
  }
}

async function main(): Promise<void> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'bench-load-'));
  const anvil = await startAnvil();
  const running: Running[] = [];
  try {
    const urls = Object.fromEntries(
      services.map((s, i) => [s.key, `http://${HOST}:${BASE_PORT + i}`]),
    ) as DevStackContext['services'];
    const { ctx, contributions } = await prepareDevChain(anvil, urls, dataDir, HOST);
    for (const module of services) {
      const url = urls[module.key];
      const child = spawn(process.execPath, [bundle(module.name)], {
        env: {
          ...process.env,
          ...ctx.env,
          ...contributions.get(module)?.env,
          ...storageEnv(module.name),
          PORT: new URL(url).port,
          LOG_LEVEL: 'error',
          RATE_LIMIT_PER_MINUTE: '100000000',
          GATEWAY_CLIENT_RATE_LIMIT_PER_MINUTE: '100000000',
          GATEWAY_RATE_LIMIT_PER_MINUTE: '100000000',
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      running.push({ module, url, child });
      await waitReady(url, child, module.name);
    }
    for (const contribution of contributions.values()) await contribution.afterStart?.();
    const offchainApiKey = [...contributions.values()].find((c) => c.offchainApiKey)?.offchainApiKey;
    if (!offchainApiKey) throw new Error('the offchain dev stack hook issued no API key');
    const allMixes = mixes({ ctx, offchainApiKey });

    const rows: Row[] = [];
    for (const service of running) {
      const mix = allMixes[service.module.key];
      await checkMix(service.url, mix, service.module.name);
      rows.push(await load(service, mix));
    }
    printTable(rows);
  } finally {
    for (const { child } of running) child.kill('SIGTERM');
    await Promise.all(
      running.map(({ child }) =>
        child.exitCode === null ? new Promise((resolve) => child.once('exit', resolve)) : undefined,
      ),
    );
    await anvil.stop();
    await dropSchemas();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
