import { getAddress, ZeroAddress, type Provider } from 'ethers';
import {
  l2RegistryInterface,
  l2sSettlingOn,
  readView,
  type L2NetworkConfig,
  type L2ParentDirectory,
  type NetworkName,
} from '@nrp/chain';
import { namehash, parentOf, type L2NetworkName } from '@nrp/ens';

/** One L2: its configuration (the registries served there) and its provider. */
export interface L2NetworkAccess {
  config: L2NetworkConfig;
  provider: Provider;
}

/** What reading L2 names needs: each L2's access and the registries' parent names. */
export interface L2Deps {
  l2Networks: Record<L2NetworkName, L2NetworkAccess>;
  l2ParentNames: L2ParentDirectory;
}

/** The configured registry of the L2 that `address` is (as configured), or undefined for any other contract. */
export function servedRegistry(access: L2NetworkAccess, address: string): string | undefined {
  const wanted = address.toLowerCase();
  return access.config.registries.find((registry) => registry.toLowerCase() === wanted);
}

/**
 * The holder of `name` on the served L2 registry of its parent (among the L2s settling on `network`, where the name
 * resolves), or null: no such registry, or the name is not live there (the registry's `owner(node)`, the ENS
 * registry's view of an L2 name).
 */
export async function l2Holder(deps: L2Deps, network: NetworkName, name: string): Promise<string | null> {
  const parent = parentOf(name);
  for (const l2 of l2sSettlingOn(network)) {
    const access = deps.l2Networks[l2];
    for (const registry of access.config.registries) {
      // Sequential: the parent names are read once per process, and the one matching registry ends the search.
      if ((await deps.l2ParentNames.parentName(l2, registry)) !== parent) continue;
      const [holder] = await readView<[string]>(access.provider, {
        to: registry,
        abi: l2RegistryInterface,
        fn: 'owner',
        args: [namehash(name)],
        context: `L2Registry owner on ${access.config.name}`,
      });
      return holder === ZeroAddress ? null : getAddress(holder);
    }
  }
  return null;
}
