/**
 * `npm run bench:offchain-throughput`: requests/s of offchain-svc's hot paths — subname reads by name and by
 * namehash, a CCIP-Read gateway lookup answered from the answer cache (hot) and one that is not (cold:
 * ANSWER_CACHE_SECONDS=0, one indexed read and one signature each) — as ratios to a bare Express route answering the
 * same bytes, measured in the same alternating rounds, on PGlite and on PostgreSQL (DATABASE_URL, default
 * postgres://postgres@127.0.0.1:5432/test, in a throwaway schema dropped at the end). Every server is a process of
 * its own; the load generator is a worker thread of this one; rate limits are lifted. Prints one table.
 * Bounded: BENCH_ROUNDS (default 10) × BENCH_REQUESTS (default 3,000) per path, BENCH_CONCURRENCY (default 32).
 */
import { getAddress } from 'ethers';
import { Client } from 'pg';
import { resolverInterface } from '@nrp/chain';
import { dnsEncode, namehash } from '@nrp/ens';
import { median, startLoader, startServerProcess, type ServerProcess } from './throughput';

const DATABASE_URL = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3_000);
const WARM_UP_REQUESTS = 3_000;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
const NAME = 'alice.perf.eth';
const RESOLVER = getAddress('0x' + '0f'.repeat(20));
const LIFTED = '100000000';
const SEED = {
  parentName: 'perf.eth',
  label: 'alice',
  owner: getAddress('0x' + '11'.repeat(20)),
  texts: [
    { key: 'avatar', value: 'https://img.example/alice.png' },
    { key: 'description', value: 'Subname alice' },
  ],
  addresses: [{ coin: 60, value: getAddress('0x' + '11'.repeat(20)) }],
};
const GATEWAY_PATH = (() => {
  const inner = resolverInterface.encodeFunctionData('addr(bytes32)', [namehash(NAME)]);
  const data = resolverInterface.encodeFunctionData('resolve', [dnsEncode(NAME), inner]);
  return `/api/v1/gateway/${RESOLVER}/${data}.json`;
})();

interface PathRatio {
  rps: number;
  ratio: number;
  min: number;
  max: number;
}

async function body(url: string): Promise<string> {
  const res = await fetch(url);
  if (res.status !== 200) throw new Error(`${url}: HTTP ${res.status}`);
  return res.text();
}

