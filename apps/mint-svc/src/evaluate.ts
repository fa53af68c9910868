import type { MintNetwork, MintValidationError } from '@nrp/api';
import { ProblemError } from '@nrp/validation';
import { readMintChainFacts, type MintChainFacts } from './chain-facts';
import type { MintServiceContext } from './context';
import { findListing } from './data/listings';
import { isVerifiedMinter } from './data/verified-minters';
import type { StoredListing } from './data/listings';
import { mintValidationErrors } from './eligibility';
import { assertListingCurrent } from './listings';
import { mintExpiry, quoteMint, type Quote } from './pricing';
import { mintProblems } from './problems';

/** `isTestnet` of the mint API: sepolia, else mainnet. */
export function mintNetworkOf(isTestnet: boolean): MintNetwork {
  return isTestnet ? 'sepolia' : 'mainnet';
}

export interface MintEvaluationInput {
  network: MintNetwork;
  parentName: string;
  label: string;
  minter: string;
  years: number;
}

export interface MintEvaluation {
  listing: StoredListing;
  quote: Quote;
  facts: MintChainFacts;
  /** Unix seconds. */
  expiry: number;
  nowSeconds: number;
  validationErrors: MintValidationError[];
}

/**
 * What the estimate and the mint share: the listing (404 without one), price and fee, the chain facts
 * (one batched round trip), the verified-minter check, and the list of reasons the mint is not allowed.
 */
export async function evaluateMint(
  ctx: Pick<MintServiceContext, 'db' | 'config' | 'networks' | 'now'>,
  input: MintEvaluationInput,
): Promise<MintEvaluation> {
  const listing = await findListing(ctx.db, input.network, input.parentName);
  if (!listing) {
    throw new ProblemError(
      mintProblems.LISTING_NOT_FOUND,
      `${input.parentName} is not listed for minting on ${input.network}.`,
    );
  }
  const { settings } = listing;
  const quote = quoteMint(settings, input.label, input.years, ctx.config.STANDARD_FEE_WEI);
  const network = ctx.networks[input.network];
  const now = ctx.now();
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const [facts, minterVerified] = await Promise.all([
    readMintChainFacts(network.provider, network.contracts, {
      parentName: input.parentName,
      label: input.label,
      minter: input.minter,
      tokenGate: settings.tokenGate,
    }),
    settings.requireVerifiedMinter
      ? isVerifiedMinter(ctx.db, input.network, input.minter, now)
      : Promise.resolve(false),
  ]);
  assertListingCurrent(listing, facts.parentOwner);
  if (facts.parentExpiry !== null && facts.parentExpiry <= nowSeconds) {
    throw new ProblemError(
      mintProblems.PARENT_EXPIRED,
      `${input.parentName} expired at ${new Date(facts.parentExpiry * 1000).toISOString()}.`,
    );
  }
  const validationErrors = mintValidationErrors({
    settings,
    label: input.label,
    minter: input.minter,
    subnameTaken: facts.subnameTaken,
    gateBalance: facts.gateBalance,
    minterVerified,
    nowSeconds,
  });
  return {
    listing,
    quote,
    facts,
    expiry: mintExpiry(nowSeconds, input.years, facts.parentExpiry),
    nowSeconds,
    validationErrors,
  };
}
