import { getAddress, ZeroAddress, type Provider } from 'ethers';
import {
  l2RegistryInterface,
  readL2ParentName,
  readView,
  type L2NetworkConfig,
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
  l2ParentNames: L2ParentNames;
}

/** The configured registry of the L2 that `address` is (as configured), or undefined for any other contract. */
export function servedRegistry(access: L2NetworkAccess, address: string): string | undefined {
  const wanted = address.toLowerCase();
  return access.config.registries.find((registry) => registry.toLowerCase() === wanted);
}

/**
 * The parent name of each served L2 registry, read from its `parentName()` once per process: it is set in the
 * registry's constructor and never changes. A failed read is not remembered.
 */
export class L2ParentNames {
  private readonly known = new Map<string, string>();

  async of(access: L2NetworkAccess, registry: string): Promise<string> {
    const key = `${access.config.name}:${registry.toLowerCase()}`;
    const known = this.known.get(key);
    if (known !== undefined) return known;
    const name = await readL2ParentName(access.provider, registry, access.config.name);
    this.known.set(key, name);
    return name;
  }
}

/**
 * The holder of `name` on the served L2 registry of its parent (among the L2s settling on `network`, where the name
 * resolves), or null: no such registry, or the name is not live there (the registry's `owner(node)`, the ENS
 * registry's view of an L2 name).
 */
export async function l2Holder(deps: L2Deps, network: NetworkName, name: string): Promise<string | null> {
  const parent = parentOf(name);
  for (const access of Object.values(deps.l2Networks)) {
    if (access.config.settlesOn !== network) continue;
    for (const registry of access.config.registries) {
      // Sequential: the parent names are read once per process, and the one matching registry ends the search.
      if ((await deps.l2ParentNames.of(access, registry)) !== parent) continue;
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
