import type { Request, RequestHandler } from 'express';
import { MemoryStore, rateLimit, type IncrementResponse, type Options, type Store } from 'express-rate-limit';
import type { Redis } from 'ioredis';
import { RedisStore, type RedisReply } from 'rate-limit-redis';
import { commonProblems, ProblemError } from '@nrp/validation';
import type { Logger } from './logger';
import type { RateLimitSpec } from './route';

/**
 * Client states in which Redis is known to be away: counting waits for nothing then. While it first connects,
 * commands queue, so the first requests of a replica count in Redis like the rest.
 */
const REDIS_DOWN = new Set(['reconnecting', 'close', 'end']);

/**
 * rate-limit-redis's counters, shared by every replica, with express-rate-limit's MemoryStore behind them: while
 * Redis is known to be away, or a command fails, this process counts alone (so a Redis outage neither fails requests
 * nor lifts the limit), and shared counting resumes when it is back.
 */
class SharedOrLocalStore implements Store {
  readonly localKeys = false;
  private readonly shared: RedisStore;
  private readonly local = new MemoryStore();
  private options?: Options;
  private scriptsLoaded = false;

  constructor(
    private readonly redis: Redis,
    readonly prefix: string,
    private readonly onFailure: (err: unknown) => void,
  ) {
    this.shared = new RedisStore({
      prefix,
      sendCommand: (command: string, ...args: string[]) =>
        redis.call(command, ...args) as Promise<RedisReply>,
    });
  }

  init(options: Options): void {
    this.options = options;
    this.local.init(options);
    this.loadScripts();
  }

  /** The store's Lua scripts; a load that failed (Redis away at start) is retried by the next failed count. */
  private loadScripts(): void {
    if (!this.options) return;
    this.shared.init(this.options).then(
      () => {
        this.scriptsLoaded = true;
      },
      () => undefined,
    );
  }

  async increment(key: string): Promise<IncrementResponse> {
    if (REDIS_DOWN.has(this.redis.status)) return this.local.increment(key);
    try {
      return await this.shared.increment(key);
    } catch (err) {
      this.onFailure(err);
      if (!this.scriptsLoaded) this.loadScripts();
      return this.local.increment(key);
    }
  }

  async decrement(key: string): Promise<void> {
    await Promise.all([this.shared.decrement(key), this.local.decrement(key)]);
  }

  async resetKey(key: string): Promise<void> {
    await Promise.all([this.shared.resetKey(key), this.local.resetKey(key)]);
  }
}

/** The client's address: the socket's, unless the app trusts a proxy's X-Forwarded-For (`req.ip` parses it). */
function clientIp(req: Request): string {
  const address = req.app.get('trust proxy') === false ? req.socket.remoteAddress : req.ip;
  return address ?? 'unknown';
}

/**
 * A limiter per route (or one for the whole app): express-rate-limit, keyed by client IP unless the spec says
 * otherwise, answering IETF draft-8 `RateLimit` / `RateLimit-Policy` headers (one list member per limit the request
 * counts against) and, past the limit, a problem+json 429 with `Retry-After`. A window starts at a key's first
 * request. With Redis the counters are shared by every replica (see `SharedOrLocalStore`).
 */
export function createRateLimiter(
  service: string,
  spec: RateLimitSpec,
  logger: Logger,
  redis?: Redis,
): RequestHandler {
  const { name, windowMs, limit } = spec;
  const store = redis
    ? new SharedOrLocalStore(redis, `rl:${service}:${name}:`, (err) =>
        logger.warn({ err, limit: name }, 'rate-limit store failed; counting in this process'),
      )
    : new MemoryStore();
  return rateLimit({
    windowMs,
    limit,
    identifier: name,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    store,
    keyGenerator: spec.key ?? clientIp,
    ...(spec.skip ? { skip: spec.skip } : {}),
    handler: (_req, res, next) => {
      // The library has set Retry-After to the window's remaining seconds: 0 in its last second, never asked for.
      next(
        new ProblemError(
          commonProblems.RATE_LIMITED,
          `Rate limit of ${limit} requests per ${windowMs / 1000} s exceeded.`,
          { headers: { 'Retry-After': String(Math.max(1, Number(res.getHeader('Retry-After')))) } },
        ),
      );
    },
    validate: {
      // Forwarded headers are the app's TRUST_PROXY setting's business, read once by `clientIp`: a header the app
      // does not trust is ignored, as today, not reported.
      trustProxy: false,
      xForwardedForHeader: false,
      forwardedHeader: false,
      // Keys are whole addresses (IPv6 too), as they were before the library.
      keyGeneratorIpFallback: false,
      // The gateway's ceiling counts each lookup that reaches the database, not each request.
      singleCount: false,
    },
  });
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
