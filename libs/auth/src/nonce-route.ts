import type { z } from 'zod';
import { defineRoute, type RouteDefinition } from '@nrp/server';
import { commonProblems } from '@nrp/validation';
import type { NonceStore } from './nonce-store';

export interface NonceRouteOptions<B extends z.ZodType<{ address: string; scope: string }>> {
  /** e.g. `/auth/nonce`. */
  path: string;
  /** The typed client's method name. */
  operationId: string;
  /** The service's request schema: `address` and `scope` (its scopes and default). */
  body: B;
  response: z.ZodType;
  /** One sentence saying what each scope authorises. */
  scopes: string;
  nonces: NonceStore;
  /** The store's nonce lifetime, for the description. */
  ttlMs: number;
  rateLimitPerMinute: number;
  now: () => Date;
}

/** `POST {path}`: the sign-in nonce route, the same in every service that verifies sign-ins. */
export function nonceRoute<B extends z.ZodType<{ address: string; scope: string }>>(
  options: NonceRouteOptions<B>,
): RouteDefinition {
  const { nonces, now } = options;
  return defineRoute({
    method: 'post',
    path: options.path,
    operationId: options.operationId,
    budget: { bodyBytes: 4 * 1024, answerBytes: 1024, timeMs: 5_000 },
    summary: 'Issue a sign-in nonce',
    description:
      'A single-use nonce for an EIP-4361 message, bound to `address` (case-insensitive) and to `scope`: ' +
      `${options.scopes} It lives ${options.ttlMs / 1000} s; \`expiresAt\` is Unix time in milliseconds. The ` +
      'first signed request it authorises consumes it; a request refused before its nonce is checked leaves it usable.',
    tags: ['auth'],
    body: options.body,
    responses: { 200: { description: 'The nonce', schema: options.response } },
    problems: [commonProblems.INVALID_INPUT, commonProblems.RATE_LIMITED],
    rateLimit: { name: 'nonce', windowMs: 60_000, limit: options.rateLimitPerMinute },
    handler: ({ body }) => nonces.issue(body.address, body.scope, now()),
  });
}
