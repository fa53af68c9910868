import type { NextFunction, Request, RequestHandler, Response } from 'express';

export type EndpointHandler = (req: Request, res: Response) => void | Promise<void>;

/**
 * The GET endpoints every service answers at fixed paths (`/`, `/health`, `/ready`, ...) as one Express layer with
 * one map lookup, instead of one layer each that every request to a service route would be matched against first.
 */
export function sharedEndpoints(byPath: Record<string, EndpointHandler>): RequestHandler {
  const handlers = new Map(Object.entries(byPath));
  return (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      next();
      return;
    }
    const handler = handlers.get(req.path);
    if (handler) {
      Promise.resolve(handler(req, res)).catch(next);
      return;
    }
    next();
  };
}
