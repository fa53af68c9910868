import { AbiCoder, Wallet } from 'ethers';
import { Redis } from 'ioredis';
import { sql } from 'kysely';
import request from 'supertest';
import { resolverInterface } from '@nrp/chain';
import { dnsEncode, namehash } from '@nrp/ens';
import { createTestDatabase } from '@nrp/testkit/src/database';
import { startTestService } from '@nrp/testkit/src/test-service';
import { configSchema } from '../src/config';
import { issueApiKey } from '../src/keys/api-keys';
import { PGLITE_EXTENSIONS, type OffchainDatabaseHandle } from '../src/data/database';
import type { OffchainDatabase } from '../src/data/schema';
import { createService } from '../src/service';

const SIGNER = new Wallet('0x' + '5a'.repeat(32));
const SENDER = '0x' + '0f'.repeat(20);
const PARENT = 'cache.eth';
const coder = AbiCoder.defaultAbiCoder();
const CHANNEL = 'offchain-svc:records-changed';

function lookupPath(name: string, key: string): string {
  const inner = resolverInterface.encodeFunctionData('text', [namehash(name), key]);
  const callData = resolverInterface.encodeFunctionData('resolve', [dnsEncode(name), inner]);
  return `/api/v1/gateway/${SENDER}/${callData}.json`;
}

interface Replica {
  app: Parameters<typeof request>[0];
  context: Awaited<ReturnType<typeof createService>>['context'];
  close(): Promise<void>;
}

/** A replica of the service on `db` (shared by the replicas of a test, closed by the test). */
async function startReplica(db: OffchainDatabaseHandle, env: Record<string, string> = {}): Promise<Replica> {
  const service = await startTestService({
    createService,
    configSchema,
    env: {
      RATE_LIMIT_PER_MINUTE: '100000',
      GATEWAY_SIGNER_KEY: SIGNER.privateKey,
      ANSWER_CACHE_SECONDS: '2',
      ...env,
    },
    overrides: { database: db },
  });
  return { app: service.app, context: service.context, close: service.close };
}

async function textOf(replica: Replica, name: string, key: string): Promise<string> {
  const res = await request(replica.app).get(lookupPath(name, key)).expect(200);
  const [result] = coder.decode(['bytes', 'uint64', 'bytes'], res.body.data as string);
  return resolverInterface.decodeFunctionResult('text', result as string)[0] as string;
}

/** Changes a record behind the service's back: no write path runs, so nothing is invalidated. */
async function setTextDirectly(db: OffchainDatabaseHandle, name: string, value: string): Promise<void> {
  await sql`UPDATE offchain_subnames SET texts = ${JSON.stringify({ avatar: value })}::jsonb
    WHERE full_name = ${name}`.execute(db.db);
}

