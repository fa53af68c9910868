import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import request from 'supertest';
import { createLogger } from '@nrp/server';
import { ResultCache } from '../src/resolution/cache';
import {
  startResolverService,
  startResolverFixture,
  type ResolverFixture,
  type ResolverService,
} from '../dev/fixture';

let fx: ResolverFixture;
let svc: ResolverService;

beforeAll(async () => {
  fx = await startResolverFixture();
  svc = await startResolverService(fx.env());
});
afterAll(async () => {
  await svc?.close();
  await fx?.stop();
});
beforeEach(() => fx.proxy.reset());

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('RPC round trips', () => {
  it('a cold profile is one eth_call, a warm one none', async () => {
    const cold = await request(svc.app).get('/ens/v2/profile/alice.eth?contenthash=true').expect(200);
    expect(fx.proxy.methods()).toEqual(['eth_call']);
    fx.proxy.reset();
    const warm = await request(svc.app).get('/ens/v2/profile/alice.eth?contenthash=true').expect(200);
    expect(fx.proxy.requests()).toBe(0);
    expect(warm.body).toEqual(cold.body);
    expect(warm.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
  });

  it('a cold CCIP-Read profile is two eth_calls (lookup and callback) and one gateway request', async () => {
    const gatewayBefore = fx.gateway.requestCount();
    await request(svc.app).get('/ens/v2/profile/bob.offchain.eth?contenthash=true').expect(200);
    expect(fx.proxy.methods()).toEqual(['eth_call', 'eth_call']);
    expect(fx.gateway.requestCount() - gatewayBefore).toBe(1);
  });

  it('100 concurrent identical cold requests share one upstream call', async () => {
    const responses = await Promise.all(
      Array.from({ length: 100 }, () => request(svc.app).get('/ens/v2/profile/noresolver.eth?texts=avatar')),
    );
    expect(responses.every((r) => r.status === 200)).toBe(true);
    expect(new Set(responses.map((r) => JSON.stringify(r.body))).size).toBe(1);
    expect(fx.proxy.requests()).toBe(1);
  });

  it('a cold reverse profile is the reverse call plus one forward call', async () => {
    await request(svc.app).get(`/ens/v2/reverse/${fx.accounts.alice}/profile?texts=url`).expect(200);
    expect(fx.proxy.methods()).toEqual(['eth_call', 'eth_call']);
  });
});

describe('conditional requests', () => {
  it('a warm answer carries a weak ETag and If-None-Match answers 304', async () => {
    const first = await request(svc.app).get('/ens/v2/texts/alice.eth?keys=avatar').expect(200);
    expect(first.headers.etag).toMatch(/^W\/"[0-9a-f]+-[A-Za-z0-9+/]{27}"$/);
    const second = await request(svc.app).get('/ens/v2/texts/alice.eth?keys=avatar').expect(200);
    expect(second.headers.etag).toBe(first.headers.etag);
    expect(second.text).toBe(first.text);
    await request(svc.app)
      .get('/ens/v2/texts/alice.eth?keys=avatar')
      .set('If-None-Match', String(first.headers.etag))
      .expect(304);
    const other = await request(svc.app)
      .get('/ens/v2/profile/alice.eth?texts=avatar&addresses=eth')
      .expect(200);
    expect(other.headers.etag).not.toBe(first.headers.etag);
  });
});

describe('freshness', () => {
  it('serves the cached answer until noCache=true refreshes it', async () => {
    await request(svc.app).get('/ens/v2/texts/alice.eth?keys=url').expect(200);
    await fx.chain.ens.setText('alice.eth', 'url', 'https://alice.example');
    const cached = await request(svc.app).get('/ens/v2/texts/alice.eth?keys=url').expect(200);
    expect(cached.body.texts).toEqual([{ key: 'url', exists: false, value: '' }]);

    fx.proxy.reset();
    const fresh = await request(svc.app).get('/ens/v2/texts/alice.eth?keys=url&noCache=true').expect(200);
    expect(fresh.body.texts).toEqual([{ key: 'url', exists: true, value: 'https://alice.example' }]);
    expect(fx.proxy.requests()).toBe(1);
    expect(fresh.headers['cache-control']).toMatch(/^public, max-age=(29\d|300)$/);

    fx.proxy.reset();
    const after = await request(svc.app).get('/ens/v2/texts/alice.eth?keys=url').expect(200);
    expect(after.body).toEqual(fresh.body);
    expect(fx.proxy.requests()).toBe(0);
  });

  it('noCache=true on the reverse profile refreshes the reverse lookup too', async () => {
    const { nobody } = fx.accounts;
    const before = await request(svc.app).get(`/ens/v2/reverse/${nobody}/profile`).expect(200);
    expect(before.body.hasReverseRecord).toBe(false);
    await fx.chain.ens.registerEthName('nobody1', nobody);
    await fx.chain.ens.setAddr('nobody1.eth', nobody);
    await fx.chain.ens.setReverseName(nobody, 'nobody1.eth');
    const cached = await request(svc.app).get(`/ens/v2/reverse/${nobody}/profile`).expect(200);
    expect(cached.body.hasReverseRecord).toBe(false);
    const fresh = await request(svc.app).get(`/ens/v2/reverse/${nobody}/profile?noCache=true`).expect(200);
    expect(fresh.body).toMatchObject({ hasReverseRecord: true, name: 'nobody1.eth' });
    const after = await request(svc.app).get(`/ens/v2/reverse/${nobody}/profile`).expect(200);
    expect(after.body.name).toBe('nobody1.eth');
  });

  it('TTLs come from config: an entry expires after FORWARD_CACHE_TTL_SECONDS', async () => {
    const short = await startResolverService(
      fx.env({ FORWARD_CACHE_TTL_SECONDS: '1', CACHE_REDIS_PREFIX: `${Date.now()}-short:` }),
    );
    try {
      const first = await request(short.app).get('/ens/v2/texts/alice.eth?keys=name').expect(200);
      expect(first.headers['cache-control']).toMatch(/^(public, max-age=[01]|no-cache)$/);
      fx.proxy.reset();
      await request(short.app).get('/ens/v2/texts/alice.eth?keys=name').expect(200);
      expect(fx.proxy.requests()).toBe(0);
      await sleep(1100);
      await request(short.app).get('/ens/v2/texts/alice.eth?keys=name').expect(200);
      expect(fx.proxy.requests()).toBe(1);
    } finally {
      await short.close();
    }
  });

  it('noCache=true requests share a stricter per-IP limit across routes; cached requests do not count', async () => {
    const limited = await startResolverService(
      fx.env({
        NO_CACHE_RATE_LIMIT_PER_MINUTE: '2',
        TRUST_PROXY: '1',
        CACHE_REDIS_PREFIX: `${Date.now()}-nc:`,
      }),
    );
    // A client address of its own (IPv6 keys are grouped by /56), so counters shared through Redis start at 0.
    const client = `2001:db8:${randomBytes(4)
      .toString('hex')
      .replace(/(.{4})/, '$1:')}::1`;
    try {
      const get = (path: string) => request(limited.app).get(path).set('X-Forwarded-For', client);
      await get('/ens/v2/texts/alice.eth?keys=name&noCache=true').expect(200);
      await get('/ens/v2/profile/alice.eth?noCache=1').expect(200);
      const refused = await get('/ens/v2/addresses/alice.eth?noCache=true').expect(429);
      expect(refused.body.code).toBe('RATE_LIMITED');
      expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
      await get('/ens/v2/texts/alice.eth?keys=name').expect(200);
      await get('/ens/v2/addresses/alice.eth').expect(200);
    } finally {
      await limited.close();
    }
  });

  it('a TTL of 0 disables caching', async () => {
    const off = await startResolverService(
      fx.env({ FORWARD_CACHE_TTL_SECONDS: '0', CACHE_REDIS_PREFIX: `${Date.now()}-off:` }),
    );
    try {
      const res = await request(off.app).get('/ens/v2/texts/alice.eth?keys=name').expect(200);
      expect(res.headers['cache-control']).toBe('no-cache');
      await request(off.app).get('/ens/v2/texts/alice.eth?keys=name').expect(200);
      expect(fx.proxy.requests()).toBe(2);
    } finally {
      await off.close();
    }
  });
});

describe('shared Redis cache', () => {
  const withRedis = process.env.REDIS_URL ? it : it.skip;

  withRedis('a second replica answers from Redis without an RPC call', async () => {
    const redis = fx.redis;
    if (!redis) throw new Error('REDIS_URL is set but the fixture has no Redis');
    await request(svc.app).get('/ens/v2/texts/alice.eth?keys=location').expect(200);
    const keys = await redis.client.keys(`${redis.prefix}*`);
    expect(keys.some((k) => k.includes(':fwd:alice.eth:'))).toBe(true);

    await fx.chain.ens.setText('alice.eth', 'location', 'Wonderland');
    const replica = await startResolverService(fx.env());
    try {
      fx.proxy.reset();
      const res = await request(replica.app).get('/ens/v2/texts/alice.eth?keys=location').expect(200);
      expect(res.body.texts).toEqual([{ key: 'location', exists: false, value: '' }]);
      expect(fx.proxy.requests()).toBe(0);
      expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
      // noCache on one replica refreshes the shared entry for the others
      await request(replica.app).get('/ens/v2/texts/alice.eth?keys=location&noCache=true').expect(200);
      const third = await startResolverService(fx.env());
      try {
        const shared = await request(third.app).get('/ens/v2/texts/alice.eth?keys=location').expect(200);
        expect(shared.body.texts[0].value).toBe('Wonderland');
      } finally {
        await third.close();
      }
    } finally {
      await replica.close();
    }
  });

  it('a Redis that is down only costs the shared layer', async () => {
    const down = new Redis('redis://127.0.0.1:1', {
      maxRetriesPerRequest: 0,
      commandTimeout: 500,
      retryStrategy: () => null,
    });
    down.on('error', () => undefined);
    const warnings: string[] = [];
    const logger = createLogger('cache-test', 'warn');
    logger.warn = ((_obj: unknown, msg?: string) => warnings.push(String(msg))) as typeof logger.warn;
    const cache = new ResultCache({ maxEntries: 10, redis: down, prefix: 'x:', logger });
    try {
      const first = await cache.get('k', 60_000, async () => 'value');
      expect(first).toMatchObject({ value: 'value', source: 'upstream' });
      const second = await cache.get('k', 60_000, async () => 'other');
      expect(second).toMatchObject({ value: 'value', source: 'memory' });
      expect(warnings).toEqual(
        expect.arrayContaining([expect.stringMatching(/redis cache (read|write) failed/)]),
      );
    } finally {
      down.disconnect();
    }
  });
});
