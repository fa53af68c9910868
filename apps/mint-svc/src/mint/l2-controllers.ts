import { getAddress, type JsonRpcApiProvider } from 'ethers';
import { l2MintControllerInterface, l2RegistryInterface, readView, type L2ParentDirectory } from '@nrp/chain';
import { namehash, type L2NetworkName } from '@nrp/ens';

/** A parent whose subnames an L2MintController of ours mints on an L2. */
export interface L2Parent {
  network: L2NetworkName;
  parentName: string;
  parentNode: string;
  /** Checksummed L2Registry address. */
  registry: string;
  /** Checksummed L2MintController address. */
  mintController: string;
}

/**
 * The configured L2MintControllers of one L2 and the parents they mint under: each controller's `registry()`, then
 * that registry's parent name (the platform's L2 parent directory). Both are immutable on chain, so they are read
 * once, at the first question; a read that failed is tried again at the next. When two controllers serve one parent,
 * the first configured one mints.
 */
export class L2MintControllers {
  private parents: Promise<Map<string, L2Parent>> | undefined;

  constructor(
    readonly network: L2NetworkName,
    readonly provider: JsonRpcApiProvider,
    readonly controllers: readonly string[],
    private readonly directory: L2ParentDirectory,
  ) {}

  /** The parent `parentName`, or undefined when no configured controller mints under it. */
  async find(parentName: string): Promise<L2Parent | undefined> {
    if (this.controllers.length === 0) return undefined;
    return (await this.load()).get(namehash(parentName));
  }

  /** Whether `label` is registered and live under `parent` (the registry's `available`, on the L2). */
  async labelTaken(parent: L2Parent, label: string): Promise<boolean> {
    const [available] = await readView<[boolean]>(this.provider, {
      to: parent.registry,
      abi: l2RegistryInterface,
      fn: 'available',
      args: [label],
      context: `availability of ${label}.${parent.parentName} on ${this.network}`,
    });
    return !available;
  }

  /** Whether the parent's registry lets its L2MintController register (`controllers`, set by the parent's owner). */
  async controllerEnabled(parent: L2Parent): Promise<boolean> {
    const [enabled] = await readView<[boolean]>(this.provider, {
      to: parent.registry,
      abi: l2RegistryInterface,
      fn: 'controllers',
      args: [parent.mintController],
      context: `controller approval on the L2 registry of ${parent.parentName}`,
    });
    return enabled;
  }

  /** Every parent the controllers mint under. */
  async all(): Promise<L2Parent[]> {
    if (this.controllers.length === 0) return [];
    return [...(await this.load()).values()];
  }

  private load(): Promise<Map<string, L2Parent>> {
    this.parents ??= this.read().catch((err: unknown) => {
      this.parents = undefined;
      throw err;
    });
    return this.parents;
  }

  private async read(): Promise<Map<string, L2Parent>> {
    const parents = await Promise.all(this.controllers.map((controller) => this.parentOf(controller)));
    const byNode = new Map<string, L2Parent>();
    for (const parent of parents) if (!byNode.has(parent.parentNode)) byNode.set(parent.parentNode, parent);
    return byNode;
  }

  /** The parent `controller` mints under, read from the L2 (its `registry()`, then that registry's parent name). */
  async parentOf(controller: string): Promise<L2Parent> {
    const [registry] = await readView<[string]>(this.provider, {
      to: controller,
      abi: l2MintControllerInterface,
      fn: 'registry',
      args: [],
      context: `registry of the L2 mint controller ${controller} on ${this.network}`,
    });
    const parentName = await this.directory.parentName(this.network, registry);
    return {
      network: this.network,
      parentName,
      parentNode: namehash(parentName),
      registry: getAddress(registry),
      mintController: getAddress(controller),
    };
  }
}
