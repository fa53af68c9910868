import request from 'supertest';
import type { Wallet } from 'ethers';
import { Client } from 'pg';
import { namehash, tokenIdFromNamehash } from '@nrp/ens';
import {
  signSignInMessage,
  createTestDatabase,
  missingCommands,
  NO_SHARED_POSTGRES,
  requireParts,
  sharedPostgresUrl,
  startHaproxy,
  startRedisServer,
  startS3Server,
  startServiceProcess,
  type EnsChain,
  type ServiceProcess,
  type TestDatabase,
  type TestHaproxy,
  type TestRedisServer,
  type TestS3Server,
} from '@nrp/testkit';
import type { MetadataDb } from '../src/data/schema';
import { stableImageUrl } from '../src/uploads/stable-url';
import {
  buildMessage,
  issueSignInNonce,
  png,
  processEnv,
  s3Env,
  signedFields,
  startEnsChain,
  upload,
  walletOf,
  BASE_URL,
} from './support';

// Two processes of the service behind Debian's HAProxy, sharing one PostgreSQL database, one Redis (the test's own
// redis-server, so no other test's counters mix in) and one S3 bucket.
const databaseUrl = sharedPostgresUrl();
const runs = requireParts('REQUIRE_REPLICA_TESTS', 'the metadata-svc replica test', [
  ...(databaseUrl ? [] : [NO_SHARED_POSTGRES]),
  ...missingCommands('haproxy', 'redis-server'),
]);
const replicaIt = runs ? it : it.skip;

// The documented bound of a change made through another replica: METADATA_CACHE_TTL_MS + AVATAR_CACHE_TTL_MS
// (short here so the test is short; the defaults are 60 s each).
const METADATA_CACHE_TTL_MS = 1500;
const AVATAR_CACHE_TTL_MS = 1500;
const INGEST_TOKEN = 'replica-test-ingest-token-0123456789abcdef';

let chain: EnsChain;
let db: TestDatabase<MetadataDb>;
let redis: TestRedisServer;
let s3: TestS3Server;
let replicas: ServiceProcess[] = [];
let lb: TestHaproxy;
let alice: Wallet;
const avatarPath = (name: string) => `/profile/sepolia/${name}/avatar`;
const tokenPath = (name: string) => `/metadata/network/11155111/token/${tokenIdFromNamehash(namehash(name))}`;

beforeAll(async () => {
  if (!runs || !databaseUrl) return;
  chain = await startEnsChain({ chainId: 11155111 });
  db = await createTestDatabase<MetadataDb>({ url: databaseUrl });
  redis = await startRedisServer();
  s3 = await startS3Server();
  alice = walletOf(chain, 1);
  const env = processEnv(chain, db.url ?? '', {
    ...s3Env(s3),
    REDIS_URL: redis.url,
    // HAProxy on loopback sets X-Forwarded-For.
    TRUST_PROXY: 'loopback',
    // The contract's DELETE limit, not the suite's raised one.
    DELETE_RATE_LIMIT_PER_MINUTE: '10',
    // Both replicas' workers race to confirm pending uploads.
    PENDING_CHECK_INTERVAL_MS: '100',
    METADATA_CACHE_TTL_MS: String(METADATA_CACHE_TTL_MS),
    AVATAR_CACHE_TTL_MS: String(AVATAR_CACHE_TTL_MS),
    // image.* events stay in the outbox (nothing relays them: interval 0), where the test counts them.
    OFFCHAIN_URL: 'http://127.0.0.1:9',
    EVENTS_INGEST_TOKEN: INGEST_TOKEN,
    EVENTS_RELAY_INTERVAL_MS: '0',
  });
  // One at a time: both migrate the same database on start.
  replicas.push(await startServiceProcess('apps/metadata-svc/src/main.ts', env));
  replicas.push(await startServiceProcess('apps/metadata-svc/src/main.ts', env));
  lb = await startHaproxy(replicas.map((r) => r.url));
  for (const label of ['limit', 'nonce', 'pending', 'swap']) {
    await chain.ens.registerEthName(label, alice.address);
    // Wrapped, so token metadata finds the name on chain (NameWrapper names()).
    await chain.ens.wrapName(`${label}.eth`, alice.address);
    if (label !== 'pending') {
      await chain.ens.setText(
        `${label}.eth`,
        'avatar',
        stableImageUrl(BASE_URL, 'sepolia', `${label}.eth`, 'avatar'),
      );
    }
  }
}, 180_000);

