import { namesPageSchema, namesQuerySchema } from '@nrp/api';
import { MAX_ANSWER_BYTES, defineRoute, type RouteDefinition } from '@nrp/server';
import type { MintContext } from '../context';
import { listMintedNames } from './names';

/** `GET /api/v1/names`: the names index. */
export function namesIndexRoutes(ctx: MintContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/names',
      operationId: 'listNames',
      summary: 'Names minted through our controller, with who holds them now',
      description:
        "The service's index of the controller's `SubnameMinted` events, following each name's holder (NameWrapper " +
        "`TransferSingle`/`TransferBatch` for wrapped names, the registry's `Transfer`/`NewOwner` for unwrapped ones) " +
        'and its NameWrapper expiry, INDEX_CONFIRMATIONS blocks under the head. On an L2 (`base`, `base-sepolia`): the ' +
        "configured L2MintControllers' `SubnameMinted`, then each name's holder (its L2Registry's ERC-721 `Transfer`; " +
        'the zero address once revoked) and registry expiry (`NameRegistered`); `wrapped` is false. Filters combine (`owner`, `parentName`, ' +
        '`labelSearch`). Names come in code point order, `size` per page (1 to 100); `nextCursor` is the opaque ' +
        'cursor of the next page. 400 (problem+json): an `owner` that is not an address, an unknown `network` or ' +
        'parameter, a `parentName` that does not normalise, a `size` outside 1-100, a cursor this service did not hand ' +
        'out. How far the index is behind the chain, and its failed runs in a row: `/ready` and the metrics ' +
        '`name_index_lag_blocks`, `name_index_failures`.',
      budget: { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 10_000 },
      tags: ['names'],
      query: namesQuerySchema,
      responses: { 200: { description: 'One page of names.', schema: namesPageSchema } },
      handler: ({ query }) => listMintedNames(ctx, query),
    }),
  ];
}
