import { getAddress, type Provider } from 'ethers';
import {
  decodeTextResult,
  encodeTextCall,
  getOwner,
  universalResolve,
  type NetworkConfig,
  type NetworkName,
} from '@nrp/chain';
import { l2Holder, type L2Deps } from './l2-registries';
import type { OffchainClient } from './offchain-client';

export interface NetworkAccess {
  config: NetworkConfig;
  provider: Provider;
}

/** A text record of `name` resolved through the universal resolver (wildcard and CCIP-Read), or null. */
export async function readTextRecord(
  network: NetworkAccess,
  name: string,
  key: string,
): Promise<string | null> {
  const { results } = await universalResolve(
    network.provider,
    network.config.ens.universalResolver,
    name,
    [encodeTextCall(name, key)],
    network.config.batchGatewayUrls,
  );
  return decodeTextResult(results[0] ?? null);
}

export interface NameOwner {
  /** EIP-55 address, or null when nobody owns the name. */
  owner: string | null;
  source: 'chain' | 'offchain' | 'l2' | 'none';
}

/**
 * The owner of `name` on `network`: NameWrapper-aware on-chain owner; when the chain has none, the `owner` of the
 * name's offchain subname record; else the holder of its token on the served L2 registry of its parent (an L2 name
 * resolves on `network`, the L1 its L2 settles on).
 */
export async function findOwner(
  deps: L2Deps & { networks: Record<NetworkName, NetworkAccess>; offchain: OffchainClient },
  network: NetworkName,
  name: string,
): Promise<NameOwner> {
  const access = deps.networks[network];
  const onChain = await getOwner(access.provider, access.config.ens, name);
  if (onChain) return { owner: onChain, source: 'chain' };
  const record = await deps.offchain.byName(name);
  if (record?.owner) return { owner: getAddress(record.owner.toLowerCase()), source: 'offchain' };
  const holder = await l2Holder(deps, network, name);
  if (holder) return { owner: holder, source: 'l2' };
  return { owner: null, source: 'none' };
}
