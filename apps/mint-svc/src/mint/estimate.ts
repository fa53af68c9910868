import { mintEstimateQuerySchema, mintEstimateResponseSchema, type MintEstimateResponse } from '@nrp/api';
import { defineRoute } from '@nrp/server';
import { commonProblems } from '@nrp/validation';
import type { MintServiceContext } from '../context';
import { evaluateMint } from '../evaluate';
import { findMintTarget } from '../mint-target';
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
      'VERIFIED_MINTER_ADDRESS_REQUIRED. The network: `network` (mainnet, sepolia, base, base-sepolia) decides ' +
      'when given; an `isTestnet` that contradicts it (sepolia and base-sepolia are testnets) is 400 INVALID_INPUT ' +
      'naming both fields; with only `isTestnet` (default false) the listing is looked up on mainnet/sepolia first, ' +
      "then on base/base-sepolia. On an L2, SUBNAME_TAKEN is the L2 registry's `available(label)`; the parent " +
      '(owner, expiry, token gate, verified minters) is read on the L1 it settles on. An L2 parent no configured ' +
      'L2MintController serves is 404 LISTING_NOT_FOUND like an unlisted one. The ether numbers are the nearest doubles ' +
      'to the exact wei amounts, which are also given as `estimatedPriceWei`/`estimatedFeeWei`. Chain reads are ' +
      'sent as one JSON-RPC batch.',
    tags: ['mint'],
    query: mintEstimateQuerySchema,
    responses: { 200: { description: 'The estimate.', schema: mintEstimateResponseSchema } },
    problems: [mintProblems.LISTING_NOT_FOUND, mintProblems.PARENT_EXPIRED, commonProblems.UPSTREAM_ERROR],
    handler: async ({ query }): Promise<MintEstimateResponse> => {
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
    },
  });
}
