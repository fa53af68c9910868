/**
 * `npm run bench:load`: the dev stack of `npm start` (anvil with ENS, the demo names and every service's hook), each
 * service in its own child process, then one service at a time under a mix of its everyday requests at
 * BENCH_CONNECTIONS (64) connections for BENCH_DURATION seconds (30) with autocannon.
 * Storage and processes as bench/stack.ts starts them (built bundles; PGlite, or PostgreSQL with DATABASE_URL;
 * Redis with REDIS_URL).
 * Prints one table: requests/s, p50/p95/p99 latency, errors split into 429 and everything else (the goal is zero
 * non-429 errors), and the service process's peak RSS (VmHWM from /proc: Linux only).
 *
 * The load comes from one IP, standing in for many clients: the global per-IP limit (RATE_LIMIT_PER_MINUTE) and the
 * gateway's per-client share are lifted, the per-route limits (nonces, uploads, deletes) stay as configured, so
 * their 429s are counted apart.
 */
import autocannon from 'autocannon';
import { resolverInterface } from '@nrp/chain';
import { dnsEncode, namehash, tokenIdFromNamehash } from '@nrp/ens';
import type { DevStackContext } from '@nrp/testkit';
import type { ServiceModule } from '../scripts/dev-stack';
import { DATABASE_URL, peakRssMb, REDIS_URL, startBenchStack, type StackService } from './stack';
import { markdownTable } from './table';

const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 64);
const DURATION_SECONDS = Number(process.env.BENCH_DURATION ?? 30);
const BASE_PORT = 3301;
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

async function load(service: StackService, mix: MixEntry[]): Promise<Row> {
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
  console.log(
    [
      `Load: ${CONNECTIONS} connections, ${DURATION_SECONDS} s per service, one service at a time; ` +
        `${DATABASE_URL ? 'PostgreSQL, built bundles' : 'PGlite, from source'}, ${REDIS_URL ? 'Redis' : 'no Redis'}`,
      markdownTable(header, lines, { numeric: true }),
    ].join('\n'),
  );
}

async function main(): Promise<void> {
  const stack = await startBenchStack({
    run: RUN,
    basePort: BASE_PORT,
    env: {
      RATE_LIMIT_PER_MINUTE: '100000000',
      GATEWAY_CLIENT_RATE_LIMIT_PER_MINUTE: '100000000',
      GATEWAY_RATE_LIMIT_PER_MINUTE: '100000000',
    },
  });
  try {
    const allMixes = mixes({ ctx: stack.ctx, offchainApiKey: stack.offchainApiKey });
    const rows: Row[] = [];
    for (const service of stack.running) {
      const mix = allMixes[service.module.key];
      await checkMix(service.url, mix, service.module.name);
      rows.push(await load(service, mix));
    }
    printTable(rows);
  } finally {
    await stack.stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
