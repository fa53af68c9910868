import {
  mintEstimateQuerySchema,
  mintEstimateResponseSchema,
  mintRequestSchema,
  mintResponseSchema,
  type MintNetwork,
  type MintResponse,
} from '@nrp/api';
import { defineRoute, type RouteDefinition } from '@nrp/server';
import { commonProblems } from '@nrp/validation';
import type { MintContext } from '../context';
import { mintProblems } from '../problems';
import { estimateMint } from './estimate';
import { signMint } from './mint';

/**
 * The estimate and the signed mint; `onSigned` is told the network of every signature handed out (for the mint
 * metrics).
 */
export function mintRoutes(
  ctx: MintContext,
  onSigned: (network: MintNetwork) => void = () => undefined,
): RouteDefinition[] {
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/mint/estimate',
      operationId: 'getMintEstimate',
      budget: { bodyBytes: 0, answerBytes: 8 * 1024, timeMs: 30_000 },
      summary: 'Estimate price, fee and eligibility of a mint',
      description:
        'Ineligibility is not an error: `canMint` is false and `validationErrors` lists every cause, in the order ' +
        'SUBNAME_TAKEN, MINTER_NOT_TOKEN_OWNER, MINTER_NOT_WHITELISTED, LISTING_EXPIRED, SUBNAME_RESERVED, ' +
        'VERIFIED_MINTER_ADDRESS_REQUIRED, PRICE_NOT_PAYABLE (price × years + fee past uint256: no transaction ' +
        'can carry it; only a listing stored before the price ceiling can come to that). The network: `network` (mainnet, sepolia, base, base-sepolia) decides ' +
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
      handler: ({ query }) => estimateMint(ctx, query),
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/mint',
      operationId: 'requestMint',
      budget: { bodyBytes: 16 * 1024, answerBytes: 8 * 1024, timeMs: 30_000 },
      summary: 'Signed parameters for an on-chain mint',
      description:
        "Answers the parameters and the EIP-712 signature to pass to the controller's `mint(ctx, sig, resolverData, " +
        'extraData)`, sent by `minterAddress` (`verifiedMinter`) with value `price + fee` (wei, decimal strings). ' +
        '`owner` defaults to `minterAddress`. `signatureExpiry` and `expiry` are Unix seconds; `expiry` never exceeds ' +
        "the parent's expiry. 409 `PARENT_NOT_APPROVED` when the parent's owner has not approved the controller " +
        '(registry or NameWrapper `setApprovalForAll`). A mint the estimate would refuse is a 400 `MINT_NOT_ALLOWED` whose ' +
        "`validationErrors` is the estimate's list. Signing is stateless: two requests give two valid signatures, " +
        'and the controller mints each name once. The network is chosen as for the estimate (`network`, else ' +
        '`isTestnet`: the L1 first, then its L2; a contradiction is 400 naming both). For an L2 parent the answer is ' +
        "for the parent's L2MintController on the L2: `chainId` is the L2's (8453 base, 84532 base-sepolia), " +
        '`mintController` that controller, the EIP-712 domain `{ chainId: <L2>, verifyingContract: <L2MintController> }` ' +
        'with the same `MintContext` (`parentNode` the namehash of the parent, `expiry` capped at its L1 expiry, ' +
        "`fuses` the listing's); 409 `PARENT_NOT_APPROVED` when the parent's L2Registry has not enabled that " +
        'controller (`setController`). The signature is valid only on that chain and controller.',
      tags: ['mint'],
      body: mintRequestSchema,
      responses: { 200: { description: 'Signed mint parameters.', schema: mintResponseSchema } },
      problems: [
        mintProblems.MINT_NOT_ALLOWED,
        mintProblems.LISTING_NOT_FOUND,
        mintProblems.PARENT_EXPIRED,
        mintProblems.PARENT_NOT_APPROVED,
        mintProblems.MINT_CONTROLLER_NOT_CONFIGURED,
        commonProblems.UPSTREAM_ERROR,
      ],
      rateLimit: { name: 'mint', windowMs: 60_000, limit: ctx.config.MINT_RATE_LIMIT_PER_MINUTE },
      handler: async ({ body }): Promise<MintResponse> => {
        const { network, answer } = await signMint(ctx, body);
        onSigned(network);
        return answer;
      },
    }),
  ];
}
