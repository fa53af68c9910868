import { addressNamesQuerySchema, addressNamesSchema, addressParamsSchema } from '@nrp/api';
import { MAX_ANSWER_BYTES, defineRoute, type RouteDefinition } from '@nrp/server';
import type { AddressNamesLookup } from '../address-names';
import { bulkRouteProblems } from '../problems';
import { cacheControlHeader, setCacheControl, type RouteContext } from './context';

export function namesRoutes(ctx: RouteContext, lookup: AddressNamesLookup): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/ens/v2/names/:address',
      operationId: 'names',
      summary: 'Every name an address holds: minted through our controller, and offchain subnames',
      description:
        "Merges mint-svc's index of the names minted through our mint controller that the address holds now, on " +
        '`network` (`source: "minted"`, with their NameWrapper `expiry`), and offchain-svc\'s subnames whose `owner` ' +
        'is the address (`source: "offchain"`; offchain subnames have no network), over their HTTP APIs (MINT_URL, ' +
        'OFFCHAIN_URL). `isPrimary` marks the verified primary name (ENSIP-19, coin type 60), also answered as ' +
        '`primaryName`. A page holds up to 50 names of each source; `nextCursor` (opaque) asks for the next. A source ' +
        'that fails (down, slow, an error answer) does not fail the request: its names are missing, `partial` is ' +
        'true and `failedSources` names it (`minted`, `offchain`, `primaryName`), and `nextCursor` asks it again. ' +
        'Complete answers are cached for NAMES_CACHE_TTL_SECONDS; `noCache=true` asks the sources again.',
      budget: { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 30_000 },
      tags: ['names'],
      params: addressParamsSchema,
      query: addressNamesQuerySchema,
      responses: {
        200: { description: 'One page of names', schema: addressNamesSchema, headers: cacheControlHeader },
      },
      problems: bulkRouteProblems,
      rateLimit: ctx.noCacheLimit,
      handler: async ({ params, query }, _req, res) => {
        const answer = await lookup.names(
          query.network ?? ctx.config.DEFAULT_NETWORK,
          params.address,
          query.cursor,
          query.noCache ?? false,
        );
        setCacheControl(res, answer.expiresAt);
        return answer.value;
      },
    }),
  ];
}
