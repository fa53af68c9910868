/**
 * Redis crashing under two replicas' result caches, for real: the test's own redis-server is killed with -9 and
 * started again, with the services' own Redis client settings. What must survive: lookups are answered while it
 * is down (from this process's memory, else upstream), and a replica answers from the other's entries again once
 * it is back, with no restart.
 */
import type { Redis } from 'ioredis';
import { closeRedis, createLogger, createRedisClient } from '@nrp/server';
import { redisServerAvailable, startRedisServer, until, type TestRedisServer } from '@nrp/testkit';
import { ResultCache } from '../src/resolution/cache';

const TTL_MS = 60_000;

(redisServerAvailable() ? describe : describe.skip)(
  'result cache with Redis killed (-9) and restarted',
  () => {
    let server: TestRedisServer;
    let clients: Redis[];
    let replicas: [ResultCache, ResultCache];

    beforeAll(async () => {
      server = await startRedisServer();
      const logger = createLogger('redis-fault-test', 'silent');
      clients = [createRedisClient(server.url, logger), createRedisClient(server.url, logger)];
      await until(() => clients.every((client) => client.status === 'ready'), 'the Redis clients to connect');
      replicas = clients.map(
        (redis) => new ResultCache({ maxEntries: 100, redis, prefix: 'cache:', logger }),
      ) as [ResultCache, ResultCache];
    });

    afterAll(async () => {
      for (const client of clients ?? []) await closeRedis(client);
      await server?.stop();
    });

    it('serves from memory or upstream while Redis is down, and shares entries again when it is back', async () => {
      const [a, b] = replicas;
      const upstream = (value: string) => async () => value;

      expect(await a.get('before', TTL_MS, upstream('one'))).toMatchObject({
        value: 'one',
        source: 'upstream',
      });
      expect(await b.get('before', TTL_MS, upstream('other'))).toMatchObject({
        value: 'one',
        source: 'redis',
      });

      await server.kill();
      // Down: what this process holds is still served, anything else is resolved upstream; nothing fails.
      expect(await a.get('before', TTL_MS, upstream('other'))).toMatchObject({
        value: 'one',
        source: 'memory',
      });
      expect(await a.get('during', TTL_MS, upstream('two'))).toMatchObject({
        value: 'two',
        source: 'upstream',
      });
      expect(await a.get('during', TTL_MS, upstream('other'))).toMatchObject({
        value: 'two',
        source: 'memory',
      });
      expect(await b.get('during', TTL_MS, upstream('three'))).toMatchObject({
        value: 'three',
        source: 'upstream',
      });

      // Back (empty): one replica's answer is the other's again, with no restart of either.
      await server.restart();
      await until(() => clients.every((client) => client.status === 'ready'), 'the Redis clients to connect');
      expect(await a.get('after', TTL_MS, upstream('four'))).toMatchObject({
        value: 'four',
        source: 'upstream',
      });
      expect(await b.get('after', TTL_MS, upstream('other'))).toMatchObject({
        value: 'four',
        source: 'redis',
      });
    }, 60_000);
  },
);
