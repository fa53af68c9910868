import {
  addressParamsSchema,
  bulkReverseQuerySchema,
  bulkReverseResultSchema,
  reverseProfileSchema,
  reverseQuerySchema,
  type BulkReverseResult,
} from '@nrp/api';
import { MAX_ANSWER_BYTES, defineRoute, type RouteDefinition } from '@nrp/server';
import { ETH_COIN_TYPE } from '@nrp/ens';
import { ethAddress } from '@nrp/validation';
import type { ResolverContext } from '../context';
import { addressRouteProblems, parseBulkItem, bulkRouteProblems } from '../problems';
import { cacheControlHeader, runBulk, setCacheControl } from '../resolution/answers';
import { DEFAULT_COIN_TYPES, DEFAULT_TEXT_KEYS, type RecordSelection } from '../resolution/records';

/** ENSIP-19 coin type of the request: `coinType`, else `chain`'s, else 60 (Ethereum). */
function requestedCoinType(query: { coinType?: number; chain?: number }): number {
  return query.coinType ?? query.chain ?? ETH_COIN_TYPE;
}

function reverseSelection(
  query: { texts?: string[]; contenthash?: boolean },
  coins: number[] | undefined,
): RecordSelection {
  return {
    texts: query.texts ?? DEFAULT_TEXT_KEYS,
    coins: coins ?? DEFAULT_COIN_TYPES,
    contenthash: query.contenthash ?? true,
  };
}

export function reverseRoutes(ctx: ResolverContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/ens/v2/reverse/bulk',
      operationId: 'getReverseProfiles',
      budget: { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 60_000 },
      summary: 'Reverse profiles of up to 20 addresses',
      description:
        'One entry per distinct input address, in input order (duplicate inputs are removed). An entry that ' +
        'fails (invalid address, upstream failure) is `type: "error"` with the status, code and detail the ' +
        'single endpoint would have answered; it does not fail the others. `addresses` lists the addresses, so ' +
        'the address records of each profile are selected with `records` (chain names or coin types). ' +
        '`coinType` or `chain` selects the ENSIP-19 primary name (default coin type 60), as for one address.',
      tags: ['reverse'],
      query: bulkReverseQuerySchema,
      responses: {
        200: {
          description: 'One entry per input',
          schema: bulkReverseResultSchema,
          headers: cacheControlHeader,
        },
      },
      problems: bulkRouteProblems,
      rateLimit: ctx.noCacheLimit,
      handler: async ({ query }, req, res) => {
        const network = query.network ?? ctx.config.DEFAULT_NETWORK;
        const selection = reverseSelection(query, query.records);
        const results: BulkReverseResult['results'] = await runBulk(
          query.addresses,
          ctx.logger,
          res,
          async (input, index) => {
            const address = parseBulkItem('addresses', index, ethAddress, input);
            const reverse = await ctx.resolution.reverseProfile(
              network,
              address,
              requestedCoinType(query),
              selection,
              query.noCache ?? false,
            );
            return {
              entry: { type: 'success' as const, input, reverse: reverse.value },
              expiresAt: reverse.expiresAt,
            };
          },
        );
        return { results };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/ens/v2/reverse/:address/profile',
      operationId: 'getReverseProfile',
      budget: { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 45_000 },
      summary: 'Primary name and profile of an address',
      description:
        'The primary name is the ENSIP-19 reverse record of the requested coin type (`coinType`, or the coin type ' +
        'of `chain`; default 60, Ethereum; `base` reads the Base primary name, falling back to the default EVM ' +
        'name as ENSIP-19 specifies) and counts only when verified: the name must be normalised and its forward ' +
        'address of that same coin type must equal the requested address. Otherwise 200 with ' +
        '`hasReverseRecord: false` and null `name`, `avatar`, `displayName`, `description` and `profile`. ' +
        '`avatar`, `displayName` and `description` are the `avatar`, `name` and `description` text records, ' +
        'always resolved; `profile.texts` lists the requested keys. `avatarUrl` is the avatar as an HTTPS image ' +
        'URL of metadata-svc (`{METADATA_PUBLIC_URL}/{network}/avatar/{name}`, which resolves every ENSIP-12 kind), ' +
        'null without an avatar record or without METADATA_PUBLIC_URL. `noCache` applies to both lookups.',
      tags: ['reverse'],
      params: addressParamsSchema,
      query: reverseQuerySchema,
      responses: {
        200: {
          description: 'The reverse profile',
          schema: reverseProfileSchema,
          headers: cacheControlHeader,
        },
      },
      problems: addressRouteProblems,
      rateLimit: ctx.noCacheLimit,
      handler: async ({ params, query }, _req, res) => {
        const network = query.network ?? ctx.config.DEFAULT_NETWORK;
        const reverse = await ctx.resolution.reverseProfile(
          network,
          params.address,
          requestedCoinType(query),
          reverseSelection(query, query.addresses),
          query.noCache ?? false,
        );
        setCacheControl(res, reverse.expiresAt);
        return reverse.value;
      },
    }),
  ];
}
