/**
 * Redis crashing under two replicas that share rate limits through it, for real: the test's own redis-server is
 * killed with -9 and started again. What must survive: requests are served while it is down, each replica
 * still enforces the limit in its own process, and the shared limit holds across both once Redis is back.
 */
import type { Redis } from 'ioredis';
import request from 'supertest';
import { redisServerAvailable, startRedisServer, until, type TestRedisServer } from '@nrp/testkit';
import { closeRedis, createApp, createLogger, createRedisClient, defineRoute } from '../src';
import { z } from 'zod';

const LIMIT = 4;

/** A replica: its own app and Redis client, one route limited to LIMIT requests a minute for all clients. */
function replica(redis: Redis) {
  return createApp({
    service: 'redis-fault-test',
    version: '0',
    description: 'test',
    logger: createLogger('redis-fault-test', 'silent'),
    config: { CORS_ORIGINS: [], TRUST_PROXY: 'false', RATE_LIMIT_PER_MINUTE: 1000 },
    redis,
    routes: [
      defineRoute({
        method: 'get',
        path: '/limited',
        operationId: 'limited',
        budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
        summary: 'Limited',
        responses: { 200: { description: 'ok', schema: z.object({ ok: z.boolean() }) } },
        rateLimit: { name: 'limited', windowMs: 60_000, limit: LIMIT, key: () => 'everyone' },
        handler: () => ({ ok: true }),
      }),
    ],
  });
}

const statuses = async (app: ReturnType<typeof replica>, count: number) => {
  const out: number[] = [];
  for (let i = 0; i < count; i++) out.push((await request(app).get('/limited')).status);
  return out;
};

(redisServerAvailable() ? describe : describe.skip)(
  'Redis killed (-9) and restarted under two replicas',
  () => {
    let server: TestRedisServer;
    let clients: Redis[];

    beforeAll(async () => {
      server = await startRedisServer();
      const logger = createLogger('redis-fault-test', 'silent');
      clients = [createRedisClient(server.url, logger), createRedisClient(server.url, logger)];
      // Connected first: until then the store counts in the process.
      await until(() => clients.every((client) => client.status === 'ready'), 'the Redis clients to connect');
    });

    afterAll(async () => {
      for (const client of clients ?? []) await closeRedis(client);
      await server?.stop();
    });

    it('limits are shared, per process while Redis is down, and shared again when it is back', async () => {
      const [a, b] = clients.map(replica) as [ReturnType<typeof replica>, ReturnType<typeof replica>];

      // Shared: the two replicas draw on one budget.
      expect([...(await statuses(a, LIMIT / 2)), ...(await statuses(b, LIMIT / 2))]).toEqual(
        Array(LIMIT).fill(200),
      );
      expect(await statuses(b, 1)).toEqual([429]);
      expect(await statuses(a, 1)).toEqual([429]);

      await server.kill();
      // Down: still served, and each replica enforces the limit in its own process.
      const started = Date.now();
      expect(await statuses(a, LIMIT + 1)).toEqual([...Array(LIMIT).fill(200), 429]);
      expect(await statuses(b, LIMIT + 1)).toEqual([...Array(LIMIT).fill(200), 429]);
      // No request waited for Redis to come back.
      expect((Date.now() - started) / (2 * (LIMIT + 1))).toBeLessThan(3000);

      // Back (empty): the replicas share one budget again, with no restart of either.
      await server.restart();
      await until(() => clients.every((client) => client.status === 'ready'), 'the Redis clients to connect');
      expect([...(await statuses(a, LIMIT / 2)), ...(await statuses(b, LIMIT / 2))]).toEqual(
        Array(LIMIT).fill(200),
      );
      expect(await statuses(a, 1)).toEqual([429]);
      expect(await statuses(b, 1)).toEqual([429]);
      expect(Number(await clients[0]?.get('rl:redis-fault-test:limited:everyone'))).toBeGreaterThanOrEqual(
        LIMIT,
      );
    }, 60_000);
  },
);
