import { getAddress } from 'ethers';
import type { ParentSetup, SetupStep } from '@nrp/api';
import {
  ensRegistryInterface,
  getRegistryResolver,
  nameWrapperInterface,
  type NetworkName,
} from '@nrp/chain';
import { namehash } from '@nrp/ens';
import { ProblemError } from '@nrp/validation';
import type { OffchainContext } from '../context';
import { offchainProblems } from '../problems';

/** Our offchain resolver on `network` (the one whose gateway is this service), or 503. */
function ourResolver(ctx: Pick<OffchainContext, 'config'>, network: NetworkName): string {
  const resolver =
    network === 'mainnet' ? ctx.config.MAINNET_OFFCHAIN_RESOLVER : ctx.config.SEPOLIA_OFFCHAIN_RESOLVER;
  if (!resolver) {
    throw new ProblemError(
      offchainProblems.OFFCHAIN_RESOLVER_NOT_CONFIGURED,
      `No offchain resolver is configured for ${network} (${network.toUpperCase()}_OFFCHAIN_RESOLVER).`,
    );
  }
  return getAddress(resolver);
}

/**
 * What `parentName` needs on chain so that its offchain subnames resolve through our offchain resolver: who controls
 * it, its resolver, and the transactions its controller sends — `setResolver` on the ENS registry, or on the
 * NameWrapper for a wrapped name. No steps when it is ready, or when nobody controls it.
 */
export async function parentSetup(
  ctx: Pick<OffchainContext, 'config' | 'providers' | 'nameControl'>,
  network: NetworkName,
  parentName: string,
): Promise<ParentSetup> {
  const ours = ourResolver(ctx, network);
  const provider = ctx.providers[network];
  const { ensRegistry, nameWrapper } = provider.config.ens;
  const [control, resolver] = await Promise.all([
    ctx.nameControl.read(network, parentName),
    getRegistryResolver(provider, ensRegistry, parentName),
  ]);
  const resolverIsOurs = resolver === ours;
  const steps: SetupStep[] = [];
  if (!resolverIsOurs && control.controller) {
    const contract = control.wrapped ? 'NameWrapper' : 'ENS registry';
    steps.push({
      description:
        `Set the resolver of ${parentName} to our offchain resolver ${ours}: ${contract}.setResolver, sent by ` +
        `${control.controller}.`,
      to: getAddress(control.wrapped ? nameWrapper : ensRegistry),
      data: (control.wrapped ? nameWrapperInterface : ensRegistryInterface).encodeFunctionData(
        'setResolver',
        [namehash(parentName), ours],
      ),
      value: '0',
    });
  }
  return {
    parentName,
    network,
    controller: control.controller,
    wrapped: control.wrapped,
    resolver,
    resolverIsOurs,
    ready: resolverIsOurs,
    steps,
  };
}
