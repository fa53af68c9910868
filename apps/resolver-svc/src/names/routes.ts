import { addressNamesQuerySchema, addressNamesSchema, addressParamsSchema } from '@nrp/api';
import { MAX_ANSWER_BYTES, defineRoute, type RouteDefinition } from '@nrp/server';
import type { ResolverContext } from '../context';
import { bulkRouteProblems } from '../problems';
import { cacheControlHeader, setCacheControl } from '../resolution/answers';

export function namesRoutes(ctx: ResolverContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/ens/v2/names/:address',
      operationId: 'names',
      summary:
        'Every name an address holds: minted through our controller (on the L1 and its L2), and offchain subnames',
      description:
        "Merges, over their HTTP APIs (MINT_URL, OFFCHAIN_URL), mint-svc's index of the names minted through our " +
        'mint controller that the address holds now on `network` (`source: "minted"`, `network` the L1, with their ' +
        "NameWrapper `expiry`), mint-svc's index of the names minted on our L2 registries of the L2 that settles on " +
        '`network` (`base-sepolia` for `sepolia`, `base` for `mainnet`; they resolve from that L1 through CCIP-Read): ' +
        '`source: "minted"`, `network` the L2, holder from the registry\'s ERC-721 `Transfer`, `expiry` the ' +
        "registry's (null: never), and offchain-svc's subnames whose `owner` is the address (`source: " +
        '"offchain"`, no `network`: they have no token). Each name\'s `network` says where its token lives. ' +
        '`isPrimary` marks the verified primary name (ENSIP-19, coin type 60), also answered as `primaryName`. A ' +
        'page holds up to NAMES_PAGE_SIZE_PER_SOURCE (50) names of each source, L1 minted names first, then L2, then ' +
        'offchain; `nextCursor` (opaque) asks for the next. A source that fails (down, slow, an error answer) does ' +
        'not fail the request: its names are missing, `partial` is true and `failedSources` names it (`minted`: the ' +
        'L1 index, `mintedL2`: the L2 index, `offchain`, `primaryName`), and `nextCursor` asks it again. Complete ' +
        'answers are cached for NAMES_CACHE_TTL_SECONDS; `noCache=true` asks the sources again.',
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
        const answer = await ctx.addressNames.names(
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