describe('offchain-svc answer caches: gateway answers and subname reads', () => {
  let db: OffchainDatabaseHandle;
  let svc: Replica;
  let apiKey: string;
  const write = (label: string, avatar: string) =>
    request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', apiKey)
      .send({ parentName: PARENT, label, texts: [{ key: 'avatar', value: avatar }] });

  beforeAll(async () => {
    db = await createTestDatabase<OffchainDatabase>({ poolMax: 20, pgliteExtensions: PGLITE_EXTENSIONS });
    svc = await startReplica(db);
    apiKey = (await issueApiKey(db, [PARENT])).key;
  });

  afterAll(async () => {
    await svc?.close();
    await db?.close();
  });

  it('serves an answer already given from the cache, stale for at most ANSWER_CACHE_SECONDS (2 s here)', async () => {
    const name = `stale.${PARENT}`;
    const other = `stale2.${PARENT}`;
    // A second replica without Redis: a write on the first reaches its cache only when the entry expires.
    const replicaB = await startReplica(db);
    const textOn = async (replica: Replica, subname: string) => ({
      lookup: await textOf(replica, subname, 'avatar'),
      read: (await request(replica.app).get(`/api/v1/subnames/${subname}`).expect(200)).body.texts.avatar,
    });
    try {
      await write('stale', 'one').expect(201);
      await write('stale2', 'one').expect(201);
      // Each entry is cached just before its record changes, and read again at once: stale.
      expect(await textOn(svc, name)).toEqual({ lookup: 'one', read: 'one' });
      await setTextDirectly(db, name, 'two');
      expect(await textOn(svc, name)).toEqual({ lookup: 'one', read: 'one' });
      expect(await textOn(replicaB, other)).toEqual({ lookup: 'one', read: 'one' });
      await write('stale2', 'two').expect(200);
      expect(await textOn(replicaB, other)).toEqual({ lookup: 'one', read: 'one' });
      const cachedAt = Date.now();
      expect(await textOn(svc, other)).toEqual({ lookup: 'two', read: 'two' });
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, cachedAt + 2100 - Date.now())));
      expect(await textOn(svc, name)).toEqual({ lookup: 'two', read: 'two' });
      expect(await textOn(replicaB, other)).toEqual({ lookup: 'two', read: 'two' });
    } finally {
      await replicaB.close();
    }
  });

  it('a committed write (create, update, bulk, delete) is seen by the next read at once', async () => {
    const name = `fresh.${PARENT}`;
    const node = namehash(name);
    const byName = () => request(svc.app).get(`/api/v1/subnames/${name}`);
    const byNamehash = () => request(svc.app).get(`/api/v1/subnames/namehash/${node}`);
    // Misses are cached too: the create must drop them.
    expect(await textOf(svc, name, 'avatar')).toBe('');
    await byName().expect(404);
    await byNamehash().expect(404);
    await write('fresh', 'one').expect(201);
    expect(await textOf(svc, name, 'avatar')).toBe('one');
    expect((await byNamehash().expect(200)).body.texts.avatar).toBe('one');
    await write('fresh', 'two').expect(200);
    expect(await textOf(svc, name, 'avatar')).toBe('two');
    expect((await byName().expect(200)).body.texts.avatar).toBe('two');
    expect((await byNamehash().expect(200)).body.texts.avatar).toBe('two');
    await request(svc.app)
      .post('/api/v1/subnames/bulk')
      .set('x-auth-token', apiKey)
      .send({ items: [{ parentName: PARENT, label: 'fresh', texts: [{ key: 'avatar', value: 'three' }] }] })
      .expect(200);
    expect(await textOf(svc, name, 'avatar')).toBe('three');
    expect((await byName().expect(200)).body.texts.avatar).toBe('three');
    await request(svc.app).delete(`/api/v1/subnames/${name}`).set('x-auth-token', apiKey).expect(204);
    expect(await textOf(svc, name, 'avatar')).toBe('');
    await byName().expect(404);
    await byNamehash().expect(404);
  });

  it('a write that fails to commit drops nothing', async () => {
    const name = `failing.${PARENT}`;
    await write('failing', 'one').expect(201);
    expect(await textOf(svc, name, 'avatar')).toBe('one');
    await setTextDirectly(db, name, 'behind');
    // Fails at COMMIT, after the write and its event were recorded in the transaction.
    await sql`CREATE FUNCTION refuse_doomed() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN IF NEW.texts->>'avatar' = 'doomed' THEN RAISE EXCEPTION 'refused at commit'; END IF; RETURN NEW; END $$`.execute(
      db.db,
    );
    await sql`CREATE CONSTRAINT TRIGGER refuse_doomed AFTER INSERT OR UPDATE ON offchain_subnames
      DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION refuse_doomed()`.execute(db.db);
    try {
      const failed = await write('failing', 'doomed');
      expect(failed.status).toBeGreaterThanOrEqual(500);
    } finally {
      await sql`DROP TRIGGER refuse_doomed ON offchain_subnames`.execute(db.db);
      await sql`DROP FUNCTION refuse_doomed()`.execute(db.db);
    }
    // Still the cached answer: the failed write invalidated nothing (the database says 'behind').
    expect(await textOf(svc, name, 'avatar')).toBe('one');
  });

  it('callData that fails to decode is not cached', async () => {
    const before = svc.context.caches.gateway.size;
    const bad = resolverInterface.encodeFunctionData('resolve', ['0x05', '0x3b3b57de']);
    for (let i = 0; i < 3; i++) {
      await request(svc.app).get(`/api/v1/gateway/${SENDER}/${bad}.json`).expect(400);
    }
    expect(svc.context.caches.gateway.size).toBe(before);
  });
});

