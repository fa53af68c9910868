import { mintRequestSchema, mintResponseSchema, type MintNetwork, type MintResponse } from '@nrp/api';
import { newEvent } from '@nrp/outbox';
import { defineRoute } from '@nrp/server';
import { commonProblems, ProblemError } from '@nrp/validation';
import type { MintServiceContext } from '../context';
import { evaluateMint } from '../evaluate';
import { mintProblems } from '../problems';
import { signMintContext } from '../sign-mint';
import { isControllerApproved } from '../chain-facts';

/** `onSigned` is told the network of every signature handed out (for the mint metrics). */
export function mintRoute(
  ctx: MintServiceContext,
  rateLimitPerMinute: number,
  onSigned: (network: MintNetwork) => void = () => undefined,
) {
  return defineRoute({
    method: 'post',
    path: '/api/v1/mint',
    operationId: 'requestMint',
    summary: 'Signed parameters for an on-chain mint',
    description:
      "Answers the parameters and the EIP-712 signature to pass to the controller's `mint(ctx, sig, resolverData, " +
      'extraData)`, sent by `minterAddress` (`verifiedMinter`) with value `price + fee` (wei, decimal strings). ' +
      '`owner` defaults to `minterAddress`. `signatureExpiry` and `expiry` are Unix seconds; `expiry` never exceeds ' +
      "the parent's expiry. 409 `PARENT_NOT_APPROVED` when the parent's owner has not approved the controller " +
      '(registry or NameWrapper `setApprovalForAll`). A mint the estimate would refuse is a 400 `MINT_NOT_ALLOWED` whose ' +
      "`validationErrors` is the estimate's list. Signing is stateless: two requests give two valid signatures, " +
      'and the controller mints each name once.',
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
    rateLimit: { name: 'mint', windowMs: 60_000, limit: rateLimitPerMinute },
    handler: async ({ body }): Promise<MintResponse> => {
      const networkName = body.isTestnet ? 'sepolia' : 'mainnet';
      const network = ctx.networks[networkName];
      const controller = network.mintController;
      if (!controller) {
        throw new ProblemError(
          mintProblems.MINT_CONTROLLER_NOT_CONFIGURED,
          `No mint controller is configured for ${networkName}.`,
        );
      }
      const evaluation = await evaluateMint(ctx, {
        network: networkName,
        parentName: body.parentName,
        label: body.label,
        minter: body.minterAddress,
        years: body.expiryInYears,
      });
      if (evaluation.validationErrors.length > 0) {
        throw new ProblemError(
          mintProblems.MINT_NOT_ALLOWED,
          `Minting ${body.label}.${body.parentName} is not allowed: ${evaluation.validationErrors.join(', ')}.`,
          { extensions: { validationErrors: evaluation.validationErrors } },
        );
      }
      // A signature the controller could not use is not handed out (a second round trip, mint only).
      const approved = await isControllerApproved(
        network.provider,
        network.contracts,
        evaluation.facts,
        controller,
      );
      if (!approved) {
        throw new ProblemError(
          mintProblems.PARENT_NOT_APPROVED,
          `The owner of ${body.parentName} has not approved the mint controller ${controller}.`,
        );
      }
      const { listing, quote } = evaluation;
      const params = {
        owner: body.owner ?? body.minterAddress,
        label: body.label,
        parentNode: listing.parentNode,
        price: quote.price,
        fee: quote.fee,
        paymentReceiver: listing.settings.paymentReceiver,
        expiry: BigInt(evaluation.expiry),
        signatureExpiry: BigInt(evaluation.nowSeconds + ctx.signatureTtlSeconds),
        verifiedMinter: body.minterAddress,
        fuses: listing.settings.fuses,
      };
      const signature = await signMintContext(ctx.signer, network.config.chainId, controller, params);
      const content = {
        label: params.label,
        owner: params.owner,
        fee: params.fee.toString(),
        price: params.price.toString(),
        parentNode: params.parentNode,
        paymentReceiver: params.paymentReceiver,
        verifiedMinter: params.verifiedMinter,
        signatureExpiry: Number(params.signatureExpiry),
        expiry: Number(params.expiry),
        fuses: params.fuses,
      };
      // Written before the answer: a signature handed out always has its event.
      await ctx.events.append(ctx.db, [
        newEvent('mint.signed', body.parentName, {
          network: networkName,
          chainId: network.config.chainId,
          name: `${body.label}.${body.parentName}`,
          parentName: body.parentName,
          mintController: controller,
          ...content,
        }),
      ]);
      onSigned(networkName);
      return {
        content,
        signature,
        mintController: controller,
        chainId: network.config.chainId,
      };
    },
  });
}
