import type { RequestHandler } from 'express';
import { rateLimit, type IncrementResponse, type Options, type Store } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { commonProblems, ProblemError } from '@nrp/validation';
import type { RateLimitSpec } from './route';

/**
 * Fixed-window counters in Redis, shared by every replica: one MULTI per request, nothing at construction, so a
 * Redis outage surfaces as a store error per request (which the limiter lets through) and never as a crash.
 */
export class RedisRateLimitStore implements Store {
  private windowMs = 60_000;

  constructor(
    private readonly redis: Redis,
    readonly prefix: string,
  ) {}

  init(options: Options): void {
    this.windowMs = options.windowMs;
  }

  async increment(key: string): Promise<IncrementResponse> {
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

  async decrement(key: string): Promise<void> {
    await this.redis.decr(this.prefix + key);
  }

  async resetKey(key: string): Promise<void> {
    await this.redis.del(this.prefix + key);
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
    // A Redis outage must not take the service down with it: requests go through (express-rate-limit logs it).
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
