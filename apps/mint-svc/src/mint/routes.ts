import { mintRequestSchema, mintResponseSchema, type MintNetwork, type MintResponse } from '@nrp/api';
import { defineRoute } from '@nrp/server';
import { commonProblems } from '@nrp/validation';
import type { MintServiceContext } from '../context';
import { signMint } from '../mint';
import { mintProblems } from '../problems';

/** `onSigned` is told the network of every signature handed out (for the mint metrics). */
export function mintRoute(
  ctx: MintServiceContext,
  onSigned: (network: MintNetwork) => void = () => undefined,
) {
  return defineRoute({
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
  });
}
