import type { z } from 'zod';
import { encodeCursor, type namesQuerySchema, type NamesPage } from '@nrp/api';
import type { MintContext } from '../context';
import { listNames } from '../data/names';

/** One page of the names minted through our controller that match, in code point order of the name. */
export async function listMintedNames(
  ctx: Pick<MintContext, 'db'>,
  query: z.output<typeof namesQuerySchema>,
): Promise<NamesPage> {
  // One row more than the page tells whether another page follows.
  const rows = await listNames(ctx.db, {
    network: query.network,
    owner: query.owner,
    parentName: query.parentName,
    labelSearch: query.labelSearch,
    after: query.cursor?.name,
    limit: query.size + 1,
  });
  const page = rows.slice(0, query.size);
  const last = page.at(-1);
  return {
    items: page.map((n) => ({
      name: n.name,
      parentName: n.parentName,
      owner: n.owner,
      wrapped: n.wrapped,
      expiry: n.expiry,
      mintedAt: n.mintedAt.toISOString(),
      txHash: n.txHash,
    })),
    nextCursor: rows.length > query.size && last ? encodeCursor({ name: last.name }) : null,
  };
}
