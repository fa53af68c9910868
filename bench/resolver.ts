/**
 * `npm run bench:resolver`: RPC round trips of resolver-svc counted at a loopback proxy in front of anvil and
 * CCIP-Read gateway requests counted at the test gateway, per cold profile and reverse profile, and the throughput of
 * a warm profile and of the kit's floor against a bare Express route, each server in its own process, in the same
 * rounds. Prints one table.
 * Bounded: fixed request counts, loopback only. BENCH_REQUESTS / BENCH_CONCURRENCY override the load.
 */
import { Agent, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { startResolverService, startResolverFixture } from '../apps/resolver-svc/dev/fixture';
import { L2_NAME, startL2Name } from './l2-name';
import { median, startLoader, startServerProcess, type ServerProcess } from './throughput';

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 5_000);
/** Requests to each server before the rounds, so every round measures optimised code. */
const WARM_UP_REQUESTS = 5_000;
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 32);
/** Bare, resolver and floor loads alternate in rounds, so all see the same machine load; medians are reported. */
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 30);

function listen(app: express.Express): Promise<{ server: Server; url: string }> {
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      resolve({ server, url: `http://127.0.0.1:${port}` });
    });
  });
}

function get(agent: Agent, url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

async function main(): Promise<void> {
  const fx = await startResolverFixture();
  const l2Name = await startL2Name(fx.chain);
  const svc = await startResolverService(
    fx.env({
      LOG_LEVEL: 'silent',
      CCIP_READ_ALLOWED_ORIGINS: `http://127.0.0.1:${fx.gateway.port},${l2Name.origin}`,
    }),
  );
  const resolver = await listen(svc.app);
  const agent = new Agent({ keepAlive: true });
  const rows: Array<{ measure: string; value: string; target: string }> = [];
  const servers: ServerProcess[] = [];
  /** One cold request: RPC round trips counted at the proxy, gateway requests at the name's gateway. */
  const roundTrips = async (
    measure: string,
    path: string,
    target: string,
    gatewayRequests = () => fx.gateway.requestCount(),
  ): Promise<string> => {
    fx.proxy.reset();
    const gatewayBefore = gatewayRequests();
    const started = process.hrtime.bigint();
    const res = await get(agent, resolver.url + path);
    const ms = Number(process.hrtime.bigint() - started) / 1e6;
    if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${res.body}`);
    const gateway = gatewayRequests() - gatewayBefore;
    rows.push({
      measure,
      value: `${fx.proxy.requests()} RPC + ${gateway} gateway (${ms.toFixed(1)} ms)`,
      target,
    });
    return res.body;
  };

  try {
    const profile = '/ens/v2/profile/alice.eth?contenthash=true';
    await roundTrips('cold profile: on-chain name (public resolver)', profile, '1 + 0');
    const warmBody = await roundTrips('warm profile', profile, '0 + 0');
    await roundTrips('cold profile: wrapped name', '/ens/v2/profile/wrapped.eth?contenthash=true', '1 + 0');
    await roundTrips(
      'cold profile: offchain subname (wildcard, CCIP-Read, ENSIP-22)',
      '/ens/v2/profile/bob.offchain.eth?contenthash=true',
      '2 + 1',
    );
    await roundTrips(
      'cold profile: L2 subname (L2NameResolver, offchain-svc L2 gateway, ENSIP-22)',
      `/ens/v2/profile/${L2_NAME}?contenthash=true`,
      '2 + 1',
      () => l2Name.requests(),
    );
    await roundTrips(
      'cold reverse profile, coin type 60 (reverse + forward)',
      `/ens/v2/reverse/${fx.accounts.alice}/profile?noCache=true`,
      '-',
    );
    await roundTrips(
      'cold reverse profile, Base (ENSIP-19, coin type 0x80002105)',
      `/ens/v2/reverse/${fx.accounts.alice}/profile?chain=base&noCache=true`,
      '-',
    );
    await roundTrips(
      'cold reverse profile, offchain primary name (CCIP-Read forward check)',
      `/ens/v2/reverse/${fx.accounts.bob}/profile?noCache=true`,
      '-',
    );

    fx.proxy.reset();
    const concurrent = await Promise.all(
      Array.from({ length: 100 }, () =>
        get(agent, `${resolver.url}/ens/v2/profile/noresolver.eth?contenthash=true`),
      ),
    );
    if (concurrent.some((r) => r.status !== 200)) throw new Error('a concurrent cold request failed');
    rows.push({
      measure: '100 concurrent identical cold profiles: RPC round trips',
      value: String(fx.proxy.requests()),
      target: '1',
    });

    const names = Array.from({ length: 20 }, (_, i) => `bulk${i}.eth`).join(',');
    await roundTrips('cold bulk profile of 20 names', `/ens/v2/profile/bulk?names=${names}`, '-');

    // Throughput: each server in a process of its own, as a service runs. In one process, two identical bare apps
    // once measured a fifth apart, likely because the Express and Node code they share is optimised for every app's
    // objects at once.
    const bare = await startServerProcess('bare', { BENCH_BODY: warmBody });
    const platform = await startServerProcess('floor', { BENCH_BODY: warmBody });
    const service = await startServerProcess('resolver', {
      BENCH_SERVICE_ENV: JSON.stringify(fx.env({ LOG_LEVEL: 'silent' })),
    });
    servers.push(bare, platform, service);
    const loader = startLoader(CONCURRENCY);
    for (const url of [`${bare.url}/profile`, service.url + profile, `${platform.url}/profile`])
      await loader.load(url, WARM_UP_REQUESTS);
    /** Requests/s of one load, and the server's own CPU per request (µs), apart from the load generator's. */
    const measure = async (server: ServerProcess, url: string, cpu: number[]): Promise<number> => {
      const before = await server.cpuMicros();
      const rps = await loader.load(url, REQUESTS);
      cpu.push(((await server.cpuMicros()) - before) / REQUESTS);
      return rps;
    };
    const bareRps: number[] = [];
    const resolverRps: number[] = [];
    const ratios: number[] = [];
    const floorRatios: number[] = [];
    const cpu = { bare: [] as number[], resolver: [] as number[], floor: [] as number[] };
    for (let round = 0; round < ROUNDS; round++) {
      const b = await measure(bare, `${bare.url}/profile`, cpu.bare);
      const r = await measure(service, service.url + profile, cpu.resolver);
      const f = await measure(platform, `${platform.url}/profile`, cpu.floor);
      bareRps.push(b);
      resolverRps.push(r);
      ratios.push(r / b);
      floorRatios.push(f / b);
    }
    await loader.stop();
    const load = `${ROUNDS} rounds x ${REQUESTS} req, c=${CONCURRENCY}`;
    rows.push({
      measure: `bare Express route, req/s (median of ${load})`,
      value: median(bareRps).toFixed(0),
      target: '-',
    });
    rows.push({
      measure: 'warm profile, req/s (median, same rounds)',
      value: median(resolverRps).toFixed(0),
      target: '-',
    });
    rows.push({
      measure: 'warm profile / bare Express (median of per-round ratios, min-max)',
      value: `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}-${Math.max(...ratios).toFixed(2)})`,
      target: '>= 0.8',
    });
    rows.push({
      measure: 'kit floor: createApp trivial route / bare Express (median, min-max)',
      value: `${median(floorRatios).toFixed(2)} (${Math.min(...floorRatios).toFixed(2)}-${Math.max(...floorRatios).toFixed(2)})`,
      target: '>= 0.9',
    });
    rows.push({
      measure: 'server CPU per request, µs (median): bare / warm profile / floor',
      value: [cpu.bare, cpu.resolver, cpu.floor].map((v) => median(v).toFixed(1)).join(' / '),
      target: '-',
    });
  } finally {
    for (const server of servers) server.stop();
    agent.destroy();
    resolver.server.close();
    await svc.close();
    await l2Name.stop();
    await fx.stop();
  }

  const width = Math.max(...rows.map((r) => r.measure.length));
  const valueWidth = Math.max(5, ...rows.map((r) => r.value.length));
  const line = `+-${'-'.repeat(width)}-+-${'-'.repeat(valueWidth)}-+--------+`;
  console.log(
    `resolver-svc bench (cache: ${process.env.REDIS_URL ? 'memory + Redis' : 'memory'}; node ${process.version})`,
  );
  console.log(line);
  console.log(`| ${'measure'.padEnd(width)} | ${'value'.padEnd(valueWidth)} | target |`);
  console.log(line);
  for (const r of rows)
    console.log(`| ${r.measure.padEnd(width)} | ${r.value.padEnd(valueWidth)} | ${r.target.padEnd(6)} |`);
  console.log(line);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
