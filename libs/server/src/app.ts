import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { match } from 'path-to-regexp';
import { withDeadline } from '@nrp/chain';
import type { Redis } from 'ioredis';
import {
  commonProblems,
  notFoundHandler,
  ProblemError,
  problemErrorHandler,
  type ProblemDef,
  sendProblem,
  parseRequest,
} from '@nrp/validation';
import { type BaseConfig, parseTrustProxy } from './config';
import { DEPENDENCY_FAILURES_DESCRIPTION, dependencyProblem } from './dependency-problem';
import type { Logger } from './logger';
import { createServiceMetrics, httpDurationObserver, type ServiceMetrics } from './metrics';
import { buildOpenApi, problemCatalogue } from './openapi';
import { sendJson, weakEtag } from './json-answer';
import { createRateLimiter } from './rate-limit';
import type { RateLimitSpec, RouteDefinition } from './route';
import {
  assertBudget,
  budgetProblems,
  closeIfBodyUnread,
  concurrencyPools,
  declaredBodyLimit,
  enforceAnswerLimits,
  jsonBody,
  timeBudgets,
} from './budget';
import { corsPolicy } from './cors';
import { docsRouter } from './docs';
import { requestContext } from './request-context';
import { securityHeaders } from './security-headers';
import { sharedEndpoints, type EndpointHandler } from './shared-endpoints';

/**
 * A dependency check of /ready: rejects when not ready; a string answer is reported instead of `ok`. A rejection
 * with `NotReady` is reported with its message; any other shows as `unreachable` and goes to the logs.
 */
export type ReadinessCheck = () => Promise<unknown>;

/** Why a dependency is not ready, in the platform's words: `/ready` shows this message as the check's report. */
export class NotReady extends Error {
  override readonly name = 'NotReady';
}

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
  readinessTimeoutMs?: number;
  /** The registry `/metrics` serves, with the domain metrics the service observes; default: a new one. */
  metrics?: ServiceMetrics;
  /**
   * Parse every JSON answer of a route through the schema its status declares, failing the request (500) when it
   * does not match. Default: on under tests (`NODE_ENV=test`), off in production where it would cost every answer.
   */
  checkResponses?: boolean;
}

/**
 * The route's one Express handler: its request parsed by its schemas, its handler called, its answer sent. A
 * handler that answers synchronously costs no promise.
 */
function routeHandler(route: RouteDefinition): RequestHandler {
  const schemas = { params: route.params, query: route.query, body: route.body };
  return (req, res, next) => {
    const input = parseRequest(schemas, req) as Parameters<RouteDefinition['handler']>[0];
    const answer = (result: unknown): void => {
      if (result !== undefined && !res.headersSent) sendJson(res, result);
    };
    const result = route.handler(input, req, res);
    if (result instanceof Promise) result.then(answer, next);
    else answer(result);
  };
}

/** Wraps `res.send` so a JSON answer that does not match the schema of its status fails loudly. */
function responseChecker(route: RouteDefinition): RequestHandler {
  return (_req, res, next) => {
    const send = res.send.bind(res);
    res.send = (body?: unknown) => {
      const schema = route.responses[res.statusCode]?.schema;
      const type = res.get('Content-Type') ?? '';
      if (schema && /json/.test(type) && (typeof body === 'string' || Buffer.isBuffer(body))) {
        const result = schema.safeParse(JSON.parse(body.toString('utf8')));
        if (!result.success) {
          throw new Error(
            `${route.operationId} answered ${res.statusCode} with a body its schema refuses: ${result.error.message}`,
          );
        }
      }
      return send(body);
    };
    next();
  };
}

/** A service route that would answer a shared endpoint's path is a programming error, caught at start. */
function assertNoSharedPath(route: RouteDefinition, sharedPaths: string[]): void {
  const matches = match(route.path);
  const shadowed = sharedPaths.find((path) => matches(path));
  if (shadowed) throw new Error(`route ${route.method.toUpperCase()} ${route.path} would answer ${shadowed}`);
}

/**
 * The Express app every service runs: its routes, then the shared endpoints, with the request context, security
 * headers, CORS, rate limits and problem+json errors around them. Service routes come first and each carries its
 * own limits, so a request to one is matched against no other layer than the request context's.
 */
