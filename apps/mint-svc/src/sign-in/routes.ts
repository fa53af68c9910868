import { nonceRoute } from '@nrp/auth';
import { mintNonceRequestSchema, mintNonceResponseSchema } from '@nrp/api';
import type { RouteDefinition } from '@nrp/server';
import type { MintContext } from '../context';

/** `POST /api/v1/auth/nonce` (scopes `listing` and `minter`). */
export function signInRoutes(ctx: MintContext): RouteDefinition[] {
  return [
    nonceRoute({
      path: '/api/v1/auth/nonce',
      operationId: 'requestMintNonce',
      body: mintNonceRequestSchema,
      response: mintNonceResponseSchema,
      scopes: '`listing` authorises PUT/DELETE of listings, `minter` authorises POST /api/v1/minters/verify.',
      nonces: ctx.nonces,
      ttlMs: ctx.config.NONCE_TTL_MS,
      rateLimitPerMinute: ctx.config.NONCE_RATE_LIMIT_PER_MINUTE,
      now: ctx.now,
    }),
  ];
}
