import type { RequestHandler } from 'express';
import { MemoryStore, rateLimit, type IncrementResponse, type Options, type Store } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { commonProblems, ProblemError } from '@nrp/validation';
import type { RateLimitSpec } from './route';

/**
 * Fixed-window counters in Redis, shared by every replica: one MULTI per request, nothing at construction. While
 * Redis is not connected or fails, each request is counted in this process instead (the limit holds per replica:
 * never a crash, a wait on Redis, nor an unlimited service), and the shared counters resume once it is back.
 */
export class RedisRateLimitStore implements Store {
  private windowMs = 60_000;
  private readonly perProcess = new MemoryStore();

  constructor(
    private readonly redis: Redis,
    readonly prefix: string,
  ) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
    this.perProcess.init(options);
  }

  async increment(key: string): Promise<IncrementResponse> {
    // Not queued behind a reconnection: the request would wait, and the increment land late, after the outage.
    if (this.redis.status !== 'ready') return this.perProcess.increment(key);
    try {
      return await this.incrementShared(key);
    } catch {
      return this.perProcess.increment(key);
    }
  }

  async decrement(key: string): Promise<void> {
    if (this.redis.status !== 'ready') return this.perProcess.decrement(key);
    await this.redis.decr(this.prefix + key).catch(() => this.perProcess.decrement(key));
  }

  async resetKey(key: string): Promise<void> {
    await Promise.all([
      this.redis.del(this.prefix + key).catch(() => undefined),
      this.perProcess.resetKey(key),
    ]);
  }

  private async incrementShared(key: string): Promise<IncrementResponse> {
    const redisKey = this.prefix + key;
    const results = await this.redis
      .multi()
      .incr(redisKey)
      .pexpire(redisKey, this.windowMs, 'NX')
      .pttl(redisKey)
      .exec();
    if (!results) throw new Error('rate-limit transaction was aborted');
    const [incr, , pttl] = results;
    if (incr?.[0]) throw incr[0];
    if (pttl?.[0]) throw pttl[0];
    const ttl = Number(pttl?.[1]);
    return {
      totalHits: Number(incr?.[1]),
      resetTime: new Date(Date.now() + (ttl > 0 ? ttl : this.windowMs)),
    };
  }
}

/**
 * A limiter per route (or one for the whole app), keyed by client IP unless the spec says otherwise. With Redis the counters are shared by
 * every replica; without it they live in this process.
 */
export function createRateLimiter(service: string, spec: RateLimitSpec, redis?: Redis): RequestHandler {
  return rateLimit({
    windowMs: spec.windowMs,
    limit: spec.limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: spec.name,
    ...(spec.skip ? { skip: spec.skip } : {}),
    ...(spec.key ? { keyGenerator: spec.key } : {}),
    store: redis ? new RedisRateLimitStore(redis, `rl:${service}:${spec.name}:`) : undefined,
    // The Redis store counts in this process while Redis fails; any other store failure lets the request through.
    passOnStoreError: true,
    handler: (req, _res, next) => {
      const resetTime = (req as typeof req & { rateLimit?: { resetTime?: Date } }).rateLimit?.resetTime;
      const retryAfter = resetTime ? Math.max(1, Math.ceil((resetTime.getTime() - Date.now()) / 1000)) : 60;
      next(
        new ProblemError(
          commonProblems.RATE_LIMITED,
          `Rate limit of ${spec.limit} requests per ${spec.windowMs / 1000} s exceeded.`,
          { headers: { 'Retry-After': String(retryAfter) } },
        ),
      );
    },
  });
}