afterAll(async () => {
  await lb?.stop();
  for (const replica of replicas) await replica.stop();
  replicas = [];
  await s3?.stop();
  await redis?.stop();
  await db?.close();
  await chain?.stop();
});

async function query<T>(text: string, values: unknown[]): Promise<T[]> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    return (await client.query(text, values)).rows as T[];
  } finally {
    await client.end();
  }
}

/** DELETE requests a replica has answered, from its /metrics. */
async function deletesServed(replica: ServiceProcess): Promise<number> {
  const text = (await request(replica.url).get('/metrics').expect(200)).text;
  let total = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('http_request_duration_seconds_count{') && line.includes('method="DELETE"')) {
      total += Number(line.split(' ').pop());
    }
  }
  return total;
}

describe('two replicas behind HAProxy sharing PostgreSQL, Redis and S3', () => {
  replicaIt('the DELETE limit of 10 per minute holds across both replicas', async () => {
    await upload(
      lb.url,
      avatarPath('limit.eth'),
      'avatar',
      await png(),
      await signedFields(lb.url, alice),
    ).expect(200);
    // Signed for real: the first one deletes the image, later ones find nothing (404); all count. The sign-ins
    // come first, so the DELETEs follow each other and HAProxy alternates them between the replicas.
    const signIns = [];
    for (let i = 0; i < 14; i++) signIns.push(await signedFields(lb.url, alice));
    const statuses: number[] = [];
    for (const fields of signIns) {
      const res = await request(lb.url).delete(avatarPath('limit.eth')).send(fields);
      expect(res.headers['content-type']).toMatch(/json/);
      statuses.push(res.status);
    }
    expect(statuses.slice(0, 10)).toEqual([200, ...Array<number>(9).fill(404)]);
    expect(statuses.slice(10)).toEqual([429, 429, 429, 429]);
    // HAProxy spread them: each replica answered some, so neither counted alone.
    const served = await Promise.all(replicas.map(deletesServed));
    expect(served.reduce((a, b) => a + b, 0)).toBe(14);
    for (const count of served) expect(count).toBeGreaterThanOrEqual(5);
  });

  replicaIt('one nonce used on both replicas at once succeeds exactly once', async () => {
    const nonce = await issueSignInNonce(lb.url, alice.address);
    const message = buildMessage(alice.address, nonce);
    const fields = {
      siweMessage: message,
      siweSignature: await signSignInMessage(alice, message),
      address: alice.address,
    };
    const image = await png(64, 64, '#00aa00');
    // Five uses per replica, all sent together, straight to the replicas.
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        upload(replicas[i % 2]?.url ?? '', avatarPath('nonce.eth'), 'avatar', image, fields),
      ),
    );
    const ok = results.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const refused of results.filter((r) => r.status !== 200)) {
      expect(refused.status).toBe(401);
      expect(refused.body.code).toBe('INVALID_NONCE');
    }
    const rows = await query<{ n: number }>(
      'SELECT count(*)::int AS n FROM metadata.images WHERE name = $1',
      ['nonce.eth'],
    );
    expect(rows[0]?.n).toBe(1);
  });

  replicaIt('a pending upload is confirmed once, though both replicas check it', async () => {
    const res = await upload(
      lb.url,
      avatarPath('pending.eth'),
      'avatar',
      await png(64, 64, '#aa0000'),
      await signedFields(lb.url, alice),
    ).expect(200);
    expect(res.body.pending).toBe(true);
    await chain.ens.setText(
      'pending.eth',
      'avatar',
      stableImageUrl(BASE_URL, 'sepolia', 'pending.eth', 'avatar'),
    );
    // Both workers (every 100 ms) and explicit confirmations through both replicas race to confirm it.
    const deadline = Date.now() + 15_000;
    while ((await request(lb.url).get(avatarPath('pending.eth'))).status !== 200) {
      if (Date.now() > deadline) throw new Error('the pending upload was not confirmed within 15 s');
      await Promise.all(replicas.map((r) => request(r.url).post(`${avatarPath('pending.eth')}/confirm`)));
    }
    // Let both workers run a few more times.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const events = await query<{ type: string }>(
      "SELECT type FROM metadata.metadata_event_outbox WHERE data->>'name' = $1 ORDER BY occurred_at",
      ['pending.eth'],
    );
    expect(events.map((e) => e.type)).toEqual(['image.pending', 'image.confirmed']);
    const rows = await query<{ status: string }>('SELECT status FROM metadata.images WHERE name = $1', [
      'pending.eth',
    ]);
    expect(rows).toEqual([{ status: 'confirmed' }]);
  });

  replicaIt(
    'an avatar replaced through one replica is seen through the other within the cache bound',
    async () => {
      const [first, second] = replicas;
      if (!first || !second) throw new Error('two replicas');
      const red = await png(64, 64, '#ff0000');
      const blue = await png(64, 64, '#0000ff');
      await upload(
        first.url,
        avatarPath('swap.eth'),
        'avatar',
        red,
        await signedFields(first.url, alice),
      ).expect(200);
      // The second replica renders (and caches) the token image and the avatar over the red upload.
      const metadata = await request(second.url).get(tokenPath('swap.eth')).expect(200);
      expect(metadata.body.image).toBe(`${BASE_URL}${tokenPath('swap.eth')}/image.png`);
      const redToken = (
        await request(second.url)
          .get(`${tokenPath('swap.eth')}/image.png`)
          .expect(200)
      ).headers.etag;
      const redAvatar = (await request(second.url).get('/sepolia/avatar/swap.eth').expect(200)).headers.etag;

      await upload(
        first.url,
        avatarPath('swap.eth'),
        'avatar',
        blue,
        await signedFields(first.url, alice),
      ).expect(200);
      const replacedAt = Date.now();
      // The stored image is read from the shared database and bucket: the other replica serves the new bytes at once.
      const stored = await request(second.url).get(avatarPath('swap.eth')).buffer(true).expect(200);
      expect(Buffer.compare(stored.body as Buffer, blue)).toBe(0);

      let tokenSeenAfter: number | undefined;
      let avatarSeenAfter: number | undefined;
      const bound = METADATA_CACHE_TTL_MS + AVATAR_CACHE_TTL_MS;
      while (tokenSeenAfter === undefined || avatarSeenAfter === undefined) {
        const elapsed = Date.now() - replacedAt;
        if (elapsed > bound + 3000) break;
        const token = await request(second.url)
          .get(`${tokenPath('swap.eth')}/image.png`)
          .expect(200);
        if (tokenSeenAfter === undefined && token.headers.etag !== redToken) tokenSeenAfter = elapsed;
        const avatar = await request(second.url).get('/sepolia/avatar/swap.eth').expect(200);
        if (avatarSeenAfter === undefined && avatar.headers.etag !== redAvatar) avatarSeenAfter = elapsed;
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      // Seen through the other replica, and no later than the documented bound (plus a poll on a loaded machine).
      expect(tokenSeenAfter).toBeLessThanOrEqual(bound + 1000);
      expect(avatarSeenAfter).toBeLessThanOrEqual(AVATAR_CACHE_TTL_MS + 1000);
      const metadataAfter = await request(second.url).get(tokenPath('swap.eth')).expect(200);
      expect(metadataAfter.body.image).toBe(metadata.body.image);
    },
  );
});
