import { authProblems, nonceRoute } from '@nrp/auth';
import {
  createdKeySchema,
  createKeyRequest,
  createSessionRequest,
  keyIdParams,
  listKeysResponse,
  parentSetupParams,
  parentSetupQuery,
  parentSetupSchema,
  sessionNonceRequest,
  sessionNonceResponse,
  sessionSchema,
} from '@nrp/api';
import { MAX_ANSWER_BYTES, defineRoute, type RouteDefinition } from '@nrp/server';
import { commonProblems } from '@nrp/validation';
import type { OffchainContext } from '../context';
import { offchainProblems } from '../problems';
import { parentSetup } from './parent-setup';
import { createKey, listKeys, revokeKey } from './self-serve-keys';
import { requireSession, signedInSession, signIn, signOut } from './sessions';

/**
 * Onboarding of name owners: sign-in (a session for a signed EIP-4361 message), the API keys a signed-in address
 * issues for the names it controls on chain, and the setup that points a parent name at our offchain resolver.
 */
export function keyRoutes(ctx: OffchainContext): RouteDefinition[] {
  return [...signInRoutes(ctx), ...selfServeKeyRoutes(ctx), parentSetupRoute(ctx)];
}

/** Sign-in of name owners: a nonce, a session (bearer token) for a signed EIP-4361 message, and its end. */
function signInRoutes(ctx: OffchainContext): RouteDefinition[] {
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
      tags: ['auth'],
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
      tags: ['auth'],
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

/** API keys that a signed-in address issues for the names it controls on chain. */
function selfServeKeyRoutes(ctx: OffchainContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/keys',
      operationId: 'createKey',
      security: 'session',
      summary: 'Issue an API key for a name the signed-in address controls',
      description:
        'The signed-in address must control `parentName` on `network` now (read from the chain at this request): ' +
        'its NameWrapper owner when wrapped, else its registry owner; the `.eth` registrant alone is not enough. ' +
        'Otherwise 403 NOT_NAME_MANAGER naming who controls it, and nothing is stored. 201: the key (shown only ' +
        'here; `x-auth-token` of the subname routes). It manages the direct children of `parentName`, or every ' +
        'name below it with `includeDescendants`. It follows control: once its issuer no longer controls the name ' +
        'it answers 401 KEY_OWNER_CHANGED (within NAME_CONTROL_CACHE_MS, at most 60 s); subnames written stay. A key ' +
        'with webhooks is revoked by a periodic check within NAME_CONTROL_CACHE_MS, so its webhooks stop unused. ' +
        'An address holds at most KEYS_PER_ADDRESS (100) live keys: one more is a 409 KEY_LIMIT_REACHED.',
      budget: { bodyBytes: 16 * 1024, answerBytes: 8 * 1024, timeMs: 30_000 },
      tags: ['keys'],
      before: [requireSession(ctx)],
      body: createKeyRequest,
      responses: { 201: { description: 'The key, shown once.', schema: createdKeySchema } },
      problems: [
        commonProblems.UNAUTHORIZED,
        commonProblems.INVALID_NAME,
        offchainProblems.NOT_NAME_MANAGER,
        offchainProblems.KEY_LIMIT_REACHED,
        commonProblems.UPSTREAM_ERROR,
      ],
      handler: async ({ body }, req, res) => {
        const created = await createKey(ctx, signedInSession.of(req), body);
        res.status(201);
        return created;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/keys',
      operationId: 'listKeys',
      security: 'session',
      summary: 'List the API keys the signed-in address issued',
      description:
        'Live keys, oldest first, without secrets; `lastUsedAt` is the last write they authorised. At most ' +
        'KEYS_PER_ADDRESS (100), the most an address may hold.',
      budget: { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 10_000 },
      tags: ['keys'],
      before: [requireSession(ctx)],
      responses: { 200: { description: 'The keys.', schema: listKeysResponse } },
      problems: [commonProblems.UNAUTHORIZED],
      handler: (_input, req) => listKeys(ctx, signedInSession.of(req)),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/v1/keys/:id',
      operationId: 'revokeKey',
      security: 'session',
      summary: 'Revoke an API key',
      description: 'A key the signed-in address issued; refused from now on. 204; 404 for any other id.',
      budget: { bodyBytes: 0, answerBytes: 1024, timeMs: 10_000 },
      tags: ['keys'],
      before: [requireSession(ctx)],
      params: keyIdParams,
      responses: { 204: { description: 'Revoked.' } },
      problems: [commonProblems.UNAUTHORIZED, offchainProblems.KEY_NOT_FOUND],
      handler: async ({ params }, req, res) => {
        await revokeKey(ctx, signedInSession.of(req), params.id);
        res.status(204).end();
      },
    }),
  ];
}

/** What a parent name needs on chain to serve offchain subnames. */
function parentSetupRoute(ctx: OffchainContext): RouteDefinition {
  return defineRoute({
    method: 'get',
    path: '/api/v1/parents/:parentName/setup',
    operationId: 'parentSetup',
    summary: 'What a parent name needs on chain to serve offchain subnames, or the choice of an L2 parent',
    description:
      'Read from the chain of `network`: who controls the name (NameWrapper owner when wrapped, else registry ' +
      'owner; remembered up to NAME_CONTROL_CACHE_MS), its resolver, whether that is our offchain resolver, and ' +
      '`steps`: the transactions (`to`, `data`, `value` in wei) its controller sends, in order, so that every ' +
      'ENS client resolves its offchain subnames through this service — `setResolver` on the ENS registry, or on ' +
      'the NameWrapper for a wrapped name. `ready` with no steps once done. A parent whose subnames live on one of ' +
      'our L2 registries (`<L2>_L2_REGISTRIES` of an L2 settling on `network`, matched by its `parentName()`) ' +
      'chooses its L1 resolver instead: `l2.options` lists the signed one (`L2NameResolver`, offered when ' +
      '`GATEWAY_SIGNER_KEY` is set: trusts our gateway signer, answers as fresh as the L2) and the proven one ' +
      '(`ProvenL2Resolver`, offered when `<L2>_PROOF_VERIFIER` is set: trusts nothing of ours, answers lag the L2 by ' +
      "the rollup's posting and the verifier's window), each with its `trust` in words, its `gatewayUrl` (this " +
      "service at `PUBLIC_BASE_URL`), whether it is `chosen` (the resolver set has that contract's `l2Registry()`, " +
      'and a `verifier()` for the proven one) and its `steps`: the deployment (`to` null), then `setResolver` to ' +
      "the address it gets as the controller's next transaction. `ready` once either is chosen; top-level `steps` " +
      'stay empty for an L2 parent, and `OFFCHAIN_RESOLVER_NOT_CONFIGURED` does not apply to it.',
    // An L2 parent's answer carries the creation code of both resolvers (about 31 KB of hex).
    budget: { bodyBytes: 0, answerBytes: 64 * 1024, timeMs: 30_000 },
    tags: ['parents'],
    params: parentSetupParams,
    query: parentSetupQuery,
    responses: { 200: { description: 'The setup.', schema: parentSetupSchema } },
    problems: [
      commonProblems.INVALID_NAME,
      commonProblems.UPSTREAM_ERROR,
      offchainProblems.OFFCHAIN_RESOLVER_NOT_CONFIGURED,
    ],
    handler: ({ params, query }) => parentSetup(ctx, query.network, params.parentName),
  });
}
