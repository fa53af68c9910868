import type { Request, Response } from 'express';

export const CORS_EXPOSED_HEADERS = ['x-request-id', 'Retry-After', 'RateLimit', 'RateLimit-Policy'];
/** Browsers cache a preflight answer this long (Chromium caps it at 2 hours). */
export const CORS_MAX_AGE_SECONDS = 7200;
const ALLOWED_METHODS = 'GET,HEAD,PUT,PATCH,POST,DELETE';

export interface CorsPolicy {
  /** Headers every response carries, whatever its origin. */
  headers: Array<[string, string]>;
  /** Sets the headers that depend on the request's origin; answers a preflight (OPTIONS) itself and returns true. */
  handle(req: Request, res: Response): boolean;
}

/**
 * CORS for `origins` (`*` allows every origin): a page may read every answer and the headers it needs to quote (the
 * request id, the rate limit state); preflights are answered 204 with the requested headers allowed.
 */
export function corsPolicy(origins: readonly string[]): CorsPolicy {
  const allowAll = origins.includes('*');
  const allowed = new Set(origins);
  const headers: Array<[string, string]> = [
    ['Access-Control-Expose-Headers', CORS_EXPOSED_HEADERS.join(',')],
  ];
  if (allowAll) headers.push(['Access-Control-Allow-Origin', '*']);
  return {
    headers,
    handle(req, res) {
      if (!allowAll) {
        res.setHeader('Vary', 'Origin');
        const origin = req.headers.origin;
        if (origin !== undefined && allowed.has(origin)) res.setHeader('Access-Control-Allow-Origin', origin);
      }
      if (req.method !== 'OPTIONS') return false;
      res.setHeader('Access-Control-Allow-Methods', ALLOWED_METHODS);
      const requested = req.headers['access-control-request-headers'];
      if (requested) {
        res.setHeader('Access-Control-Allow-Headers', requested);
        res.append('Vary', 'Access-Control-Request-Headers');
      }
      res.setHeader('Access-Control-Max-Age', String(CORS_MAX_AGE_SECONDS));
      res.statusCode = 204;
      res.setHeader('Content-Length', '0');
      res.end();
      return true;
    },
  };
}
