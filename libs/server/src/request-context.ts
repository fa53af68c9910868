import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from 'pino';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id: `x-request-id` from the caller when it is sane, else a new UUID. */
    id: string;
  }
}

/** What every log line written while a request is handled carries (see `createLogger`'s mixin). */
export interface RequestLogFields {
  reqId: string;
  traceId?: string;
  parentSpanId?: string;
}

const requestScope = new AsyncLocalStorage<RequestLogFields>();

/** The log fields of the request being handled, if any: domain code's log lines carry them with no logger passed. */
export function currentRequestLogFields(): RequestLogFields | undefined {
  return requestScope.getStore();
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const TRACEPARENT = /^([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}(-.*)?$/;

/**
 * The caller's W3C Trace Context (`traceparent`), for the log lines of this request: the trace id and the caller's
 * span id. Malformed or all-zero ids are ignored, as the recommendation says.
 */
function traceFields(
  header: string | string[] | undefined,
): { traceId: string; parentSpanId: string } | undefined {
  const match = typeof header === 'string' ? TRACEPARENT.exec(header.trim()) : null;
  if (!match) return undefined;
  const [, version, traceId = '', parentSpanId = '', rest] = match;
  if (version === 'ff' || (version === '00' && rest !== undefined)) return undefined;
  if (/^0+$/.test(traceId) || /^0+$/.test(parentSpanId)) return undefined;
  return { traceId, parentSpanId };
}

/** 503 is a refusal to do the work now (a full pool, a dependency down), not a failure of this service. */
function levelFor(status: number): 'error' | 'warn' | 'debug' {
  if (status >= 500 && status !== 503) return 'error';
  if (status >= 400) return 'warn';
  return 'debug';
}

export interface RequestContextOptions {
  logger: Logger;
  /** Set on every response: they never vary per request, so they are computed once. */
  headers: ReadonlyArray<readonly [string, string]>;
  /** Sets the headers that depend on the request; answers the request itself (a CORS preflight) and returns true. */
  answer(req: Request, res: Response): boolean;
  /** Called once per response with its duration, e.g. for the request duration histogram. */
  onFinish(req: Request, res: Response, seconds: number): void;
}

/**
 * The first middleware of every app, in one function because each Express layer costs a share of a cached answer:
 * the request id, the fixed headers, the request's log scope (every log line written while it is handled carries
 * its id and trace context), and on finish the duration observer and the access log. Quiet by default: successes
 * log at debug, client errors and 503 refusals at warn, server errors at error (the error handler logs a 503's
 * cause, a dependency's failure, at error too); nothing is built for a line whose level is off.
 */
export function requestContext({ logger, headers, answer, onFinish }: RequestContextOptions): RequestHandler {
  // Lower-case names: Node lower-cases every name it is given, which for a mixed-case name is a new string per header
  // and request.
  const fixed = headers.map(([name, value]) => [name.toLowerCase(), value] as const);
  return (req, res, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.id = id;
    res.setHeader('x-request-id', id);
    for (const [name, value] of fixed) res.setHeader(name, value);
    const trace = traceFields(req.headers.traceparent);
    const fields: RequestLogFields = trace ? { reqId: id, ...trace } : { reqId: id };
    const started = performance.now();
    res.on('finish', () => {
      const ms = performance.now() - started;
      onFinish(req, res, ms / 1000);
      const level = levelFor(res.statusCode);
      if (!logger.isLevelEnabled(level)) return;
      const line = {
        req: { method: req.method, url: req.originalUrl },
        res: { statusCode: res.statusCode },
        responseTimeMs: ms,
      };
      // 'finish' is emitted from the socket's callback, outside the request's scope.
      requestScope.run(fields, () => logger[level](line, 'request completed'));
    });
    if (!answer(req, res)) requestScope.run(fields, next);
  };
}