describe('a flood of distinct callData', () => {
  it('does not evict the answers in use, nor grow the cache past ANSWER_CACHE_MB', async () => {
    const db = await createTestDatabase<OffchainDatabase>({ pgliteExtensions: PGLITE_EXTENSIONS });
    const svc = await startReplica(db, { ANSWER_CACHE_MB: '1', ANSWER_CACHE_SECONDS: '120' });
    try {
      const apiKey = (await issueApiKey(db, [PARENT])).key;
      const name = `hot.${PARENT}`;
      await request(svc.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', apiKey)
        .send({ parentName: PARENT, label: 'hot', texts: [{ key: 'avatar', value: 'hot' }] })
        .expect(201);
      expect(await textOf(svc, name, 'avatar')).toBe('hot');
      expect(await textOf(svc, name, 'avatar')).toBe('hot'); // asked again: kept
      await setTextDirectly(db, name, 'evicted');
      // A 4 KB text key makes an entry of ~17 KB: 150 distinct answers are twice the whole cache.
      for (let i = 0; i < 150; i++) {
        await request(svc.app)
          .get(lookupPath(`n${i}.${PARENT}`, `${i}-`.padEnd(4096, 'k')))
          .expect(200);
      }
      expect(svc.context.caches.gateway.bytes).toBeLessThanOrEqual(1024 * 1024);
      expect(await textOf(svc, name, 'avatar')).toBe('hot');
    } finally {
      await svc.close();
      await db.close();
    }
  }, 60_000);
});

(process.env.REDIS_URL ? describe : describe.skip)('two replicas with Redis', () => {
  it('a write on one is seen by the next lookup on the other', async () => {
    const db = await createTestDatabase<OffchainDatabase>({
      poolMax: 20,
      pgliteExtensions: PGLITE_EXTENSIONS,
    });
    const env = { REDIS_URL: process.env.REDIS_URL ?? '', ANSWER_CACHE_SECONDS: '120' };
    const redis = new Redis(process.env.REDIS_URL ?? '');
    const subscribers = async () => Number(((await redis.pubsub('NUMSUB', CHANNEL)) as [string, number])[1]);
    const before = await subscribers();
    const a = await startReplica(db, env);
    const b = await startReplica(db, env);
    try {
      // Both replicas subscribed before the first write.
      while ((await subscribers()) < before + 2) await new Promise((resolve) => setTimeout(resolve, 20));
      const apiKey = (await issueApiKey(db, [PARENT])).key;
      const label = `r${Date.now()}`;
      const name = `${label}.${PARENT}`;
      const post = (replica: Replica, avatar: string) =>
        request(replica.app)
          .post('/api/v1/subnames')
          .set('x-auth-token', apiKey)
          .send({ parentName: PARENT, label, texts: [{ key: 'avatar', value: avatar }] });
      await post(a, 'one').expect(201);
      expect(await textOf(b, name, 'avatar')).toBe('one');
      expect((await request(b.app).get(`/api/v1/subnames/${name}`).expect(200)).body.texts.avatar).toBe(
        'one',
      );
      await post(a, 'two').expect(200);
      expect(await textOf(b, name, 'avatar')).toBe('two');
      expect((await request(b.app).get(`/api/v1/subnames/${name}`).expect(200)).body.texts.avatar).toBe(
        'two',
      );
      await request(b.app).delete(`/api/v1/subnames/${name}`).set('x-auth-token', apiKey).expect(204);
      expect(await textOf(a, name, 'avatar')).toBe('');
      await request(a.app).get(`/api/v1/subnames/${name}`).expect(404);
    } finally {
      await a.close();
      await b.close();
      await db.close();
      redis.disconnect();
    }
  });
});
