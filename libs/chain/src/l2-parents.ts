import type { Provider } from 'ethers';
import { dnsDecode, type Hex, type L2NetworkName } from '@nrp/ens';
import { readView } from './call-view';
import { toUpstreamError } from './errors';
import { l2RegistryInterface } from './l2-networks';

/**
 * The parent name (dotted) of the L2Registry at `registry`, from its DNS-encoded `parentName()`: set in its
 * constructor, so callers may keep it. An answer that does not decode means the address is not an L2Registry
 * (UpstreamError).
 */
async function readL2ParentName(
  provider: Provider,
  registry: string,
  network: L2NetworkName,
): Promise<string> {
  const context = `parent name of the L2 registry ${registry} on ${network}`;
  const [encoded] = await readView<[string]>(provider, {
    to: registry,
    abi: l2RegistryInterface,
    fn: 'parentName',
    context,
  });
  try {
    return dnsDecode(encoded as Hex);
  } catch (err) {
    throw toUpstreamError(`${context}: not a DNS-encoded name`, err);
  }
}

/**
 * The parent name of each L2Registry a service asks about, read from the registry's `parentName()` once per process:
 * it is set in the registry's constructor and never changes. Concurrent first questions share one read; a read that
 * failed is not remembered (the next question reads again).
 */
export class L2ParentDirectory {
  private readonly parents = new Map<string, Promise<string>>();

  constructor(private readonly providers: Readonly<Record<L2NetworkName, Provider>>) {}

  /** The parent name (dotted) of the L2Registry at `registry` on `network`. */
  parentName(network: L2NetworkName, registry: string): Promise<string> {
    const key = `${network}:${registry.toLowerCase()}`;
    let parent = this.parents.get(key);
    if (!parent) {
      parent = readL2ParentName(this.providers[network], registry, network);
      parent.catch(() => this.parents.delete(key));
      this.parents.set(key, parent);
    }
    return parent;
  }
}
