import type { MintValidationError } from '@nrp/api';
import { ProblemError } from '@nrp/validation';
import { readMintChainFacts, type MintChainFacts } from './chain-facts';
import type { MintContext } from '../context';
import { isVerifiedMinter } from '../data/verified-minters';
import { mintValidationErrors } from './eligibility';
import { assertListingCurrent } from '../listings/listings';
import type { MintTarget } from './mint-target';
import { mintExpiry, quoteMint, type Quote } from './pricing';
import { mintProblems } from '../problems';

export interface MintEvaluationInput {
  target: MintTarget;
  label: string;
  minter: string;
  years: number;
}

export interface MintEvaluation {
  quote: Quote;
  facts: MintChainFacts;
  /** Unix seconds. */
  expiry: number;
  nowSeconds: number;
  validationErrors: MintValidationError[];
}

/**
 * What the estimate and the mint share: price and fee, the chain facts (one batched round trip per chain), the
 * verified-minter check, and the list of reasons the mint is not allowed. The parent (owner, expiry, token gate) is
 * read on its L1; the subname's availability where it is minted (ENS on an L1, the parent's L2Registry on an L2).
 * Minters verified on the L1 count for its L2s.
 */
export async function evaluateMint(
  ctx: Pick<MintContext, 'db' | 'config' | 'networks' | 'l2' | 'now'>,
  input: MintEvaluationInput,
): Promise<MintEvaluation> {
  const { listing, settlement, l2 } = input.target;
  const { settings } = listing;
  const quote = quoteMint(settings, input.label, input.years, ctx.config.STANDARD_FEE_WEI);
  const network = ctx.networks[settlement];
  const now = ctx.now();
  const nowSeconds = Math.floor(now.getTime() / 1000);
  const [facts, takenOnL2, minterVerified] = await Promise.all([
    readMintChainFacts(network.provider, network.contracts, {
      parentName: listing.parentName,
      label: l2 ? null : input.label,
      minter: input.minter,
      tokenGate: settings.tokenGate,
    }),
    l2 ? ctx.l2[l2.network].labelTaken(l2, input.label) : Promise.resolve(false),
    settings.requireVerifiedMinter
      ? isVerifiedMinter(ctx.db, settlement, input.minter, now)
      : Promise.resolve(false),
  ]);
  assertListingCurrent(listing, facts.parentOwner);
  if (facts.parentExpiry !== null && facts.parentExpiry <= nowSeconds) {
    throw new ProblemError(
      mintProblems.PARENT_EXPIRED,
      `${listing.parentName} expired at ${new Date(facts.parentExpiry * 1000).toISOString()}.`,
    );
  }
  const validationErrors = mintValidationErrors({
    settings,
    label: input.label,
    minter: input.minter,
    subnameTaken: facts.subnameTaken || takenOnL2,
    gateBalance: facts.gateBalance,
    minterVerified,
    nowSeconds,
    due: quote.price + quote.fee,
  });
  return {
    quote,
    facts,
    expiry: mintExpiry(nowSeconds, input.years, facts.parentExpiry),
    nowSeconds,
    validationErrors,
  };
}
