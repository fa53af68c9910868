import {
  bulkProfileQuerySchema,
  bulkProfileResultSchema,
  nameParamsSchema,
  profileQuerySchema,
  profileSchema,
  resolverNameParam,
  type BulkProfileResult,
} from '@nrp/api';
import { MAX_ANSWER_BYTES, defineRoute, type RouteDefinition } from '@nrp/server';
import type { ResolverContext } from '../context';
import { parseBulkItem, bulkRouteProblems, nameRouteProblems } from '../problems';
import { cacheControlHeader, runBulk } from '../resolution/answers';
import {
  DEFAULT_COIN_TYPES,
  DEFAULT_TEXT_KEYS,
  type RecordSelection,
  type ResolvedRecords,
} from '../resolution/records';
import { toProfile, type Fresh } from '../resolution/resolution';

function profileSelection(query: {
  texts?: string[];
  addresses?: number[];
  contenthash?: boolean;
}): RecordSelection {
  return {
    texts: query.texts ?? DEFAULT_TEXT_KEYS,
    coins: query.addresses ?? DEFAULT_COIN_TYPES,
    contenthash: query.contenthash ?? false,
  };
}

export function profileRoutes(ctx: ResolverContext): RouteDefinition[] {
  return [
    // Registered before /profile/:name so that `bulk` is never taken for a name.
    defineRoute({
      method: 'get',
      path: '/ens/v2/profile/bulk',
      operationId: 'getProfiles',
      budget: { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 60_000 },
      summary: 'Profiles of up to 20 names',
      description:
        'One entry per distinct input name, in input order (duplicate inputs are removed). An entry that fails ' +
        '(invalid name, upstream failure) is `type: "error"` with the status, code and detail the single ' +
        'endpoint would have answered; it does not fail the others. Same record options as the profile.',
      tags: ['profiles'],
      query: bulkProfileQuerySchema,
      responses: {
        200: {
          description: 'One entry per input',
          schema: bulkProfileResultSchema,
          headers: cacheControlHeader,
        },
      },
      problems: bulkRouteProblems,
      rateLimit: ctx.noCacheLimit,
      handler: async ({ query }, req, res) => {
        const network = query.network ?? ctx.config.DEFAULT_NETWORK;
        const selection = profileSelection(query);
        const results: BulkProfileResult['results'] = await runBulk(
          query.names,
          ctx.logger,
          res,
          async (input, index) => {
            const name = parseBulkItem('names', index, resolverNameParam, input);
            const records = await ctx.resolution.records(network, name, selection, query.noCache ?? false);
            return {
              entry: { type: 'success' as const, input, profile: toProfile(name, records.value) },
              expiresAt: records.expiresAt,
            };
          },
        );
        return { results };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/ens/v2/profile/:name',
      operationId: 'getProfile',
      budget: { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 45_000 },
      summary: 'Profile of a name',
      description:
        'Text records, multichain addresses and (with `contenthash=true`) the contenthash of a name, resolved ' +
        'through the universal resolver (ENSIP-10 wildcard, EIP-3668 CCIP-Read) in one `eth_call`. Every ' +
        'requested record is listed, with `exists: false` and an empty value when unset; an unknown name or a ' +
        'name without resolver is a profile with every record `exists: false`.',
      tags: ['profiles'],
      params: nameParamsSchema,
      query: profileQuerySchema,
      responses: { 200: { description: 'The profile', schema: profileSchema, headers: cacheControlHeader } },
      problems: nameRouteProblems,
      rateLimit: ctx.noCacheLimit,
      handler: ({ params, query }, _req, res) => {
        const network = query.network ?? ctx.config.DEFAULT_NETWORK;
        const selection = profileSelection(query);
        const send = (records: Fresh<ResolvedRecords>): void =>
          ctx.rendered.send(
            res,
            profileSchema,
            records.value,
            () => toProfile(params.name, records.value),
            records.expiresAt,
          );
        // A warm answer is sent at once, without a promise.
        const cached = query.noCache
          ? undefined
          : ctx.resolution.cachedRecords(network, params.name, selection);
        if (cached) return send(cached);
        return ctx.resolution.records(network, params.name, selection, query.noCache ?? false).then(send);
      },
    }),
  ];
}
