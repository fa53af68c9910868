import type { z } from 'zod';
import type { mintEstimateQuerySchema, MintEstimateResponse } from '@nrp/api';
import type { MintContext } from '../context';
import { evaluateMint } from './evaluate';
import { findMintTarget } from './mint-target';
import { weiToEtherNumber } from './pricing';

/** The estimate use case: the mint evaluated as `POST /api/v1/mint` would, answered whether or not it is allowed. */
export async function estimateMint(
  ctx: Pick<MintContext, 'db' | 'config' | 'networks' | 'l2' | 'now'>,
  query: z.output<typeof mintEstimateQuerySchema>,
): Promise<MintEstimateResponse> {
  const evaluation = await evaluateMint(ctx, {
    target: await findMintTarget(ctx, query, query.parentName),
    label: query.label,
    minter: query.minterAddress,
    years: query.expiryInYears,
  });
  const { quote } = evaluation;
  return {
    canMint: evaluation.validationErrors.length === 0,
    estimatedPriceEth: weiToEtherNumber(quote.price),
    estimatedFeeEth: weiToEtherNumber(quote.fee),
    isStandardFee: quote.isStandardFee,
    validationErrors: evaluation.validationErrors,
    estimatedPriceWei: quote.price.toString(),
    estimatedFeeWei: quote.fee.toString(),
    expiry: evaluation.expiry,
  };
}
