import { randomUUID } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import type { Logger } from './logger';

declare module 'express-serve-static-core' {
  interface Request {
    /** The request id: `x-request-id` from the caller when it is sane, else a new UUID. */
    id: string;
    /** A child logger carrying the request id, made on first use. */
    log: Logger;
  }
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

function levelFor(status: number): 'error' | 'warn' | 'debug' {
  if (status >= 500) return 'error';
  if (status >= 400) return 'warn';
  return 'debug';
}

/**
 * Request ids, W3C trace context and access logs. Quiet by default: successful requests log at debug, client errors at warn, server
 * errors at error; nothing is built for a log line whose level is off, which keeps warm requests cheap.
 */
export function requestContext(logger: Logger): RequestHandler {
  return (req: Request, res: Response, next) => {
    const incoming = req.headers['x-request-id'];
    const id = typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID();
    req.id = id;
    res.setHeader('x-request-id', id);
    let child: Logger | undefined;
    Object.defineProperty(req, 'log', {
      configurable: true,
      get: () => (child ??= logger.child({ reqId: id, ...traceFields(req.headers.traceparent) })),
    });
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const level = levelFor(res.statusCode);
      if (!logger.isLevelEnabled(level)) return;
      req.log[level](
        {
          req: { method: req.method, url: req.originalUrl },
          res: { statusCode: res.statusCode },
          responseTimeMs: Number(process.hrtime.bigint() - started) / 1e6,
        },
        'request completed',
      );
    });
    next();
  };
}
