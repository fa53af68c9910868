import { authProblems, nonceRoute } from '@nrp/auth';
import { createSessionRequest, sessionNonceRequest, sessionNonceResponse, sessionSchema } from '@nrp/api';
import { defineRoute, type RouteDefinition } from '@nrp/server';
import { commonProblems } from '@nrp/validation';
import type { OffchainContext } from '../context';
import { requireSession, signedInSession, signIn, signOut } from '../sessions';

const TAG = ['auth'];

/** Sign-in of name owners: a nonce, a session (bearer token) for a signed EIP-4361 message, and its end. */
export function authRoutes(ctx: OffchainContext): RouteDefinition[] {
  return [
    nonceRoute({
      path: '/api/v1/auth/nonce',
      operationId: 'requestSessionNonce',
      body: sessionNonceRequest,
      response: sessionNonceResponse,
      scopes: 'The only scope, `session`, authorises `POST /api/v1/auth/session`.',
      nonces: ctx.nonces,
      ttlMs: ctx.config.NONCE_TTL_MS,
      rateLimitPerMinute: ctx.config.NONCE_RATE_LIMIT_PER_MINUTE,
      now: ctx.now,
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/auth/session',
      operationId: 'signIn',
      security: 'signIn',
      summary: 'Sign in with Ethereum: a session token',
      description:
        'An EIP-4361 message signed by `address`, under the rules of every service: its domain is one of ' +
        'SIWE_DOMAINS, its nonce a live one from `POST /api/v1/auth/nonce` for this address (single-use), its ' +
        'chain id that of one of the networks (mainnet 1, sepolia 11155111; ERC-1271 wallets, and ERC-6492 signatures ' +
        'of smart accounts not deployed yet, are checked there), ' +
        '`Issued At`, `Expiration Time` and `Not Before` hold; a message that binds itself (Resources, or a URI ' +
        'of this service, under `{PUBLIC_BASE_URL}`) must name `{PUBLIC_BASE_URL}/api/v1/auth/session`. 201: an opaque ' +
        'token for `Authorization: Bearer`, stored only as its hash (every replica accepts it), valid for ' +
        'SESSION_TTL_SECONDS (24 h) or until the message expires, whichever comes first.',
      budget: { bodyBytes: 16 * 1024, answerBytes: 8 * 1024, timeMs: 30_000 },
      tags: TAG,
      body: createSessionRequest,
      responses: { 201: { description: 'Signed in.', schema: sessionSchema } },
      problems: Object.values(authProblems),
      handler: async ({ body }, _req, res) => {
        const session = await signIn(ctx, body);
        res.status(201);
        return session;
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/v1/auth/session',
      operationId: 'signOut',
      security: 'session',
      summary: 'End the session',
      description: 'The bearer token is refused from now on. 204.',
      budget: { bodyBytes: 0, answerBytes: 1024, timeMs: 10_000 },
      tags: TAG,
      before: [requireSession(ctx)],
      responses: { 204: { description: 'Signed out.' } },
      problems: [commonProblems.UNAUTHORIZED],
      handler: async (_input, req, res) => {
        await signOut(ctx, signedInSession.of(req));
        res.status(204).end();
      },
    }),
  ];
}
