import { Redis, type RedisOptions } from 'ioredis';
import type { Logger } from './logger';

/**
 * The options every service's Redis client uses: it connects at once, keeps commands issued while it reconnects
 * in a queue, but fails each of them after one reconnection attempt (or `commandTimeout`), so a request never waits
 * long on a Redis that is down: the rate limiter lets it through and caches fall back to memory.
 */
export const REDIS_CLIENT_OPTIONS: RedisOptions = {
  lazyConnect: false,
  enableOfflineQueue: true,
  maxRetriesPerRequest: 1,
  commandTimeout: 1000,
  connectTimeout: 5000,
};

/** An ioredis client on `url` whose `error` events are logged (at warn), never thrown. */
export function createRedisClient(url: string, logger: Logger, options: RedisOptions = {}): Redis {
  const client = new Redis(url, { ...REDIS_CLIENT_OPTIONS, ...options });
  client.on('error', (err: unknown) =>
    logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'redis error'),
  );
  return client;
}

/** Closes the client: QUIT when it can, otherwise drops the connection. Never rejects. */
export async function closeRedis(client: Redis): Promise<void> {
  if (client.status === 'end') return;
  // QUIT only on a live connection: queued behind a reconnection it would wait for Redis to come back.
  if (client.status === 'ready') {
    const quit = await client.quit().then(
      () => true,
      () => false,
    );
    if (quit) return;
  }
  client.disconnect();
}

/**
 * The service's Redis client from REDIS_URL, or undefined when it is unset. Its close is appended to
 * `onShutdown`, so it runs after the server has drained.
 */
export function redisFromConfig(
  config: { REDIS_URL?: string },
  logger: Logger,
  onShutdown: Array<() => Promise<void>>,
): Redis | undefined {
  if (!config.REDIS_URL) return undefined;
  const client = createRedisClient(config.REDIS_URL, logger);
  onShutdown.push(() => closeRedis(client));
  return client;
}
