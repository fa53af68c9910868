import type { Express, Request, RequestHandler, Response } from 'express';
import {
  commonProblems,
  PROBLEM_CONTENT_TYPE,
  ProblemError,
  sendProblem,
  type ProblemDef,
} from '@nrp/validation';
import type { Logger } from './logger';
import {
  MAX_ANSWER_BYTES,
  MAX_PROBLEM_BYTES,
  type ConcurrencySpec,
  type RouteBudget,
  type RouteDefinition,
} from './route';

/** Seconds a client waits before retrying a full pool or a request that ran out of time. */
const RETRY_AFTER_SECONDS = '1';

function formatBytes(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${+(bytes / (1024 * 1024)).toFixed(1)} MB`;
  if (bytes >= 1024) return `${+(bytes / 1024).toFixed(1)} KB`;
  return `${bytes} bytes`;
}

/** A budget the kit cannot enforce is a programming error, caught when the app is built. */
export function assertBudget(route: RouteDefinition): void {
  const { budget } = route;
  const where = `route ${route.method.toUpperCase()} ${route.path}`;
  if (typeof budget.answerBytes === 'number' && budget.answerBytes > MAX_ANSWER_BYTES)
    throw new Error(`${where}: answerBytes ${budget.answerBytes} is above ${MAX_ANSWER_BYTES}`);
  if (route.body !== undefined && budget.bodyBytes <= 0)
    throw new Error(`${where} takes a body: its budget needs bodyBytes`);
  if (budget.timeMs <= 0) throw new Error(`${where}: timeMs must be positive`);
  if (budget.concurrency && budget.concurrency.limit < 1)
    throw new Error(`${where}: concurrency limit must be at least 1`);
}

/** The budget as the route's OpenAPI description says it. */
export function budgetDescription(budget: RouteBudget): string {
  const parts = [
    budget.bodyBytes > 0
      ? `body at most ${formatBytes(budget.bodyBytes)} (413 \`PAYLOAD_TOO_LARGE\` before it is read)`
      : 'no body',
    budget.answerBytes === 'stream'
      ? 'answer streamed from stored data in pages bounded in bytes (constant memory)'
      : `answer at most ${formatBytes(budget.answerBytes)}`,
    `answered within ${budget.timeMs / 1000} s (503 \`TIME_BUDGET_EXCEEDED\` otherwise)`,
  ];
  if (budget.concurrency) {
    parts.push(
      `at most ${budget.concurrency.limit} at once per replica (pool \`${budget.concurrency.name}\`; ` +
        '503 `CONCURRENCY_LIMIT_REACHED` with `Retry-After` when full)',
    );
  }
  return `**Budget:** ${parts.join('; ')}.`;
}

/** The problems the budget adds to a route's own. */
export function budgetProblems(budget: RouteBudget): ProblemDef[] {
  return [
    commonProblems.TIME_BUDGET_EXCEEDED,
    ...(budget.bodyBytes > 0 ? [commonProblems.PAYLOAD_TOO_LARGE] : []),
    ...(budget.concurrency ? [commonProblems.CONCURRENCY_LIMIT_REACHED] : []),
  ];
}

/**
 * Whether the request announced a body that nobody has read: answering it then closes the connection, so Node does
 * not read and discard the rest of a body that may be gigabytes long.
 */
function bodyUnread(req: Request): boolean {
  const announced =
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0;
  return announced && !req.complete && !req.readableDidRead;
}

/** An error answer that closes the connection when the body was not read. */
export function closeIfBodyUnread(req: Request, res: Response): void {
  if (!res.headersSent && bodyUnread(req)) res.setHeader('Connection', 'close');
}

function answerProblem(req: Request, res: Response, problem: ProblemError): void {
  if (res.headersSent) return;
  closeIfBodyUnread(req, res);
  sendProblem(res, problem);
}

