import { nonceRoute } from '@nrp/auth';
import { nonceRequestSchema, nonceResponseSchema } from '@nrp/api';
import type { RouteDefinition } from '@nrp/server';
import type { MetadataContext } from '../context';

export function signInRoutes(ctx: MetadataContext): RouteDefinition[] {
  return [
    nonceRoute({
      path: '/auth/nonce',
      operationId: 'getNonce',
      body: nonceRequestSchema,
      response: nonceResponseSchema,
      scopes: '`avatar` and `header` authorise uploads and deletes of that kind, `avatar+header` either.',
      nonces: ctx.nonces,
      ttlMs: ctx.config.NONCE_TTL_MS,
      rateLimitPerMinute: ctx.config.NONCE_RATE_LIMIT_PER_MINUTE,
      now: ctx.now,
    }),
  ];
}
