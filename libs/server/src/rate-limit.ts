import type { Request, RequestHandler, Response } from 'express';
import {
  MemoryStore,
  rateLimit,
  type IncrementResponse,
  type Options,
  type RateLimitInfo,
  type Store,
} from 'express-rate-limit';
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

/** A structured-field list member added to the header (routes with their own limit also count the global one). */
function appendListMember(res: Response, header: string, member: string): void {
  const previous = res.getHeader(header);
  res.setHeader(header, typeof previous === 'string' ? `${previous}, ${member}` : member);
}

/**
 * A limiter per route (or one for the whole app): express-rate-limit, keyed by client IP unless the spec says
 * otherwise, answering IETF draft-8 `RateLimit` / `RateLimit-Policy` headers (one list member per limit the request
 * counts against) and, past the limit, a problem+json 429 with `Retry-After`. A window starts at a key's first
 * request. With Redis the counters are shared by every replica (see `SharedOrLocalStore`).
 *
 * The library counts; the headers are written here, without draft-8's optional `pk` partition key: the library
 * hashes the client's key with SHA-256 for it on every request, which cost the kit's floor 4% of bare Express's
 * throughput (docs/architecture.md, "Rate limits").
 */
export function createRateLimiter(
  service: string,
  spec: RateLimitSpec,
  logger: Logger,
  redis?: Redis,
): RequestHandler {
  const { name, windowMs, limit } = spec;
  const windowSeconds = Math.ceil(windowMs / 1000);
  const policy = `"${name}"; q=${limit}; w=${windowSeconds}`;
  const infoProperty = `rateLimit:${name}`;
  /** What the library put on the request under this limiter's `requestPropertyName`, once it has counted it. */
  const countOf = (req: Request) => Reflect.get(req, infoProperty) as RateLimitInfo | undefined;
  const secondsLeft = (info: RateLimitInfo): number =>
    info.resetTime ? Math.max(0, Math.ceil((info.resetTime.getTime() - Date.now()) / 1000)) : windowSeconds;
  const store = redis
    ? new SharedOrLocalStore(redis, `rl:${service}:${name}:`, (err) =>
        logger.warn({ err, limit: name }, 'rate-limit store failed; counting in this process'),
      )
    : new MemoryStore();
  const count = rateLimit({
    windowMs,
    limit,
    requestPropertyName: infoProperty,
    standardHeaders: false,
    legacyHeaders: false,
    store,
    keyGenerator: spec.key ?? clientIp,
    handler: (req, _res, next) => {
      const info = countOf(req);
      next(
        new ProblemError(
          commonProblems.RATE_LIMITED,
          `Rate limit of ${limit} requests per ${windowMs / 1000} s exceeded.`,
          // At least 1: a window in its last second has 0 s left, which asks for an immediate retry.
          { headers: { 'Retry-After': String(Math.max(1, info ? secondsLeft(info) : windowSeconds)) } },
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
  const { skip } = spec;
  return (req, res, next) => {
    // A request the limit does not count skips the library too: its middleware costs microseconds even to skip.
    if (skip?.(req)) {
      next();
      return;
    }
    void count(req, res, (err?: unknown) => {
      const info = countOf(req);
      if (info) {
        appendListMember(res, 'RateLimit-Policy', policy);
        appendListMember(res, 'RateLimit', `"${name}"; r=${info.remaining}; t=${secondsLeft(info)}`);
      }
      next(err);
    });
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
