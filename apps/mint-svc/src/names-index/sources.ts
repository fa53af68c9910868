import type { JsonRpcApiProvider } from 'ethers';
import {
  ensRegistryInterface,
  l2RegistryInterface,
  mintControllerInterface,
  nameWrapperInterface,
  readView,
  type DecodedLog,
  type LogSource,
} from '@nrp/chain';
import { chainIdOf, dnsDecode } from '@nrp/ens';
import type { MintNetworkContext } from '../context';
import type { L2MintControllers } from '../mint/l2-controllers';
import { foldL2Logs, l2TouchedNodes } from './fold-l2';
import { foldLogs, isFrom, mintLogs, touchedNodes, type BatchFacts, type FoldedBatch } from './fold';

/** What one batch of a network reads, and how its logs fold. */
export interface IndexContracts {
  logSources: LogSource[];
  /** The nodes the logs may change (looked up in the index before folding). */
  touchedNodes(logs: DecodedLog[]): string[];
  /** Our controllers' `SubnameMinted` among the logs. */
  mintLogs(logs: DecodedLog[]): DecodedLog[];
  fold(logs: DecodedLog[], facts: BatchFacts): FoldedBatch;
}

/** Where a network's names index reads: an L1 (ENS and our MintController) or an L2 (our registries). */
export interface NameIndexSource {
  provider: JsonRpcApiProvider;
  chainId: number;
  contracts(): Promise<IndexContracts>;
  /** The names of parent nodes no listing names, from the chain (a node it cannot name is left out). */
  parentNames(parentNodes: string[]): Promise<Map<string, string>>;
}

export type ControllerNetwork = MintNetworkContext & { mintController: string };

/** An L1: our MintController's mints, each name's holder (registry, NameWrapper) and NameWrapper expiry. */
export function l1IndexSource(network: ControllerNetwork): NameIndexSource {
  const { contracts, mintController, provider } = network;
  const indexContracts: IndexContracts = {
    logSources: [
      { address: mintController, abi: mintControllerInterface, events: ['SubnameMinted'] },
      {
        address: contracts.nameWrapper,
        abi: nameWrapperInterface,
        events: ['TransferSingle', 'TransferBatch', 'NameWrapped', 'ExpiryExtended'],
      },
      { address: contracts.ensRegistry, abi: ensRegistryInterface, events: ['Transfer', 'NewOwner'] },
    ],
    touchedNodes: (logs) => touchedNodes(logs, contracts),
    mintLogs: (logs) => mintLogs(logs, mintController),
    fold: (logs, facts) => foldLogs(logs, { ...facts, contracts, mintController }),
  };
  return {
    provider,
    chainId: network.config.chainId,
    contracts: () => Promise.resolve(indexContracts),
    // Wrapped parents: the NameWrapper's `names`.
    async parentNames(parentNodes) {
      const names = new Map<string, string>();
      for (const node of parentNodes) {
        const [encoded] = await readView<[string]>(provider, {
          to: contracts.nameWrapper,
          abi: nameWrapperInterface,
          fn: 'names',
          args: [node],
          context: `NameWrapper name of ${node}`,
        });
        if (encoded !== '0x') names.set(node, dnsDecode(encoded as `0x${string}`));
      }
      return names;
    },
  };
}

/** An L2: the configured L2MintControllers' mints, and their registries' holders and expiries. */
export function l2IndexSource(l2: L2MintControllers): NameIndexSource {
  return {
    provider: l2.provider,
    chainId: chainIdOf(l2.network),
    async contracts() {
      const parents = await l2.all();
      const controllers = parents.map((p) => p.mintController);
      return {
        logSources: parents.flatMap((p): LogSource[] => [
          { address: p.mintController, abi: mintControllerInterface, events: ['SubnameMinted'] },
          { address: p.registry, abi: l2RegistryInterface, events: ['Transfer', 'NameRegistered'] },
        ]),
        touchedNodes: (logs) => l2TouchedNodes(logs, parents),
        mintLogs: (logs) =>
          logs.filter((l) => l.event.name === 'SubnameMinted' && controllers.some((c) => isFrom(l, c))),
        fold: (logs, facts) => foldL2Logs(logs, parents, facts),
      };
    },
    async parentNames(parentNodes) {
      const parents = await l2.all();
      return new Map(
        parents.filter((p) => parentNodes.includes(p.parentNode)).map((p) => [p.parentNode, p.parentName]),
      );
    },
  };
}
