import { ZeroAddress, getAddress, type Provider } from 'ethers';
import { labelhash, namehash } from '@nrp/ens';
import { ensRegistryInterface, erc721Interface, nameWrapperInterface } from './abis';
import { NoValue, callView, readView } from './call-view';

/** Who may change a name on chain, as the platform decides it. */
export interface NameControl {
  /**
   * The address that controls the name: its NameWrapper owner when the name is wrapped (the registry owner is the
   * NameWrapper), else its registry owner; null when nobody does. EIP-55.
   */
  controller: string | null;
  wrapped: boolean;
  /**
   * For a second-level `.eth` name, the owner of its `.eth` registrar token (the registrant), which can reclaim the
   * name but does not control it until it does; null otherwise (other names, expired or unregistered).
   */
  registrant: string | null;
}

function orNull(address: string): string | null {
  return address === ZeroAddress ? null : getAddress(address);
}

/** The `.eth` registrant of a second-level `.eth` name (the registrar is the registry owner of `eth`), or null. */
async function ethRegistrant(provider: Provider, registry: string, name: string): Promise<string | null> {
  const labels = name.split('.');
  if (labels.length !== 2 || labels[1] !== 'eth' || !labels[0]) return null;
  const [registrar] = await readView<[string]>(provider, {
    to: registry,
    abi: ensRegistryInterface,
    fn: 'owner',
    args: [namehash('eth')],
    context: 'registry owner of eth',
  });
  if (registrar === ZeroAddress) return null;
  // ownerOf reverts for an expired or unregistered name: no registrant.
  const answer = await callView<[string]>(provider, {
    to: registrar,
    abi: erc721Interface,
    fn: 'ownerOf',
    args: [BigInt(labelhash(labels[0]))],
    context: `.eth registrant of ${name}`,
  });
  return answer instanceof NoValue ? null : orNull(answer[0]);
}

/**
 * The controller of `name` and whether it is wrapped: the NameWrapper owner when the registry owner is the
 * NameWrapper, else the registry owner (null when unowned). The one place this rule is written.
 */
export async function readController(
  provider: Provider,
  ens: { ensRegistry: string; nameWrapper: string },
  name: string,
): Promise<Pick<NameControl, 'controller' | 'wrapped'>> {
  const node = namehash(name);
  const [registryOwner] = await readView<[string]>(provider, {
    to: ens.ensRegistry,
    abi: ensRegistryInterface,
    fn: 'owner',
    args: [node],
    context: `registry owner of ${name}`,
  });
  const owner = orNull(registryOwner);
  if (owner === null || owner !== getAddress(ens.nameWrapper)) return { controller: owner, wrapped: false };
  const [wrappedOwner] = await readView<[string]>(provider, {
    to: ens.nameWrapper,
    abi: nameWrapperInterface,
    fn: 'ownerOf',
    args: [BigInt(node)],
    context: `NameWrapper owner of ${name}`,
  });
  return { controller: orNull(wrappedOwner), wrapped: true };
}

/**
 * Who controls `name` (normalised) on the chain of `provider` (`readController`), with its `.eth` registrant, so that
 * a refusal can say when the caller holds the registrar token without being the registry owner.
 */
export async function readNameControl(
  provider: Provider,
  ens: { ensRegistry: string; nameWrapper: string },
  name: string,
): Promise<NameControl> {
  const [control, registrant] = await Promise.all([
    readController(provider, ens, name),
    ethRegistrant(provider, ens.ensRegistry, name),
  ]);
  return { ...control, registrant };
}

/** The resolver set on `name` itself in the registry (no wildcard walk), or null. */
export async function getRegistryResolver(
  provider: Provider,
  registry: string,
  name: string,
): Promise<string | null> {
  const [resolver] = await readView<[string]>(provider, {
    to: registry,
    abi: ensRegistryInterface,
    fn: 'resolver',
    args: [namehash(name)],
    context: `registry resolver of ${name}`,
  });
  return orNull(resolver);
}
