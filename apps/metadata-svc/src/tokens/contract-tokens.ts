import { getAddress } from 'ethers';
import { callView, l2RegistryInterface, NoValue, settlementOf, type NetworkName } from '@nrp/chain';
import { isL2Network, namehash, type AnyNetworkName, type Hex } from '@nrp/ens';
import { ProblemError } from '@nrp/validation';
import type { MetadataContext } from '../context';
import type { NetworkAccess } from '../names/ens-state';
import { servedRegistry, type L2NetworkAccess } from '../names/l2-registries';
import { problems } from '../problems';
import { lookupWrappedToken, tokenNotFound } from './token-lookup';
import type { TokenName } from './token-metadata';

/** The contract of `/{network}/{contractAddress}/{tokenId}`: an L1's NameWrapper, or a served L2 registry. */
export type TokenContract =
  | { kind: 'namewrapper'; access: NetworkAccess & { name: NetworkName } }
  | { kind: 'l2registry'; access: L2NetworkAccess; registry: string };

/** The token contract `address` is on `network`, or 404 UNKNOWN_CONTRACT. */
export function tokenContract(
  deps: Pick<MetadataContext, 'networks' | 'l2Networks'>,
  network: AnyNetworkName,
  address: string,
): TokenContract {
  let served: string;
  if (isL2Network(network)) {
    const access = deps.l2Networks[network];
    const registry = servedRegistry(access, address);
    if (registry) return { kind: 'l2registry', access, registry };
    served = access.config.registries.length
      ? `the L2 registries ${access.config.registries.join(', ')}`
      : 'no L2 registry';
  } else {
    const access = deps.networks[network];
    const { nameWrapper } = access.config.ens;
    if (nameWrapper.toLowerCase() === address.toLowerCase()) {
      return { kind: 'namewrapper', access: { ...access, name: network } };
    }
    served = `the NameWrapper ${nameWrapper}`;
  }
  throw new ProblemError(
    problems.UNKNOWN_CONTRACT,
    `${address} is not a token contract served on ${network} (served: ${served}).`,
  );
}

/**
 * The name behind token `node` of an L2 registry: `labels(id)` + '.' + the registry's parent name, its holder and
 * expiry. A token that is not live (never registered, revoked or expired: `ownerOf` reverts) is 404
 * TOKEN_NOT_FOUND, like an unknown wrapped token.
 */
async function lookupL2Token(
  deps: Pick<MetadataContext, 'l2ParentNames'>,
  { access, registry }: { access: L2NetworkAccess; registry: string },
  node: Hex,
): Promise<TokenName> {
  const { name: network, chainId } = access.config;
  const read = <T extends readonly unknown[]>(fn: 'labels' | 'ownerOf' | 'expiries') =>
    callView<T>(access.provider, {
      to: registry,
      abi: l2RegistryInterface,
      fn,
      args: [BigInt(node)],
      context: `L2Registry ${fn} on ${network}`,
    });
  const [parent, label, owner, expiry] = await Promise.all([
    deps.l2ParentNames.parentName(network, registry),
    read<[string]>('labels'),
    read<[string]>('ownerOf'),
    read<[bigint]>('expiries'),
  ]);
  // ownerOf reverts for a token that is not live; an answer that does not decode is the node's failure.
  if (owner instanceof NoValue) {
    throw owner.revertData === undefined ? owner.toUpstreamError() : tokenNotFound(node, chainId);
  }
  if (label instanceof NoValue) throw label.toUpstreamError();
  if (expiry instanceof NoValue) throw expiry.toUpstreamError();
  const name = `${label[0]}.${parent}`;
  if (label[0] === '' || namehash(name) !== node) throw tokenNotFound(node, chainId);
  return {
    network: settlementOf(network),
    chainId,
    node,
    name,
    source: 'l2registry',
    owner: getAddress(owner[0]),
    expiry: expiry[0],
  };
}

/** The name behind token `node` of a token contract (404 TOKEN_NOT_FOUND, 410 NAME_EXPIRED for wrapped names). */
export async function lookupContractToken(
  deps: Pick<MetadataContext, 'l2ParentNames' | 'now'>,
  contract: TokenContract,
  node: Hex,
): Promise<TokenName> {
  if (contract.kind === 'l2registry') return lookupL2Token(deps, contract, node);
  const wrapped = await lookupWrappedToken(deps, contract.access, node);
  if (!wrapped) throw tokenNotFound(node, contract.access.config.chainId);
  return wrapped;
}