export function createApp(options: AppOptions): Express {
  const { service, version, logger } = options;
  const everyRouteProblems = options.everyRouteProblems ?? [];
  const routes = options.routes.map((route) => ({
    ...route,
    problems: [...(route.problems ?? []), ...budgetProblems(route.budget), ...everyRouteProblems],
  }));
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', parseTrustProxy(options.config.TRUST_PROXY));
  app.set('query parser', 'simple');
  app.set('etag', weakEtag);

  const { registry } = options.metrics ?? createServiceMetrics(service);
  const { redis } = options;
  const readiness: Record<string, ReadinessCheck> = {
    ...options.readiness,
    ...(redis
      ? {
          redis: async () => {
            await redis.ping();
          },
        }
      : {}),
  };
  const openApi = buildOpenApi(
    { title: service, version, description: `${options.description}\n\n${DEPENDENCY_FAILURES_DESCRIPTION}` },
    routes,
  );
  const cors = corsPolicy(options.config.CORS_ORIGINS);
  const budgets = timeBudgets();
  const observeDuration = httpDurationObserver(registry);

  app.use(
    requestContext({
      logger,
      headers: [...securityHeaders(), ...cors.headers],
      answer: cors.handle,
      onFinish: (req, res, seconds) => {
        budgets.finished(res);
        observeDuration(req, res, seconds);
      },
    }),
  );

  const concurrency = concurrencyPools();
  const limiters = new Map<string, RequestHandler>();
  const limiterFor = (spec: RateLimitSpec): RequestHandler => {
    let limiter = limiters.get(spec.name);
    if (!limiter) {
      limiter = createRateLimiter(service, spec, logger, redis);
      limiters.set(spec.name, limiter);
    }
    return limiter;
  };
  const globalLimit = { name: 'global', windowMs: 60_000, limit: options.config.RATE_LIMIT_PER_MINUTE };
  const checkResponses = options.checkResponses ?? process.env.NODE_ENV === 'test';

  const endpoints: Record<string, EndpointHandler> = {
    '/': (_req, res) => {
      res.json({ service, version, docs: '/docs' });
    },
    '/health': (_req, res) => {
      res.json({ status: 'ok' });
    },
    '/ready': async (_req, res) => {
      const checks: Record<string, string> = {};
      let ready = true;
      await Promise.all(
        Object.entries(readiness).map(async ([name, check]) => {
          try {
            const ms = options.readinessTimeoutMs ?? 3000;
            const answer = await withDeadline(
              check(),
              ms,
              () => new NotReady(`${name} did not answer within ${ms} ms`),
            );
            // A check may say more than ok (how far an index is behind) by answering a string.
            checks[name] = typeof answer === 'string' ? answer : 'ok';
          } catch (err) {
            ready = false;
            // A driver's message names hosts, ports and socket codes: for the logs only.
            if (err instanceof NotReady) checks[name] = err.message;
            else {
              checks[name] = `${name} unreachable`;
              logger.warn({ check: name, err }, 'readiness check failed');
            }
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
    },
    '/metrics': async (_req, res) => {
      res.type(registry.contentType).send(await registry.metrics());
    },
    '/openapi.json': (_req, res) => {
      res.json(openApi);
    },
  };
  const sharedPaths = [...Object.keys(endpoints), '/docs', '/docs/errors'];

  const answerLimits = new Map<unknown, { maxBytes: number; route: RouteDefinition }>();
  enforceAnswerLimits(app, answerLimits, logger);
  for (const route of routes) {
    assertNoSharedPath(route, sharedPaths);
    assertBudget(route);
    const { budget } = route;
    // Only routes with a JSON body parse one: the parser costs a measurable share of a cached GET.
    const parsesJson = route.body !== undefined && route.bodyContentType !== 'multipart/form-data';
    // A route whose own limit replaces the global one is not counted by the global limit.
    const limits = route.rateLimit?.replacesGlobal ? [route.rateLimit] : [globalLimit, route.rateLimit];
    // Credentials (`before`) are checked before the body's length or bytes, and before a slot of a pool is taken.
    const expressRoute = app.route(route.path);
    if (budget.answerBytes !== 'stream')
      answerLimits.set(expressRoute, { maxBytes: budget.answerBytes, route });
    expressRoute[route.method](
      budgets.start(budget.timeMs),
      ...limits.flatMap((spec) => (spec ? [limiterFor(spec)] : [])),
      ...(route.before ?? []),
      declaredBodyLimit(budget.bodyBytes),
      ...(budget.concurrency ? [concurrency(budget.concurrency)] : []),
      ...(parsesJson ? [jsonBody(budget.bodyBytes)] : []),
      ...(checkResponses ? [responseChecker(route)] : []),
      routeHandler(route),
    );
  }

  app.use(sharedEndpoints(endpoints));
  app.use('/docs', docsRouter(`${service} API`, problemCatalogue(routes)));
  // Unknown paths count against the global limit too.
  app.use(limiterFor(globalLimit));
  app.use(notFoundHandler);
  app.use(((err, req, res, next) => {
    closeIfBodyUnread(req, res);
    next(err);
  }) as ErrorRequestHandler);
  app.use(problemErrorHandler(logger, dependencyProblem));
  return app;
}
