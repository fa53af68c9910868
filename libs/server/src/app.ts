import cors from 'cors';
import express, {
  type Express,
  type NextFunction,
  type Request,
  type RequestHandler,
  type Response,
} from 'express';
import type { Redis } from 'ioredis';
import {
  commonProblems,
  notFoundHandler,
  ProblemError,
  problemErrorHandler,
  type ProblemDef,
  sendProblem,
  validateRequest,
} from '@nrp/validation';
import { type BaseConfig, parseTrustProxy } from './config';
import { DEPENDENCY_FAILURES_DESCRIPTION, dependencyProblem } from './dependency-problem';
import type { Logger } from './logger';
import { createServiceMetrics, httpMetricsMiddleware, type ServiceMetrics } from './metrics';
import { buildOpenApi, problemCatalogue } from './openapi';
import { createRateLimiter } from './rate-limit';
import type { RateLimitSpec, RouteDefinition } from './route';
import { docsRouter } from './docs';
import { requestContext } from './request-context';
import { securityHeaders } from './security-headers';

export type ReadinessCheck = () => Promise<unknown>;

export const CORS_EXPOSED_HEADERS = ['x-request-id', 'Retry-After', 'RateLimit', 'RateLimit-Policy'];
/** Browsers cache a preflight answer this long (Chromium caps it at 2 hours). */
export const CORS_MAX_AGE_SECONDS = 7200;

export type HttpConfig = Pick<BaseConfig, 'CORS_ORIGINS' | 'TRUST_PROXY' | 'RATE_LIMIT_PER_MINUTE'>;

export interface AppOptions {
  service: string;
  version: string;
  /** Markdown for the OpenAPI `info.description`: what the service does and the choices it made. */
  description: string;
  logger: Logger;
  /** Their problems make the catalogue at `/docs/errors`, with the ones every route can answer. */
  routes: RouteDefinition[];
  /**
   * Problems every route of this service can answer besides its own, for the OpenAPI document: 503
   * SERVICE_UNAVAILABLE when every route reads the database (see `dependencyProblem`).
   */
  everyRouteProblems?: ProblemDef[];
  /** Dependencies `/ready` checks, by name. */
  readiness?: Record<string, ReadinessCheck>;
  /** The HTTP settings every service reads from its environment (see `baseConfigSchema`). */
  config: HttpConfig;
  /** Shares rate-limit counters across replicas, and is checked by `/ready`. */
  redis?: Redis;
  /** JSON body limit; default 100kb. */
  jsonLimit?: string;
  readinessTimeoutMs?: number;
  /** The registry `/metrics` serves, with the domain metrics the service observes; default: a new one. */
  metrics?: ServiceMetrics;
}

function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

function asyncHandler(route: RouteDefinition) {
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const input = res.locals.input as Parameters<RouteDefinition['handler']>[0];
      const result = await route.handler(input, req, res);
      if (result !== undefined && !res.headersSent) res.json(result);
    } catch (err) {
      next(err);
    }
  };
}

/** The Express app every service runs: shared endpoints, middleware and error handling around its routes. */
export function createApp(options: AppOptions): Express {
  const { service, version, logger } = options;
  const everyRouteProblems = options.everyRouteProblems ?? [];
  const routes = options.routes.map((route) => ({
    ...route,
    problems: [...(route.problems ?? []), ...everyRouteProblems],
  }));
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', parseTrustProxy(options.config.TRUST_PROXY));
  app.set('query parser', 'simple');

  const { registry } = options.metrics ?? createServiceMetrics(service);
  const { redis } = options;
  const readiness: Record<string, ReadinessCheck> = {
    ...options.readiness,
    ...(redis ? { redis: () => redis.ping() } : {}),
  };
  const openApi = buildOpenApi(
    { title: service, version, description: `${options.description}\n\n${DEPENDENCY_FAILURES_DESCRIPTION}` },
    routes,
  );

  app.use(requestContext(logger));
  app.use(httpMetricsMiddleware(registry));
  app.use(securityHeaders());
  const corsOrigins = options.config.CORS_ORIGINS;
  const allowAll = corsOrigins.includes('*');
  app.use(
    cors({
      origin: allowAll ? '*' : corsOrigins,
      // A page reads these: the request id to quote, and the rate limit state (IETF draft-8 headers).
      exposedHeaders: CORS_EXPOSED_HEADERS,
      maxAge: CORS_MAX_AGE_SECONDS,
    }),
  );

  app.get('/', (_req, res) => {
    res.json({ service, version, docs: '/docs' });
  });
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/ready', async (_req, res) => {
    const checks: Record<string, string> = {};
    let ready = true;
    await Promise.all(
      Object.entries(readiness).map(async ([name, check]) => {
        try {
          await withTimeout(check(), options.readinessTimeoutMs ?? 3000, name);
          checks[name] = 'ok';
        } catch (err) {
          ready = false;
          checks[name] = err instanceof Error ? err.message : 'failed';
        }
      }),
    );
    if (ready) {
      res.json({ status: 'ok', checks });
      return;
    }
    sendProblem(
      res,
      new ProblemError(commonProblems.SERVICE_UNAVAILABLE, 'A dependency is not reachable.', {
        extensions: { checks },
      }),
    );
  });
  app.get('/metrics', async (_req, res) => {
    res.type(registry.contentType).send(await registry.metrics());
  });
  app.get('/openapi.json', (_req, res) => {
    res.json(openApi);
  });
  app.use('/docs', docsRouter(`${service} API`, problemCatalogue(routes)));

  // Only routes with a JSON body parse one: the parser costs a measurable share of a cached GET.
  const jsonBody = express.json({ limit: options.jsonLimit ?? '100kb' });

  const limiters = new Map<string, RequestHandler>();
  const limiterFor = (spec: RateLimitSpec): RequestHandler => {
    let limiter = limiters.get(spec.name);
    if (!limiter) {
      limiter = createRateLimiter(service, spec, options.redis);
      limiters.set(spec.name, limiter);
    }
    return limiter;
  };

  const mount = (route: RouteDefinition): void => {
    const parsesJson = route.body !== undefined && route.bodyContentType !== 'multipart/form-data';
    const chain = [
      ...(route.rateLimit ? [limiterFor(route.rateLimit)] : []),
      ...(parsesJson ? [jsonBody] : []),
      ...(route.before ?? []),
      validateRequest({ params: route.params, query: route.query, body: route.body }),
      asyncHandler(route),
    ];
    app[route.method](route.path, ...chain);
  };
  // Routes whose own limit replaces the global one answer before the global limiter runs.
  for (const route of routes) if (route.rateLimit?.replacesGlobal) mount(route);
  app.use(
    createRateLimiter(
      service,
      { name: 'global', windowMs: 60_000, limit: options.config.RATE_LIMIT_PER_MINUTE },
      options.redis,
    ),
  );
  for (const route of routes) if (!route.rateLimit?.replacesGlobal) mount(route);

  app.use(notFoundHandler);
  app.use(problemErrorHandler(logger, dependencyProblem));
  return app;
}
