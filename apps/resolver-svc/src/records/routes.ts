import {
  addressesQuerySchema,
  addressesResultSchema,
  nameParamsSchema,
  textsQuerySchema,
  textsResultSchema,
} from '@nrp/api';
import { MAX_ANSWER_BYTES, defineRoute, type RouteDefinition } from '@nrp/server';
import type { ResolverContext } from '../context';
import { nameRouteProblems } from '../problems';
import { cacheControlHeader } from '../resolution/answers';
import { DEFAULT_COIN_TYPES, WELL_KNOWN_TEXT_KEYS } from '../resolution/records';

export function recordRoutes(ctx: ResolverContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/ens/v2/addresses/:name',
      operationId: 'getAddresses',
      budget: { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 45_000 },
      summary: 'Multichain addresses of a name',
      description:
        "Address records decoded into each chain's native format (EVM: EIP-55 checksummed; BTC, SOL, … per " +
        'address-encoder). Filter by `coins` (coin types) or by `chains` (short names from GET /ens/v2/chains), ' +
        'not both; without a filter the 8 default chains. An unknown chain name is a 400.',
      tags: ['records'],
      params: nameParamsSchema,
      query: addressesQuerySchema,
      responses: {
        200: { description: 'The addresses', schema: addressesResultSchema, headers: cacheControlHeader },
      },
      problems: nameRouteProblems,
      rateLimit: ctx.noCacheLimit,
      handler: async ({ params, query }, _req, res) => {
        const network = query.network ?? ctx.config.DEFAULT_NETWORK;
        const coins = query.coins ?? query.chains ?? DEFAULT_COIN_TYPES;
        const records = await ctx.resolution.records(
          network,
          params.name,
          { texts: [], coins, contenthash: false },
          query.noCache ?? false,
        );
        const build = () => ({ name: params.name, addresses: records.value.addresses });
        ctx.rendered.send(res, addressesResultSchema, records.value, build, records.expiresAt);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/ens/v2/texts/:name',
      operationId: 'getTexts',
      budget: { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 45_000 },
      summary: 'Text records of a name',
      description:
        'The text records named in `keys`. Without `keys`, every well-known key (ENS has no on-chain list of ' +
        `the keys a resolver holds): ${WELL_KNOWN_TEXT_KEYS.join(', ')}. Every requested key is listed, with ` +
        '`exists: false` and an empty value when unset.',
      tags: ['records'],
      params: nameParamsSchema,
      query: textsQuerySchema,
      responses: {
        200: { description: 'The texts', schema: textsResultSchema, headers: cacheControlHeader },
      },
      problems: nameRouteProblems,
      rateLimit: ctx.noCacheLimit,
      handler: async ({ params, query }, _req, res) => {
        const network = query.network ?? ctx.config.DEFAULT_NETWORK;
        const texts = query.keys ?? WELL_KNOWN_TEXT_KEYS;
        const records = await ctx.resolution.records(
          network,
          params.name,
          { texts, coins: [], contenthash: false },
          query.noCache ?? false,
        );
        const build = () => ({ name: params.name, texts: records.value.texts });
        ctx.rendered.send(res, textsResultSchema, records.value, build, records.expiresAt);
      },
    }),
  ];
}
