/**
 * Read-through cache of resolution results: an in-process LRU in front of an optional shared Redis, with
 * single-flight (concurrent identical lookups share one upstream call). Failures are never cached; a Redis that
 * fails or is slow only costs the shared layer, never the request.
 */
import type { Redis } from 'ioredis';
import { LRUCache } from 'lru-cache';
import type { Logger } from '@nrp/server';

export interface CacheEntry<T> {
  value: T;
  /** Unix ms when the entry stops being fresh. */
  expiresAt: number;
}

export type CacheSource = 'memory' | 'redis' | 'upstream';

export interface CacheResult<T> extends CacheEntry<T> {
  source: CacheSource;
}

export interface ResultCacheOptions {
  maxEntries: number;
  redis?: Redis;
  /** Prefix of every Redis key. */
  prefix: string;
  logger: Logger;
  now?: () => number;
  /** Told where each non-fresh lookup was answered from (cache metrics; callers joining a flight are not). */
  onLookup?: (source: CacheSource) => void;
}

function isEntry(value: unknown): value is CacheEntry<unknown> {
  return (
    typeof value === 'object' &&
    value !== null &&
    'value' in value &&
    typeof (value as { expiresAt?: unknown }).expiresAt === 'number'
  );
}

export class ResultCache {
  private readonly memory: LRUCache<string, CacheEntry<unknown>>;
  private readonly flights = new Map<string, Promise<CacheResult<unknown>>>();
  private readonly redis: Redis | undefined;
  private readonly prefix: string;
  private readonly logger: Logger;
  private readonly now: () => number;
  private readonly onLookup: (source: CacheSource) => void;

  constructor(options: ResultCacheOptions) {
    this.memory = new LRUCache({ max: options.maxEntries });
    this.redis = options.redis;
    this.prefix = options.prefix;
    this.logger = options.logger;
    this.now = options.now ?? Date.now;
    this.onLookup = options.onLookup ?? (() => undefined);
  }

  /**
   * The fresh cached value of `key`, else `load()` (stored for `ttlMs`). `fresh: true` skips both cache layers
   * and stores the new value. Concurrent calls with the same key and `fresh` share one `load()`.
   */
  get<T>(key: string, ttlMs: number, load: () => Promise<T>, fresh = false): Promise<CacheResult<T>> {
    if (!fresh) {
      const hit = this.peek<T>(key);
      if (hit) return Promise.resolve(hit);
    }
    const flightKey = `${fresh ? 'fresh' : 'read'}:${key}`;
    const inFlight = this.flights.get(flightKey);
    if (inFlight) return inFlight as Promise<CacheResult<T>>;
    const flight = this.fill(key, ttlMs, load, fresh).finally(() => this.flights.delete(flightKey));
    this.flights.set(flightKey, flight);
    return flight;
  }

  /**
   * The fresh value of `key` in process memory, without waiting: a warm answer is sent in the request's own tick.
   * A miss is not counted (the `get` that follows counts it).
   */
  peek<T>(key: string): CacheResult<T> | undefined {
    const hit = this.memory.get(key);
    if (!hit || hit.expiresAt <= this.now()) return undefined;
    this.onLookup('memory');
    return { value: hit.value as T, expiresAt: hit.expiresAt, source: 'memory' };
  }

  /** Number of lookups in flight (for tests and metrics). */
  get inFlight(): number {
    return this.flights.size;
  }

  clearMemory(): void {
    this.memory.clear();
  }

  private async fill<T>(
    key: string,
    ttlMs: number,
    load: () => Promise<T>,
    fresh: boolean,
  ): Promise<CacheResult<T>> {
    if (!fresh) {
      const shared = await this.readShared(key);
      if (shared) {
        this.memory.set(key, shared, { ttl: Math.max(1, shared.expiresAt - this.now()) });
        this.onLookup('redis');
        return { value: shared.value as T, expiresAt: shared.expiresAt, source: 'redis' };
      }
    }
    if (!fresh) this.onLookup('upstream');
    const value = await load();
    const expiresAt = this.now() + ttlMs;
    if (ttlMs > 0) {
      const entry: CacheEntry<T> = { value, expiresAt };
      this.memory.set(key, entry, { ttl: ttlMs });
      await this.writeShared(key, entry, ttlMs);
    }
    return { value, expiresAt, source: 'upstream' };
  }

  private async readShared(key: string): Promise<CacheEntry<unknown> | undefined> {
    if (!this.redis) return undefined;
    try {
      const raw = await this.redis.get(this.prefix + key);
      if (raw === null) return undefined;
      const parsed: unknown = JSON.parse(raw);
      return isEntry(parsed) && parsed.expiresAt > this.now() ? parsed : undefined;
    } catch (err) {
      this.logger.warn({ err }, 'redis cache read failed; resolving upstream');
      return undefined;
    }
  }

  private async writeShared(key: string, entry: CacheEntry<unknown>, ttlMs: number): Promise<void> {
    if (!this.redis) return;
    try {
      await this.redis.set(this.prefix + key, JSON.stringify(entry), 'PX', ttlMs);
    } catch (err) {
      this.logger.warn({ err }, 'redis cache write failed');
    }
  }
}