function tooLarge(limit: number): ProblemError {
  return new ProblemError(
    commonProblems.PAYLOAD_TOO_LARGE,
    `The request body exceeds the limit of ${limit} bytes.`,
  );
}

function timeBudgetExceeded(timeMs: number): ProblemError {
  return new ProblemError(
    commonProblems.TIME_BUDGET_EXCEEDED,
    `The request was not answered within its budget of ${timeMs} ms.`,
    { headers: { 'Retry-After': RETRY_AFTER_SECONDS } },
  );
}

/** At the latest this often, requests whose client went away leave the in-flight list. */
const SWEEP_MS = 1000;

interface Deadline {
  req: Request;
  /** `performance.now()` when the budget runs out. */
  due: number;
  timeMs: number;
}

export interface TimeBudgets {
  /** The route's first middleware: the time budget starts with the request's headers. */
  start(timeMs: number): RequestHandler;
  /** The answer finished: the request leaves the list (the request context calls this for every response). */
  finished(res: Response): void;
}

/**
 * The time budgets of one app's requests, with no timer per request (a timer and a 'close' listener per request
 * were a measurable share of a cached answer): a request joins the in-flight list with its deadline and leaves it
 * when its answer finishes. One timer, due at the earliest deadline and at least every SWEEP_MS while requests are
 * in flight, answers 503 to those past their deadline whose answer has not started, and drops those whose answer
 * has started or whose client went away.
 */
export function timeBudgets(): TimeBudgets {
  const inFlight = new Map<Response, Deadline>();
  let timer: NodeJS.Timeout | undefined;
  let timerDue = Infinity;
  const schedule = (due: number): void => {
    clearTimeout(timer);
    timerDue = due;
    timer = setTimeout(sweep, Math.max(0, due - performance.now()));
    timer.unref();
  };
  const sweep = (): void => {
    timer = undefined;
    timerDue = Infinity;
    const now = performance.now();
    let next = now + SWEEP_MS;
    for (const [res, deadline] of inFlight) {
      if (res.headersSent || res.destroyed) inFlight.delete(res);
      else if (deadline.due <= now) {
        inFlight.delete(res);
        answerProblem(deadline.req, res, timeBudgetExceeded(deadline.timeMs));
      } else next = Math.min(next, deadline.due);
    }
    if (inFlight.size > 0) schedule(next);
  };
  return {
    start: (timeMs) => (req, res, next) => {
      const due = performance.now() + timeMs;
      inFlight.set(res, { req, due, timeMs });
      if (due < timerDue) schedule(due);
      next();
    },
    finished: (res) => {
      inFlight.delete(res);
    },
  };
}

/** A body whose declared length is over the budget is refused before it is read (after the credentials). */
export function declaredBodyLimit(maxBytes: number): RequestHandler {
  return (req, res, next) => {
    if (Number(req.headers['content-length']) > maxBytes) {
      answerProblem(req, res, tooLarge(maxBytes));
      return;
    }
    next();
  };
}

/** Per process, by pool name: how many requests hold a slot. */
export function concurrencyPools(): (spec: ConcurrencySpec) => RequestHandler {
  const inFlight = new Map<string, number>();
  return (spec) => (req, res, next) => {
    const held = inFlight.get(spec.name) ?? 0;
    if (held >= spec.limit) {
      answerProblem(
        req,
        res,
        new ProblemError(
          commonProblems.CONCURRENCY_LIMIT_REACHED,
          `${spec.limit} requests of this kind are already running; retry in a moment.`,
          { headers: { 'Retry-After': RETRY_AFTER_SECONDS } },
        ),
      );
      return;
    }
    inFlight.set(spec.name, held + 1);
    res.once('close', () => inFlight.set(spec.name, (inFlight.get(spec.name) ?? 1) - 1));
    next();
  };
}

function mediaType(header: string | undefined): { type: string; charset?: string } {
  const [type = '', ...params] = (header ?? '').split(';');
  const charset = params
    .map((p) => p.trim().split('='))
    .find(([name]) => name?.trim().toLowerCase() === 'charset')?.[1];
  return { type: type.trim().toLowerCase(), charset: charset?.trim().replace(/^"|"$/g, '').toLowerCase() };
}

