import { getOwner, settlementOf } from '@nrp/chain';
import { type DeleteListingResponse, type Listing, type ListingSettings, type MintNetwork } from '@nrp/api';
import { namehash } from '@nrp/ens';
import { ProblemError } from '@nrp/validation';
import type { MintContext } from '../context';
import {
  findListing,
  removeListing,
  toListingResponse,
  upsertListing,
  type StoredListing,
} from '../data/listings';
import type { L2Parent } from '../mint/l2-controllers';
import { l2ParentOf } from '../mint/mint-target';
import { mintProblems } from '../problems';
import { verifySignedRequest, type SignedFields, type SignInContext } from '../sign-in/sign-in';

/** What changing a listing reads and writes. */
type ListingContext = SignInContext & Pick<MintContext, 'db' | 'l2'>;

/** A listing's parent: the network and the (normalised) parent name. */
export interface ListingTarget {
  network: MintNetwork;
  parentName: string;
}

function notListed({ network, parentName }: ListingTarget): ProblemError {
  return new ProblemError(mintProblems.LISTING_NOT_FOUND, `${parentName} is not listed on ${network}.`);
}

/**
 * The L2MintController serving the parent on an L2 (L2_PARENT_NOT_SERVED without one), null on an L1: an L2
 * listing needs one to be minted, and its answer names it.
 */
async function servingL2Parent(
  ctx: Pick<MintContext, 'l2'>,
  { network, parentName }: ListingTarget,
): Promise<L2Parent | null> {
  const parent = await l2ParentOf(ctx, network, parentName);
  if (parent === undefined) {
    throw new ProblemError(
      mintProblems.L2_PARENT_NOT_SERVED,
      `No L2 mint controller configured for ${network} mints under ${parentName}.`,
    );
  }
  return parent;
}

/**
 * Sign-in (scope `listing`), then the signer must be the parent's on-chain owner (on the L1 an L2 settles on).
 * Returns the signer.
 */
async function authoriseOwner(
  ctx: SignInContext,
  { network, parentName }: ListingTarget,
  operation: 'update' | 'delete',
  fields: SignedFields,
): Promise<string> {
  const signIn = await verifySignedRequest(ctx, network, { scope: 'listing', operation, parentName }, fields);
  const net = ctx.networks[settlementOf(network)];
  const owner = await getOwner(net.provider, net.config.ens, parentName);
  if (owner === null || owner.toLowerCase() !== signIn.address.toLowerCase()) {
    throw new ProblemError(
      mintProblems.NOT_PARENT_OWNER,
      `${signIn.address} is not the owner of ${parentName} on ${network}${owner ? ` (the owner is ${owner})` : ''}.`,
    );
  }
  return signIn.address;
}

/**
 * A listing made through the API belongs to whoever owned the parent then; once the parent changes hands it is no
 * longer offered (the new owner lists it again). Operator listings (from LISTINGS_FILE) have no signer and never
 * lapse. `owner` is the parent's current owner (NameWrapper owner when wrapped).
 */
export function assertListingCurrent(listing: StoredListing, owner: string | null): void {
  if (listing.listedBy !== null && owner?.toLowerCase() !== listing.listedBy.toLowerCase()) {
    throw new ProblemError(
      mintProblems.LISTING_NOT_FOUND,
      `The listing of ${listing.parentName} on ${listing.network} was made by ${listing.listedBy}, who no longer owns it.`,
    );
  }
}

/** The listing of a parent as minters see it; LISTING_NOT_FOUND when it has none or it lapsed. */
export async function getListing(
  ctx: Pick<MintContext, 'db' | 'networks' | 'l2'>,
  target: ListingTarget,
): Promise<Listing> {
  const l2 = await servingL2Parent(ctx, target);
  const listing = await findListing(ctx.db, target.network, target.parentName);
  if (!listing) throw notListed(target);
  if (listing.listedBy !== null) {
    const net = ctx.networks[settlementOf(target.network)];
    assertListingCurrent(listing, await getOwner(net.provider, net.config.ens, target.parentName));
  }
  return toListingResponse(listing, l2);
}

/**
 * Creates or replaces the listing of a parent, signed by its current on-chain owner; the payment receiver defaults
 * to the signer. `created` tells which it was.
 */
export async function putListing(
  ctx: ListingContext,
  target: ListingTarget,
  settings: ListingSettings,
  fields: SignedFields,
): Promise<{ listing: Listing; created: boolean }> {
  const l2 = await servingL2Parent(ctx, target);
  const signer = await authoriseOwner(ctx, target, 'update', fields);
  const { listing, created } = await upsertListing(
    ctx.db,
    {
      ...target,
      parentNode: namehash(target.parentName),
      settings: { ...settings, paymentReceiver: settings.paymentReceiver ?? signer },
      listedBy: signer,
      source: 'api',
    },
    ctx.now(),
  );
  return { listing: toListingResponse(listing, l2), created };
}

/** Removes the listing of a parent, signed by its current on-chain owner; LISTING_NOT_FOUND when it has none. */
export async function deleteListing(
  ctx: ListingContext,
  target: ListingTarget,
  fields: SignedFields,
): Promise<DeleteListingResponse> {
  await servingL2Parent(ctx, target);
  await authoriseOwner(ctx, target, 'delete', fields);
  if (!(await removeListing(ctx.db, target.network, target.parentName))) throw notListed(target);
  return { ...target, deletedAt: ctx.now().toISOString() };
}
