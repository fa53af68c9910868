import type { z } from 'zod';
import type { mintRequestSchema, MintResponse } from '@nrp/api';
import { newEvent } from '@nrp/outbox';
import { ProblemError } from '@nrp/validation';
import { isControllerApproved } from './chain-facts';
import type { MintServiceContext } from './context';
import { evaluateMint, mintNetworkOf } from './evaluate';
import { mintProblems } from './problems';
import { signMintContext } from './sign-mint';

/**
 * The mint use case: evaluates the request like the estimate (400 MINT_NOT_ALLOWED with its reasons), checks that
 * the parent's owner approved the controller (409 otherwise), signs the parameters and writes `mint.signed` to the
 * outbox before the signature is answered.
 */
export async function signMint(
  ctx: Pick<MintServiceContext, 'db' | 'config' | 'networks' | 'now' | 'events' | 'signer'>,
  request: z.output<typeof mintRequestSchema>,
): Promise<MintResponse> {
  const networkName = mintNetworkOf(request.isTestnet);
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
    parentName: request.parentName,
    label: request.label,
    minter: request.minterAddress,
    years: request.expiryInYears,
  });
  if (evaluation.validationErrors.length > 0) {
    throw new ProblemError(
      mintProblems.MINT_NOT_ALLOWED,
      `Minting ${request.label}.${request.parentName} is not allowed: ${evaluation.validationErrors.join(', ')}.`,
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
      `The owner of ${request.parentName} has not approved the mint controller ${controller}.`,
    );
  }
  const { listing, quote } = evaluation;
  const params = {
    owner: request.owner ?? request.minterAddress,
    label: request.label,
    parentNode: listing.parentNode,
    price: quote.price,
    fee: quote.fee,
    paymentReceiver: listing.settings.paymentReceiver,
    expiry: BigInt(evaluation.expiry),
    signatureExpiry: BigInt(evaluation.nowSeconds + ctx.config.SIGNATURE_TTL_SECONDS),
    verifiedMinter: request.minterAddress,
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
    newEvent('mint.signed', request.parentName, {
      network: networkName,
      chainId: network.config.chainId,
      name: `${request.label}.${request.parentName}`,
      parentName: request.parentName,
      mintController: controller,
      ...content,
    }),
  ]);
  return { content, signature, mintController: controller, chainId: network.config.chainId };
}
