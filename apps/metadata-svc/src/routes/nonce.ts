import { nonceRequestSchema, nonceResponseSchema } from '@nrp/api';
import { defineRoute, type RouteDefinition } from '@nrp/server';
import { commonProblems } from '@nrp/validation';
import type { MetadataContext } from '../context';

export function nonceRoutes(ctx: MetadataContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/auth/nonce',
      operationId: 'getNonce',
      summary: 'Issue a sign-in nonce',
      description:
        'A single-use nonce for an EIP-4361 message, bound to `address` (case-insensitive) and to `scope`. It ' +
        `lives ${ctx.config.NONCE_TTL_MS / 1000} s; \`expiresAt\` is Unix time in milliseconds. The first upload ` +
        'or delete it authorises consumes it.',
      tags: ['auth'],
      body: nonceRequestSchema,
      responses: { 200: { description: 'The nonce', schema: nonceResponseSchema } },
      problems: [commonProblems.INVALID_INPUT, commonProblems.RATE_LIMITED],
      rateLimit: { name: 'nonce', windowMs: 60_000, limit: ctx.config.NONCE_RATE_LIMIT_PER_MINUTE },
      handler: async ({ body }) => ctx.nonces.issue(body.address, body.scope, ctx.now()),
    }),
  ];
}
