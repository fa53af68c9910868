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

function levelFor(status: number): 'error' | 'warn' | 'debug' {
  if (status >= 500) return 'error';
  if (status >= 400) return 'warn';
  return 'debug';
}

/**
 * Request ids and access logs. Quiet by default: successful requests log at debug, client errors at warn, server
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
      get: () => (child ??= logger.child({ reqId: id })),
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
