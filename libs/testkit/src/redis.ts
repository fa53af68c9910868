import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

export interface TestRedis {
  /** A connected client. Keys are NOT prefixed automatically: build them with `prefix`. */
  client: Redis;
  /** Unique per call, ends with ':' (e.g. `test:lq3k2f:9a8b7c6d:`). */
  prefix: string;
  /** Deletes every key under `prefix`, then disconnects. */
  close(): Promise<void>;
}

/**
 * With REDIS_URL set (or `url` given): a connected ioredis client and a unique key prefix for the caller
 * (one per test file). Without: undefined, so callers fall back to their in-memory implementation.
 */
export async function createTestRedis(url = process.env.REDIS_URL): Promise<TestRedis | undefined> {
  if (!url) return undefined;
  const client = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  const prefix = `test:${Date.now().toString(36)}:${randomBytes(4).toString('hex')}:`;
  let closed = false;
  return {
    client,
    prefix,
    close: async () => {
      if (closed) return;
      closed = true;
      try {
        await deleteByPrefix(client, prefix);
      } finally {
        await client.quit();
      }
    },
  };
}

/** Alias kept for callers that only care about the prefix. */
export const createTestRedisPrefix = createTestRedis;

/** Deletes all keys starting with `prefix` (SCAN, so it never blocks the server). Returns how many. */
export async function deleteByPrefix(client: Redis, prefix: string): Promise<number> {
  const pattern = `${prefix.replace(/[*?[\]\\]/g, '\\$&')}*`;
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', pattern, 'COUNT', 500);
    cursor = next;
    if (keys.length > 0) deleted += await client.unlink(...keys);
  } while (cursor !== '0');
  return deleted;
}