/**
 * Reads a JSON body of at most `maxBytes` into `req.body`: a declared or streamed length over the limit is a 413 at
 * once (the connection is closed rather than drained), a charset other than UTF-8 or a compressed body a 415, a
 * document that is not one JSON object or array a 400. A body of another media type is not read (the schema then
 * names what is missing).
 */
export function jsonBody(maxBytes: number): RequestHandler {
  return (req, res, next) => {
    const { type, charset } = mediaType(req.headers['content-type']);
    const announced =
      req.headers['transfer-encoding'] !== undefined || req.headers['content-length'] !== undefined;
    if (!announced || !(type === 'application/json' || type.endsWith('+json'))) {
      next();
      return;
    }
    if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
      answerProblem(
        req,
        res,
        new ProblemError(
          commonProblems.UNSUPPORTED_MEDIA_TYPE,
          `Unsupported charset "${charset}": send UTF-8.`,
        ),
      );
      return;
    }
    const encoding = (req.headers['content-encoding'] ?? 'identity').toLowerCase();
    if (encoding !== 'identity') {
      answerProblem(
        req,
        res,
        new ProblemError(
          commonProblems.UNSUPPORTED_MEDIA_TYPE,
          `Unsupported content encoding "${encoding}": send the body uncompressed.`,
        ),
      );
      return;
    }
    const chunks: Buffer[] = [];
    let length = 0;
    const stop = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      req.pause();
    };
    const onData = (chunk: Buffer): void => {
      length += chunk.length;
      if (length > maxBytes) {
        stop();
        res.setHeader('Connection', 'close');
        answerProblem(req, res, tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onError = (): void => stop();
    const onEnd = (): void => {
      stop();
      const text = Buffer.concat(chunks, length).toString('utf8');
      if (text.trim() === '') {
        req.body = {};
        next();
        return;
      }
      try {
        if (!/^[\s]*[{[]/.test(text)) throw new SyntaxError('not an object or array');
        req.body = JSON.parse(text) as unknown;
      } catch {
        next(new ProblemError(commonProblems.INVALID_JSON, 'The request body is not valid JSON.'));
        return;
      }
      next();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  };
}

/**
 * Refuses to send a (non-streamed) answer over its route's budget (a problem answer: over MAX_PROBLEM_BYTES when the
 * budget is smaller): that is a bug of the route, answered 500 and
 * logged, never the oversized answer. Installed once on the app's response prototype, with each Express route's
 * limit in `limits` (keyed by `req.route`): a `send` wrapper per request was a measurable share of a cached answer.
 */
export function enforceAnswerLimits(
  app: Express,
  limits: ReadonlyMap<unknown, { maxBytes: number; route: RouteDefinition }>,
  logger: Logger,
): void {
  const send: Response['send'] = app.response.send;
  app.response.send = function sendWithinBudget(this: Response, body?: unknown) {
    const expressRoute: unknown = this.req.route;
    const budget = limits.get(expressRoute);
    if (budget === undefined) return send.call(this, body);
    const length =
      typeof body === 'string' ? Buffer.byteLength(body) : Buffer.isBuffer(body) ? body.length : 0;
    const maxBytes = this.statusCode >= 400 ? Math.max(budget.maxBytes, MAX_PROBLEM_BYTES) : budget.maxBytes;
    if (length <= maxBytes) return send.call(this, body);
    logger.error(
      { operationId: budget.route.operationId, bytes: length, budget: maxBytes },
      'answer over the route budget refused',
    );
    const problem = new ProblemError(commonProblems.INTERNAL_ERROR, 'An unexpected error occurred.');
    this.status(problem.status).type(PROBLEM_CONTENT_TYPE);
    return send.call(this, JSON.stringify(problem.toBody()));
  };
}
