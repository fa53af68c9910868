import { createdKeySchema, createKeyRequest, keyIdParams, listKeysResponse } from '@nrp/api';
import { MAX_ANSWER_BYTES, defineRoute, type RouteDefinition } from '@nrp/server';
import { commonProblems } from '@nrp/validation';
import type { OffchainContext } from '../context';
import { offchainProblems } from '../problems';
import { createKey, listKeys, revokeKey } from '../self-serve-keys';
import { requireSession, signedInSession } from '../sessions';

const TAG = ['keys'];

/** API keys that a signed-in address issues for the names it controls on chain. */
export function keyRoutes(ctx: OffchainContext): RouteDefinition[] {
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
      tags: TAG,
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
      tags: TAG,
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
      tags: TAG,
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
