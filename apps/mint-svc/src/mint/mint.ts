import type { z } from 'zod';
import type { MintNetwork, mintRequestSchema, MintResponse } from '@nrp/api';
import { chainIdOf, isL2Network } from '@nrp/ens';
import { newEvent } from '@nrp/outbox';
import { ProblemError } from '@nrp/validation';
import { isControllerApproved } from './chain-facts';
import type { MintContext } from '../context';
import { evaluateMint } from './evaluate';
import { candidateNetworks, findMintTarget, type MintTarget } from './mint-target';
import { mintProblems } from '../problems';
import { signMintContext } from './sign-mint';

/** Where a signature mints: the controller and the chain id of the EIP-712 domain. */
interface Minter {
  controller: string;
  chainId: number;
}

/**
 * The controller that mints `target`: the parent's L2MintController on an L2, the network's MintController on an L1
 * (MINT_CONTROLLER_NOT_CONFIGURED without one).
 */
function minterOf(ctx: Pick<MintContext, 'networks'>, target: MintTarget): Minter {
  if (target.l2) return { controller: target.l2.mintController, chainId: chainIdOf(target.network) };
  const network = ctx.networks[target.settlement];
  if (!network.mintController) {
    throw new ProblemError(
      mintProblems.MINT_CONTROLLER_NOT_CONFIGURED,
      `No mint controller is configured for ${target.network}.`,
    );
  }
  return { controller: network.mintController, chainId: network.config.chainId };
}

/** Whether any of the networks a request may mint on has a controller (a 503 before any lookup otherwise). */
function canMintOn(ctx: Pick<MintContext, 'networks' | 'l2'>, networks: MintNetwork[]): boolean {
  return networks.some((n) =>
    isL2Network(n) ? ctx.l2[n].controllers.length > 0 : ctx.networks[n].mintController !== undefined,
  );
}

/**
 * The mint use case: finds the listing (`network`, else `isTestnet`'s L1 then its L2), evaluates the request like
 * the estimate (400 MINT_NOT_ALLOWED with its reasons), checks that the controller may create the name (the
 * parent's approval on L1, the registry's `controllers` on an L2; 409 otherwise), signs the parameters for that
 * controller's chain and writes `mint.signed` to the outbox before the signature is answered.
 */
export async function signMint(
  ctx: Pick<MintContext, 'db' | 'config' | 'networks' | 'l2' | 'now' | 'events' | 'signer'>,
  request: z.output<typeof mintRequestSchema>,
): Promise<{ network: MintNetwork; answer: MintResponse }> {
  const candidates = candidateNetworks(request);
  if (!canMintOn(ctx, candidates)) {
    throw new ProblemError(
      mintProblems.MINT_CONTROLLER_NOT_CONFIGURED,
      `No mint controller is configured for ${candidates.join(' or ')}.`,
    );
  }
  const target = await findMintTarget(ctx, request, request.parentName);
  const { controller, chainId } = minterOf(ctx, target);
  const evaluation = await evaluateMint(ctx, {
    target,
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
  const l1 = ctx.networks[target.settlement];
  const approved = target.l2
    ? await ctx.l2[target.l2.network].controllerEnabled(target.l2)
    : await isControllerApproved(l1.provider, l1.contracts, evaluation.facts, controller);
  if (!approved) {
    throw new ProblemError(
      mintProblems.PARENT_NOT_APPROVED,
      target.l2
        ? `The L2 registry ${target.l2.registry} of ${request.parentName} has not enabled the controller ${controller}.`
        : `The owner of ${request.parentName} has not approved the mint controller ${controller}.`,
    );
  }
  const { listing } = target;
  const { quote } = evaluation;
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
  const signature = await signMintContext(ctx.signer, chainId, controller, params);
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
      network: target.network,
      chainId,
      name: `${request.label}.${request.parentName}`,
      parentName: request.parentName,
      mintController: controller,
      ...content,
    }),
  ]);
  return { network: target.network, answer: { content, signature, mintController: controller, chainId } };
}
