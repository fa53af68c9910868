import { ZeroAddress, getAddress } from 'ethers';
import { nameWrapperInterface, readView, type NetworkName } from '@nrp/chain';
import { dnsDecode, namehash, type Hex } from '@nrp/ens';
import { ProblemError } from '@nrp/validation';
import type { MetadataContext } from '../context';
import type { NetworkAccess } from '../names/ens-state';
import { problems } from '../problems';
import type { TokenName } from './token-metadata';

/** The network of a chain id, or 404 UNSUPPORTED_CHAIN. */
export function networkOfChain(
  deps: Pick<MetadataContext, 'networks'>,
  chainId: string,
): NetworkAccess & { name: NetworkName } {
  for (const [name, access] of Object.entries(deps.networks) as Array<[NetworkName, NetworkAccess]>) {
    if (String(access.config.chainId) === chainId) return { ...access, name };
  }
  throw new ProblemError(
    problems.UNSUPPORTED_CHAIN,
    `Chain id ${chainId} is not served here (1 or 11155111; L2 tokens are at /{network}/{contractAddress}/{tokenId}).`,
  );
}

function readNameWrapper<T extends readonly unknown[]>(
  access: NetworkAccess,
  fn: 'names' | 'getData',
  args: unknown[],
): Promise<T> {
  return readView<T>(access.provider, {
    to: access.config.ens.nameWrapper,
    abi: nameWrapperInterface,
    fn,
    args,
    context: `NameWrapper ${fn}`,
  });
}

/** 404 TOKEN_NOT_FOUND for the token `node` of chain `chainId`. */
export function tokenNotFound(node: Hex, chainId: number): ProblemError {
  return new ProblemError(problems.TOKEN_NOT_FOUND, `No name with namehash ${node} on chain ${chainId}.`);
}

/**
 * The name of a NameWrapper token: `names(node)` on the chain, decoding to a name hashing back to the node, with an
 * owner; undefined when the wrapper holds no such name. Wrapped names past their expiry are 410.
 */
export async function lookupWrappedToken(
  deps: Pick<MetadataContext, 'now'>,
  access: NetworkAccess & { name: NetworkName },
  node: Hex,
): Promise<TokenName | undefined> {
  const [encoded] = await readNameWrapper<[string]>(access, 'names', [node]);
  if (encoded === '0x') return undefined;
  let name: string | undefined;
  try {
    name = dnsDecode(encoded as Hex);
  } catch {
    name = undefined;
  }
  if (name === undefined || namehash(name) !== node) return undefined;
  const [owner, fuses, expiry] = await readNameWrapper<[string, bigint, bigint]>(access, 'getData', [
    BigInt(node),
  ]);
  const nowSeconds = BigInt(Math.floor(deps.now().getTime() / 1000));
  if (expiry !== 0n && expiry < nowSeconds) {
    throw new ProblemError(
      problems.NAME_EXPIRED,
      `${name} expired at ${new Date(Number(expiry) * 1000).toISOString()}.`,
    );
  }
  if (owner === ZeroAddress) return undefined;
  return {
    network: access.name,
    chainId: access.config.chainId,
    node,
    name,
    source: 'namewrapper',
    owner: getAddress(owner),
    fuses: Number(fuses),
    expiry,
  };
}

/**
 * The name behind a token: a NameWrapper token on the chain (`lookupWrappedToken`), then the offchain subname
 * service by namehash; else 404.
 */
export async function lookupToken(
  deps: Pick<MetadataContext, 'offchain' | 'now'>,
  access: NetworkAccess & { name: NetworkName },
  node: Hex,
): Promise<TokenName> {
  const wrapped = await lookupWrappedToken(deps, access, node);
  if (wrapped) return wrapped;
  const offchain = await deps.offchain.byNamehash(node);
  if (offchain && offchain.namehash.toLowerCase() === node.toLowerCase()) {
    const created = offchain.createdAt == null ? undefined : new Date(offchain.createdAt).getTime();
    return {
      network: access.name,
      chainId: access.config.chainId,
      node,
      name: offchain.fullName,
      source: 'offchain',
      owner: offchain.owner ? getAddress(offchain.owner.toLowerCase()) : null,
      ...(created !== undefined && Number.isFinite(created) ? { createdAt: created } : {}),
    };
  }
  throw tokenNotFound(node, access.config.chainId);
}