/** The paths measured against their bare Express twins, with offchain-svc on the database `env` names. */
async function measureDatabase(env: Record<string, string>): Promise<Map<string, PathRatio>> {
  const serviceEnv = (extra: Record<string, string>) => ({
    BENCH_SERVICE_ENV: JSON.stringify({
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: LIFTED,
      GATEWAY_RATE_LIMIT_PER_MINUTE: LIFTED,
      GATEWAY_CLIENT_RATE_LIMIT_PER_MINUTE: LIFTED,
      GATEWAY_SIGNER_KEY: '0x' + '42'.repeat(32),
      ...env,
      ...extra,
    }),
    BENCH_SEED: JSON.stringify(SEED),
  });
  const servers: ServerProcess[] = [];
  const loader = startLoader(CONCURRENCY);
  try {
    // One after the other: on PostgreSQL the second migrates after the first.
    const hot = await startServerProcess('offchain', serviceEnv({}));
    servers.push(hot);
    const cold = await startServerProcess('offchain', serviceEnv({ ANSWER_CACHE_SECONDS: '0' }));
    servers.push(cold);
    const bareRead = await startServerProcess('bare', {
      BENCH_BODY: await body(`${hot.url}/api/v1/subnames/${NAME}`),
    });
    servers.push(bareRead);
    const bareGateway = await startServerProcess('bare', { BENCH_BODY: await body(hot.url + GATEWAY_PATH) });
    servers.push(bareGateway);
    const paths: Array<{ label: string; url: string; bare: string }> = [
      { label: 'GET /api/v1/subnames/{name}', url: `${hot.url}/api/v1/subnames/${NAME}`, bare: 'read' },
      {
        label: 'GET /api/v1/subnames/namehash/{node}',
        url: `${hot.url}/api/v1/subnames/namehash/${namehash(NAME)}`,
        bare: 'read',
      },
      { label: 'gateway addr lookup, hot (answer cache)', url: hot.url + GATEWAY_PATH, bare: 'gateway' },
      { label: 'gateway addr lookup, cold (read + sign)', url: cold.url + GATEWAY_PATH, bare: 'gateway' },
    ];
    const bareUrls: Record<string, string> = {
      read: `${bareRead.url}/profile`,
      gateway: `${bareGateway.url}/profile`,
    };
    for (const url of [...Object.values(bareUrls), ...paths.map((p) => p.url)]) {
      await loader.load(url, WARM_UP_REQUESTS);
    }
    const rps = new Map<string, number[]>();
    const ratios = new Map<string, number[]>();
    const push = (map: Map<string, number[]>, key: string, value: number) =>
      map.set(key, [...(map.get(key) ?? []), value]);
    for (let round = 0; round < ROUNDS; round++) {
      const bare: Record<string, number> = {};
      for (const [kind, url] of Object.entries(bareUrls)) bare[kind] = await loader.load(url, REQUESTS);
      for (const path of paths) {
        const r = await loader.load(path.url, REQUESTS);
        push(rps, path.label, r);
        push(ratios, path.label, r / (bare[path.bare] ?? r));
      }
      for (const [kind, value] of Object.entries(bare)) push(rps, `bare Express (${kind} body)`, value);
    }
    const out = new Map<string, PathRatio>();
    for (const [label, values] of rps) {
      const r = ratios.get(label) ?? [1];
      out.set(label, { rps: median(values), ratio: median(r), min: Math.min(...r), max: Math.max(...r) });
    }
    return out;
  } finally {
    await loader.stop();
    for (const server of servers) server.stop();
  }
}

const TARGETS: Record<string, string> = {
  'GET /api/v1/subnames/{name}': '>= 0.7',
  'GET /api/v1/subnames/namehash/{node}': '>= 0.7',
  'gateway addr lookup, hot (answer cache)': '>= 0.5',
  'gateway addr lookup, cold (read + sign)': '>= 0.15',
};

async function main(): Promise<void> {
  const pglite = await measureDatabase({});
  const schema = `bench_throughput_${Date.now().toString(36)}`;
  const admin = new Client({ connectionString: DATABASE_URL });
  await admin.connect();
  let postgres: Map<string, PathRatio>;
  try {
    postgres = await measureDatabase({ DATABASE_URL, DATABASE_SCHEMA: schema, DATABASE_POOL_MAX: '10' });
  } finally {
    await admin.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await admin.end();
  }
  const cell = (m: PathRatio | undefined, bare: boolean) =>
    !m
      ? '-'
      : bare
        ? `${Math.round(m.rps)} req/s`
        : `${Math.round(m.rps)} req/s, ${m.ratio.toFixed(2)}x (${m.min.toFixed(2)}-${m.max.toFixed(2)})`;
  const header = ['path', 'PGlite', 'PostgreSQL', 'target (x bare)'];
  const lines = [...pglite.keys()].map((label) => {
    const bare = label.startsWith('bare');
    return [label, cell(pglite.get(label), bare), cell(postgres.get(label), bare), TARGETS[label] ?? '-'];
  });
  const widths = header.map((_, c) => Math.max(...[header, ...lines].map((l) => (l[c] ?? '').length)));
  const row = (cells: string[]) => `| ${cells.map((c, i) => c.padEnd(widths[i] ?? 0)).join(' | ')} |`;
  console.log(
    [
      `offchain-svc throughput vs bare Express, same bytes, same rounds (median of ${ROUNDS} rounds x ${REQUESTS} ` +
        `req, c=${CONCURRENCY}; ratio median (min-max); node ${process.version})`,
      row(header),
      row(widths.map((w) => '-'.repeat(w))),
      ...lines.map(row),
    ].join('\n'),
  );
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
