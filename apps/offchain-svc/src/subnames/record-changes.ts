import type { Redis } from 'ioredis';
import type { Logger } from '@nrp/server';

/** What drops cached answers: an `AnswerCache`. */
export interface Invalidatable {
  invalidate(tags: Iterable<string>): void;
  clear(): void;
}

/** Tells every replica's caches that subname records changed. */
export interface RecordChanges {
  /**
   * Drops the cached answers tagged with `tags` (full names and namehashes) in this replica at once, and in every
   * other replica through Redis when it is configured. Never rejects: a lost message is bounded by the caches' TTL.
   */
  changed(tags: string[]): Promise<void>;
}

const CHANNEL = 'offchain-svc:records-changed';

/**
 * The record-change bus of `caches`: local only, or with `redis` a Redis pub/sub channel on which every replica
 * publishes what it wrote and drops what the others wrote. The subscriber connection is a duplicate of `redis`;
 * whenever it (re)connects, messages may have been missed, so the caches are cleared. Its close is appended to
 * `onShutdown`.
 */
export function recordChanges(
  caches: Invalidatable[],
  logger: Logger,
  redis: Redis | undefined,
  onShutdown: Array<() => Promise<void>>,
): RecordChanges {
  const drop = (tags: string[]) => {
    for (const cache of caches) cache.invalidate(tags);
  };
  if (!redis) return { changed: async (tags) => drop(tags) };

  const subscriber = redis.duplicate();
  subscriber.on('error', (err: unknown) =>
    logger.warn({ err: err instanceof Error ? err.message : String(err) }, 'redis subscriber error'),
  );
  subscriber.on('ready', () => {
    for (const cache of caches) cache.clear();
  });
  subscriber.on('message', (_channel: string, message: string) => {
    try {
      const tags: unknown = JSON.parse(message);
      if (Array.isArray(tags)) drop(tags.filter((t): t is string => typeof t === 'string'));
    } catch (err) {
      logger.warn({ err }, 'unreadable record-change message; clearing the caches');
      for (const cache of caches) cache.clear();
    }
  });
  subscriber
    .subscribe(CHANNEL)
    .catch((err: unknown) => logger.warn({ err }, 'record-change subscribe failed'));
  onShutdown.push(async () => {
    subscriber.disconnect();
  });

  return {
    async changed(tags) {
      drop(tags);
      try {
        await redis.publish(CHANNEL, JSON.stringify(tags));
      } catch (err) {
        logger.warn(
          { err },
          'record-change publish failed; other replicas serve cached answers until they expire',
        );
      }
    },
  };
}
