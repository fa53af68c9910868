import type { RequestHandler } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import type { Redis } from 'ioredis';
import { commonProblems, ProblemError } from '@nrp/validation';
import type { RateLimitSpec } from './route';

/**
 * A limiter per route (or one for the whole app), keyed by client IP. With Redis the counters are shared by
 * every replica; without it they live in this process.
 */
export function createRateLimiter(service: string, spec: RateLimitSpec, redis?: Redis): RequestHandler {
  let store: Store | undefined;
  if (redis) {
    store = new RedisStore({
      prefix: `rl:${service}:${spec.name}:`,
      sendCommand: (command: string, ...args: string[]) =>
        redis.call(command, ...args) as Promise<RedisReply>,
    });
  }
  return rateLimit({
    windowMs: spec.windowMs,
    limit: spec.limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: spec.name,
    store,
    handler: (req, res, next) => {
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
