import { getAddress, type Provider } from 'ethers';
import { decodeTextResult, encodeTextCall, getOwner, universalResolve, type NetworkConfig } from '@nrp/chain';
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
  source: 'chain' | 'offchain' | 'none';
}

/**
 * The owner of `name`: NameWrapper-aware on-chain owner; when the chain has none, the `owner` of the name's
 * offchain subname record.
 */
export async function findOwner(
  network: NetworkAccess,
  offchain: OffchainClient,
  name: string,
): Promise<NameOwner> {
  const onChain = await getOwner(network.provider, network.config.ens, name);
  if (onChain) return { owner: onChain, source: 'chain' };
  const record = await offchain.byName(name);
  if (record?.owner) return { owner: getAddress(record.owner.toLowerCase()), source: 'offchain' };
  return { owner: null, source: 'none' };
}
