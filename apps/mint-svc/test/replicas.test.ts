import request from 'supertest';
import {
  accountAt,
  approveController,
  createTestDatabase,
  missingCommands,
  NO_SHARED_POSTGRES,
  requireParts,
  type ServiceProcess,
  sharedPostgresUrl,
  startHaproxy,
  startRedisServer,
  startServiceProcess,
  type TestDatabase,
  type TestHaproxy,
  type TestRedisServer,
} from '@nrp/testkit';
import type { MintDatabase } from '../src/data/schema';
import { type MintService, serviceEnv, signIn, startMintService } from './helpers';

// Two processes of the service behind Debian's HAProxy, sharing one PostgreSQL database and one Redis (the test's
// own redis-server, so no other test's counters mix in).
const databaseUrl = sharedPostgresUrl();
const runs = requireParts('REQUIRE_REPLICA_TESTS', 'the mint-svc replica test', [
  ...(databaseUrl ? [] : [NO_SHARED_POSTGRES]),
  ...missingCommands('haproxy', 'redis-server'),
]);
const replicaIt = runs ? it : it.skip;
const MINT_LIMIT = 6;

let env: MintService;
let db: TestDatabase<MintDatabase>;
let redis: TestRedisServer;
let replicas: ServiceProcess[] = [];
let lb: TestHaproxy;
const owner = () => accountAt(env.chain, 1);
const listingPath = '/api/v1/listings/sepolia/rep.eth';

beforeAll(async () => {
  if (!runs || !databaseUrl) return;
  // The chain, ENS and the MintController (the in-process service it also starts is not used here).
  env = await startMintService();
  db = await createTestDatabase<MintDatabase>({ url: databaseUrl });
  redis = await startRedisServer();
  const processEnv = serviceEnv(env.chain, {
    DATABASE_URL: db.url ?? '',
    REDIS_URL: redis.url,
    LOG_LEVEL: 'warn',
    SEPOLIA_MINT_CONTROLLER: env.controllerAddress,
    TREASURY_ADDRESS: env.treasury,
    // HAProxy on loopback sets X-Forwarded-For.
    TRUST_PROXY: 'loopback',
    MINT_RATE_LIMIT_PER_MINUTE: String(MINT_LIMIT),
  });
  // One at a time: both migrate the same database on start.
  replicas.push(await startServiceProcess('apps/mint-svc/src/main.ts', processEnv));
  replicas.push(await startServiceProcess('apps/mint-svc/src/main.ts', processEnv));
  lb = await startHaproxy(replicas.map((r) => r.url));
  await env.chain.ens.registerEthName('rep', owner().address);
  await approveController(env, 1, false);
}, 180_000);

afterAll(async () => {
  await lb?.stop();
  for (const replica of replicas) await replica.stop();
  replicas = [];
  await redis?.stop();
  await db?.close();
  await env?.close();
});

/** Requests with `method` a replica has answered, from its /metrics. */
async function served(replica: ServiceProcess, method: string): Promise<number> {
  const text = (await request(replica.url).get('/metrics').expect(200)).text;
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('http_request_duration_seconds_count{') && line.includes(`method="${method}"`)) {
      total += Number(line.split(' ').pop());
    }
  }
  return total;
}

describe('two mint-svc replicas behind HAProxy sharing PostgreSQL and Redis', () => {
  replicaIt('one nonce used on both replicas at once lists the parent exactly once', async () => {
    const signed = await signIn(lb.url, owner(), { scope: 'listing' });
    const fields = {
      siweMessage: signed.siweMessage,
      siweSignature: signed.siweSignature,
      address: signed.address,
    };
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        request(replicas[i % 2]?.url ?? '')
          .put(listingPath)
          .send({ ...fields, listing: { basePriceWei: String(1000 + i) } }),
      ),
    );
    const ok = results.filter((r) => r.status === 200 || r.status === 201);
    expect(ok).toHaveLength(1);
    for (const refused of results.filter((r) => !ok.includes(r))) {
      expect(refused.status).toBe(401);
      expect(refused.body.code).toBe('INVALID_NONCE');
    }
  });

  replicaIt('a listing replaced through one replica is what the other one estimates, at once', async () => {
    const [first, second] = replicas;
    if (!first || !second) throw new Error('two replicas');
    const signed = await signIn(first.url, owner(), { scope: 'listing' });
    await request(first.url)
      .put(listingPath)
      .send({ ...signed, listing: { basePriceWei: '7777' } })
      .expect(200);
    const estimate = await request(second.url)
      .get('/api/v1/mint/estimate')
      .query({
        isTestnet: true,
        parentName: 'rep.eth',
        label: 'abc',
        minterAddress: accountAt(env.chain, 5).address,
      })
      .expect(200);
    expect(estimate.body.estimatedPriceWei).toBe('7777');
  });

  replicaIt(`the mint limit of ${MINT_LIMIT} per minute holds across both replicas`, async () => {
    const postsBefore = await Promise.all(replicas.map((r) => served(r, 'POST')));
    const statuses: number[] = [];
    for (let i = 0; i < MINT_LIMIT + 2; i++) {
      const res = await request(lb.url)
        .post('/api/v1/mint')
        .send({
          isTestnet: true,
          parentName: 'rep.eth',
          label: `l${i}abc`,
          minterAddress: accountAt(env.chain, 5).address,
        });
      expect(res.headers['content-type']).toMatch(/json/);
      statuses.push(res.status);
    }
    expect(statuses).toEqual([...Array<number>(MINT_LIMIT).fill(200), 429, 429]);
    const postsAfter = await Promise.all(replicas.map((r) => served(r, 'POST')));
    const perReplica = postsAfter.map((n, i) => n - (postsBefore[i] ?? 0));
    expect(perReplica.reduce((a, b) => a + b, 0)).toBe(MINT_LIMIT + 2);
    for (const count of perReplica) expect(count).toBeGreaterThanOrEqual(3);
  });
});
