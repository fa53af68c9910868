import type { Request, RequestHandler, Response } from 'express';
import type { Redis } from 'ioredis';
import { commonProblems, ProblemError } from '@nrp/validation';
import type { Logger } from './logger';
import type { RateLimitSpec } from './route';

/** One counted request: the hits in the key's current window and when that window ends (epoch ms). */
interface WindowCount {
  hits: number;
  resetAt: number;
}

/**
 * Fixed windows of `windowMs` in this process, each starting at the first request after the previous one ended (as a
 * Redis counter's expiry starts at its first hit). The whole table is dropped when a window ends, so memory is
 * bounded by the clients of one window and nothing has to be swept.
 */
class MemoryWindowCounter {
  private counts = new Map<string, number>();
  private resetAt = 0;

  constructor(private readonly windowMs: number) {}

  increment(key: string, now = Date.now()): WindowCount {
    if (now >= this.resetAt) {
      this.counts = new Map();
      this.resetAt = now + this.windowMs;
    }
    const hits = (this.counts.get(key) ?? 0) + 1;
    this.counts.set(key, hits);
    return { hits, resetAt: this.resetAt };
  }
}

/** Fixed-window counters in Redis, shared by every replica: one MULTI per request. */
async function incrementInRedis(redis: Redis, redisKey: string, windowMs: number): Promise<WindowCount> {
  const results = await redis.multi().incr(redisKey).pexpire(redisKey, windowMs, 'NX').pttl(redisKey).exec();
  if (!results) throw new Error('rate-limit transaction was aborted');
  const [incr, , pttl] = results;
  if (incr?.[0]) throw incr[0];
  if (pttl?.[0]) throw pttl[0];
  const ttl = Number(pttl?.[1]);
  return { hits: Number(incr?.[1]), resetAt: Date.now() + (ttl > 0 ? ttl : windowMs) };
}

/**
 * Client states in which Redis is known to be away: counting waits for nothing then. While it first connects,
 * commands queue, so the first requests of a replica count in Redis like the rest.
 */
const REDIS_DOWN = new Set(['reconnecting', 'close', 'end']);

/** A structured-field list member added to the header (routes with their own limit also count the global one). */
function appendHeader(res: Response, name: string, member: string): void {
  const previous = res.getHeader(name);
  res.setHeader(name, typeof previous === 'string' ? `${previous}, ${member}` : member);
}

/** The client's address: the socket's, unless the app trusts a proxy's X-Forwarded-For (`req.ip` parses it). */
function clientIp(req: Request): string {
  const address = req.app.get('trust proxy') === false ? req.socket.remoteAddress : req.ip;
  return address ?? 'unknown';
}

/**
 * A limiter per route (or one for the whole app), keyed by client IP unless the spec says otherwise, answering
 * IETF draft-8 `RateLimit` / `RateLimit-Policy` headers and 429 with `Retry-After` past the limit. With Redis the
 * counters are shared by every replica; while Redis is known to be away, or a command fails, this process counts
 * alone (so a Redis outage neither fails requests nor lifts the limit), and shared counting resumes when it is back.
 */
export function createRateLimiter(
  service: string,
  spec: RateLimitSpec,
  logger: Logger,
  redis?: Redis,
): RequestHandler {
  const { name, windowMs, limit } = spec;
  const keyOf = spec.key ?? clientIp;
  const local = new MemoryWindowCounter(windowMs);
  const redisPrefix = `rl:${service}:${name}:`;
  const policy = `"${name}"; q=${limit}; w=${Math.ceil(windowMs / 1000)}`;

  const answer = (count: WindowCount, res: Response, next: (err?: unknown) => void): void => {
    const resetSeconds = Math.max(0, Math.ceil((count.resetAt - Date.now()) / 1000));
    appendHeader(res, 'ratelimit-policy', policy);
    appendHeader(res, 'ratelimit', `"${name}"; r=${Math.max(0, limit - count.hits)}; t=${resetSeconds}`);
    if (count.hits <= limit) {
      next();
      return;
    }
    next(
      new ProblemError(
        commonProblems.RATE_LIMITED,
        `Rate limit of ${limit} requests per ${windowMs / 1000} s exceeded.`,
        { headers: { 'Retry-After': String(Math.max(1, resetSeconds)) } },
      ),
    );
  };

  return (req, res, next) => {
    if (spec.skip?.(req)) {
      next();
      return;
    }
    const key = keyOf(req);
    if (!redis || REDIS_DOWN.has(redis.status)) {
      answer(local.increment(key), res, next);
      return;
    }
    incrementInRedis(redis, redisPrefix + key, windowMs).then(
      (count) => answer(count, res, next),
      (err: unknown) => {
        logger.warn({ err, limit: name }, 'rate-limit store failed; counting in this process');
        answer(local.increment(key), res, next);
      },
    );
  };
}

const NO_CACHE_PARAM = /[?&]noCache=(true|1)(&|$)/;

/**
 * The limit on `noCache=true` requests, each of which bypasses a service's cache and reaches the chain: counted per
 * client IP across every route that names it; requests without `noCache` are not counted.
 */
export function noCacheRateLimit(limitPerMinute: number): RateLimitSpec {
  return {
    name: 'no-cache',
    windowMs: 60_000,
    limit: limitPerMinute,
    // The raw query string: Express parses `req.query` again on every read, and this runs before the schemas.
    skip: (req) => !NO_CACHE_PARAM.test(req.url),
  };
}
