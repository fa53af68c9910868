import { mintEstimateQuerySchema, mintEstimateResponseSchema, type MintEstimateResponse } from '@nrp/api';
import { defineRoute } from '@nrp/server';
import { commonProblems } from '@nrp/validation';
import type { MintServiceContext } from '../context';
import { evaluateMint, mintNetworkOf } from '../evaluate';
import { weiToEtherNumber } from '../pricing';
import { mintProblems } from '../problems';

export function estimateRoute(ctx: MintServiceContext) {
  return defineRoute({
    method: 'get',
    path: '/api/v1/mint/estimate',
    operationId: 'getMintEstimate',
    budget: { bodyBytes: 0, answerBytes: 8 * 1024, timeMs: 30_000 },
    summary: 'Estimate price, fee and eligibility of a mint',
    description:
      'Ineligibility is not an error: `canMint` is false and `validationErrors` lists every cause, in the order ' +
      'SUBNAME_TAKEN, MINTER_NOT_TOKEN_OWNER, MINTER_NOT_WHITELISTED, LISTING_EXPIRED, SUBNAME_RESERVED, ' +
      'VERIFIED_MINTER_ADDRESS_REQUIRED. `isTestnet=true` is sepolia. The ether numbers are the nearest doubles ' +
      'to the exact wei amounts, which are also given as `estimatedPriceWei`/`estimatedFeeWei`. Chain reads are ' +
      'sent as one JSON-RPC batch.',
    tags: ['mint'],
    query: mintEstimateQuerySchema,
    responses: { 200: { description: 'The estimate.', schema: mintEstimateResponseSchema } },
    problems: [mintProblems.LISTING_NOT_FOUND, mintProblems.PARENT_EXPIRED, commonProblems.UPSTREAM_ERROR],
    handler: async ({ query }): Promise<MintEstimateResponse> => {
      const evaluation = await evaluateMint(ctx, {
        network: mintNetworkOf(query.isTestnet),
        parentName: query.parentName,
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
    },
  });
}
