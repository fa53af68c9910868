import type { Response } from 'express';
import type { NetworkName } from '@nrp/chain';
import type { Resolution } from '../resolution';

/** What the routes need: the resolution (with its cache) and the network a request without `network` uses. */
export interface RouteContext {
  resolution: Resolution;
  defaultNetwork: NetworkName;
}

/** `Cache-Control` fitting what is left of the answer's TTL. */
export function setCacheControl(res: Response, expiresAt: number, now = Date.now()): void {
  const seconds = Math.max(0, Math.floor((expiresAt - now) / 1000));
  res.setHeader('Cache-Control', seconds > 0 ? `public, max-age=${seconds}` : 'no-cache');
}

export const cacheControlHeader = {
  'Cache-Control': 'public, max-age=<seconds left of the cached answer> (no-cache when caching is off)',
};
