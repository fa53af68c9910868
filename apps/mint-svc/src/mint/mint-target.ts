import type { MintNetwork } from '@nrp/api';
import { l2sSettlingOn, settlementOf } from '@nrp/chain';
import { isL2Network, type NetworkName } from '@nrp/ens';
import { ProblemError } from '@nrp/validation';
import type { MintContext } from '../context';
import { findListing, type StoredListing } from '../data/listings';
import type { L2Parent } from './l2-controllers';
import { mintProblems } from '../problems';

/** Which network a mint or estimate is for, as the client said it: `network`, else `isTestnet` (default false). */
export interface NetworkChoice {
  network?: MintNetwork | undefined;
  isTestnet?: boolean | undefined;
}

/** The listing a mint is for, where its parent is owned and, on an L2, the registry and controller that mint it. */
export interface MintTarget {
  network: MintNetwork;
  /** The L1 the parent is owned on: the network itself, or the L1 the L2 settles on. */
  settlement: NetworkName;
  listing: StoredListing;
  /** Null on an L1. */
  l2: L2Parent | null;
}

/**
 * The networks to look the listing up on, in order: `network` alone when given; else the L1 of `isTestnet`'s kind
 * (mainnet or sepolia), then the L2s that settle on it, so clients that send only `isTestnet` mint L2 listings too.
 */
export function candidateNetworks(choice: NetworkChoice): MintNetwork[] {
  if (choice.network) return [choice.network];
  const l1: NetworkName = choice.isTestnet === true ? 'sepolia' : 'mainnet';
  return [l1, ...l2sSettlingOn(l1)];
}

/** The L2MintController serving `parentName` on `network`, or null on an L1; undefined when none is configured. */
export async function l2ParentOf(
  ctx: Pick<MintContext, 'l2'>,
  network: MintNetwork,
  parentName: string,
): Promise<L2Parent | null | undefined> {
  return isL2Network(network) ? ctx.l2[network].find(parentName) : null;
}

/**
 * The first candidate network with a listing of `parentName` (on an L2, also a configured controller serving it);
 * LISTING_NOT_FOUND otherwise: an L2 parent no controller serves is not listed.
 */
export async function findMintTarget(
  ctx: Pick<MintContext, 'db' | 'l2'>,
  choice: NetworkChoice,
  parentName: string,
): Promise<MintTarget> {
  const candidates = candidateNetworks(choice);
  for (const network of candidates) {
    const listing = await findListing(ctx.db, network, parentName);
    if (!listing) continue;
    const l2 = await l2ParentOf(ctx, network, parentName);
    if (l2 === undefined) continue;
    return { network, settlement: settlementOf(network), listing, l2 };
  }
  throw new ProblemError(
    mintProblems.LISTING_NOT_FOUND,
    `${parentName} is not listed for minting on ${candidates.join(' or ')}.`,
  );
}
