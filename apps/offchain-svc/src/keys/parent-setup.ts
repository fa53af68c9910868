import { getAddress } from 'ethers';
import type { ParentSetup } from '@nrp/api';
import { getRegistryResolver, type NetworkName } from '@nrp/chain';
import { ProblemError } from '@nrp/validation';
import type { OffchainContext } from '../context';
import { offchainProblems } from '../problems';
import { findL2Parent, l2ParentSetup } from './l2-parent-setup';
import { setResolverStep } from './set-resolver-step';

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
 * NameWrapper for a wrapped name. No steps when it is ready, or when nobody controls it. A parent of one of our L2
 * registries gets its choice of L1 resolver instead (`l2`: signed or proven, see l2-parent-setup.ts).
 */
export async function parentSetup(
  ctx: Pick<OffchainContext, 'config' | 'providers' | 'nameControl' | 'l2Networks' | 'l2ParentNames'>,
  network: NetworkName,
  parentName: string,
): Promise<ParentSetup> {
  const provider = ctx.providers[network];
  const read = async () => {
    const [control, resolver] = await Promise.all([
      ctx.nameControl.read(network, parentName),
      getRegistryResolver(provider, provider.config.ens.ensRegistry, parentName),
    ]);
    const setup = { parentName, network, controller: control.controller, wrapped: control.wrapped, resolver };
    return { control, resolver, setup };
  };
  const l2Parent = await findL2Parent(ctx, network, parentName);
  if (l2Parent) {
    const { control, resolver, setup } = await read();
    const l2 = await l2ParentSetup(ctx, network, parentName, l2Parent, control, resolver);
    const chosen = l2.options.some((option) => option.chosen);
    return { ...setup, resolverIsOurs: chosen, ready: chosen, steps: [], l2 };
  }
  // An offchain parent without our resolver configured is 503 before any L1 read.
  const ours = ourResolver(ctx, network);
  const { control, resolver, setup } = await read();
  const resolverIsOurs = resolver === ours;
  const { controller } = control;
  const steps =
    !resolverIsOurs && controller
      ? [
          setResolverStep(
            provider.config.ens,
            { ...control, controller },
            parentName,
            ours,
            `our offchain resolver ${ours}`,
          ),
        ]
      : [];
  return { ...setup, resolverIsOurs, ready: resolverIsOurs, steps, l2: null };
}
