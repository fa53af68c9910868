import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { concat, getAddress, keccak256, toBeHex, ZeroAddress } from 'ethers';
import {
  ensRegistryInterface,
  mintControllerInterface,
  nameWrapperInterface,
  readLogs,
  readView,
  type DecodedLog,
} from '@nrp/chain';
import { dnsDecode } from '@nrp/ens';
import { newEvent } from '@nrp/outbox';
import { startPeriodic, type Logger, type PeriodicTask } from '@nrp/server';
import type { PlatformEvent } from '@nrp/api';
import type { MintNetworkContext, MintServiceContext } from './context';
import {
  applyBatch,
  findNames,
  latestCheckpoints,
  listedParentNames,
  pruneCheckpoints,
  releaseLease,
  rollBackTo,
  takeLease,
  type Checkpoint,
  type IndexedName,
  type NameChange,
  type NewName,
} from './data/names-index';

/** How many batch ends are kept to find where a reorganised chain forked from the indexed one. */
const CHECKPOINTS_KEPT = 256;

/** Settings of the indexer of one network (from the config). */
export interface NameIndexSettings {
  startBlock: number;
  confirmations: number;
  batchBlocks: number;
  leaseMs: number;
  intervalMs: number;
  /** Upper bound of the wait after consecutive failures. */
  maxBackoffMs: number;
}

/** What a tick found: for logs and tests. */
export interface IndexProgress {
  holder: boolean;
  cursor: number;
  target: number;
  batches: number;
  rolledBackTo?: number;
}

type ControllerNetwork = MintNetworkContext & { mintController: string };

type FoldState = Pick<IndexedName, 'name' | 'parentName' | 'owner' | 'wrapped' | 'expiry'>;

/** The index of one network: one tick reads every confirmed batch it can (when it holds the lease). */
export class NetworkNameIndex {
  private failures = 0;
  private retryAt = 0;

  constructor(
    private readonly ctx: MintServiceContext,
    private readonly networkName: string,
    private readonly network: ControllerNetwork,
    private readonly settings: NameIndexSettings,
    private readonly holder: string,
    private readonly onLag: (blocks: number) => void,
  ) {}

  /** Blocks between the confirmed head and the cursor (what /ready and the metric report). */
  async lag(): Promise<number> {
    const head = await this.network.provider.getBlockNumber();
    const [latest] = await latestCheckpoints(this.ctx.db, this.networkName, 1);
    const lag = Math.max(0, head - this.settings.confirmations - this.cursorOf(latest));
    this.onLag(lag);
    return lag;
  }

  /**
   * One run: after a failure the next runs wait (doubling, up to maxBackoffMs) so a failing node is not hammered;
   * a failed batch wrote nothing and is read again.
   */
  async tick(): Promise<IndexProgress | 'backing-off'> {
    if (Date.now() < this.retryAt) return 'backing-off';
    try {
      const progress = await this.run();
      this.failures = 0;
      return progress;
    } catch (err) {
      this.failures += 1;
      const wait = Math.min(this.settings.maxBackoffMs, this.settings.intervalMs * 2 ** this.failures);
      this.retryAt = Date.now() + wait;
      throw err;
    } finally {
      await this.lag().catch(() => undefined);
    }
  }

  async release(): Promise<void> {
    await releaseLease(this.ctx.db, this.networkName, this.holder);
  }

  private cursorOf(checkpoint: Checkpoint | undefined): number {
    return checkpoint?.blockNumber ?? this.settings.startBlock - 1;
  }

  private async run(): Promise<IndexProgress> {
    const { db } = this.ctx;
    const started = Date.now();
    if (!(await takeLease(db, this.networkName, this.holder, this.settings.leaseMs))) {
      return { holder: false, cursor: -1, target: -1, batches: 0 };
    }
    const provider = this.network.provider;
    const target = (await provider.getBlockNumber()) - this.settings.confirmations;
    let batches = 0;
    let rolledBackTo: number | undefined;
    for (;;) {
      const checkpoints = await latestCheckpoints(db, this.networkName, CHECKPOINTS_KEPT);
      const forkedAt = await this.forkPoint(checkpoints);
      if (forkedAt !== undefined) {
        if ((await rollBackTo(db, this.networkName, this.holder, forkedAt)) === 'lease-lost') break;
        rolledBackTo = forkedAt;
        continue;
      }
      const cursor = this.cursorOf(checkpoints[0]);
      if (cursor >= target) return { holder: true, cursor, target, batches, rolledBackTo };
      const to = Math.min(target, cursor + this.settings.batchBlocks);
      const outcome = await this.indexRange(checkpoints[0] ? cursor : null, cursor + 1, to);
      if (outcome !== 'applied') break;
      batches += 1;
      if (batches % 16 === 0) await pruneCheckpoints(db, this.networkName, CHECKPOINTS_KEPT);
      // Renew the lease before it could lapse under a long backfill.
      if (Date.now() - started > this.settings.leaseMs / 2) {
        if (!(await takeLease(db, this.networkName, this.holder, this.settings.leaseMs))) break;
      }
    }
    const [latest] = await latestCheckpoints(db, this.networkName, 1);
    return { holder: true, cursor: this.cursorOf(latest), target, batches, rolledBackTo };
  }

  /** The newest checkpoint still on the chain when the newest is not (a reorganisation), else undefined. */
  private async forkPoint(checkpoints: Checkpoint[]): Promise<number | undefined> {
    for (const [i, checkpoint] of checkpoints.entries()) {
      const block = await this.network.provider.getBlock(checkpoint.blockNumber);
      if (block?.hash === checkpoint.blockHash) return i === 0 ? undefined : checkpoint.blockNumber;
    }
    // None is left: every indexed block is undone (back to the configured start).
    return checkpoints.length === 0 ? undefined : this.settings.startBlock - 1;
  }

  private async blockHash(blockNumber: number): Promise<string> {
    const block = await this.network.provider.getBlock(blockNumber);
    if (!block?.hash) throw new Error(`${this.networkName}: block ${blockNumber} is not available`);
    return block.hash;
  }

  private async indexRange(expectedCursor: number | null, from: number, to: number) {
    const { contracts, mintController, provider } = this.network;
    const hashBefore = await this.blockHash(to);
    const logs = await readLogs(
      provider,
      [
        { address: mintController, abi: mintControllerInterface, events: ['SubnameMinted'] },
        {
          address: contracts.nameWrapper,
          abi: nameWrapperInterface,
          events: ['TransferSingle', 'TransferBatch', 'NameWrapped', 'ExpiryExtended'],
        },
        { address: contracts.ensRegistry, abi: ensRegistryInterface, events: ['Transfer', 'NewOwner'] },
      ],
      from,
      to,
      `indexing ${this.networkName} blocks ${from}-${to}`,
    );
    // The logs belong to the chain whose block `to` is hashBefore only if it still is (no reorganisation meanwhile).
    if ((await this.blockHash(to)) !== hashBefore) {
      throw new Error(`${this.networkName}: the chain changed while blocks ${from}-${to} were read`);
    }
    const folded = await this.fold(logs);
    return applyBatch(this.ctx.db, this.networkName, this.holder, expectedCursor, {
      ...folded,
      checkpoint: { blockNumber: to, blockHash: hashBefore },
      appendEvents: (trx) => this.ctx.events.append(trx, folded.events),
    });
  }

  /** The names minted in `logs`, and every later change of a name the index knows, in chain order. */
  private async fold(logs: DecodedLog[]) {
    const { contracts, mintController, config } = this.network;
    const isFrom = (log: DecodedLog, address: string) => log.address.toLowerCase() === address.toLowerCase();
    const mints = logs.filter((l) => isFrom(l, mintController) && l.event.name === 'SubnameMinted');
    // A wrapped mint: the NameWrapper issued the token in the mint's own transaction.
    const wrappedInTx = new Set<string>();
    for (const log of logs) {
      if (!isFrom(log, contracts.nameWrapper)) continue;
      for (const node of this.wrapperNodes(log)) wrappedInTx.add(`${log.transactionHash}:${node}`);
    }
    const touched = new Set<string>();
    for (const log of logs) for (const node of this.changedNodes(log, contracts)) touched.add(node);
    const known = await findNames(this.ctx.db, this.networkName, [...touched]);
    const parents = await this.parentNames(mints.map((m) => String(m.event.args.parentNode)));
    const timestamps = await this.timestamps(mints.map((m) => m.blockNumber));

    const state = new Map<string, FoldState>(known);
    const minted: NewName[] = [];
    const changes: NameChange[] = [];
    const events: PlatformEvent[] = [];
    const record = (log: DecodedLog, node: string, next: FoldState) => {
      state.set(node, next);
      const last = changes.at(-1);
      const change = { node, blockNumber: log.blockNumber, logIndex: log.logIndex, ...next };
      if (
        last &&
        last.node === node &&
        last.blockNumber === log.blockNumber &&
        last.logIndex === log.logIndex
      )
        changes[changes.length - 1] = change;
      else changes.push(change);
    };
    const eventData = (log: DecodedLog, name: FoldState) => ({
      network: this.networkName,
      chainId: config.chainId,
      name: name.name,
      parentName: name.parentName,
      wrapped: name.wrapped,
      expiry: name.expiry,
      txHash: log.transactionHash,
      blockNumber: log.blockNumber,
    });
    const transfer = (
      log: DecodedLog,
      node: string,
      owner: string,
      wrapped: boolean,
      expiry?: number | null,
    ) => {
      const current = state.get(node);
      if (!current) return;
      const next = {
        ...current,
        owner: getAddress(owner),
        wrapped,
        expiry: expiry === undefined ? (wrapped ? current.expiry : null) : expiry,
      };
      record(log, node, next);
      if (next.owner !== current.owner) {
        events.push(
          newEvent('name.transferred', next.parentName, {
            ...eventData(log, next),
            from: current.owner,
            to: next.owner,
          }),
        );
      }
    };

    for (const log of logs) {
      const args = log.event.args;
      if (isFrom(log, mintController)) {
        const node = String(args.node);
        const parentNode = String(args.parentNode);
        const parentName = parents.get(parentNode) ?? `[${parentNode.slice(2)}]`;
        const wrapped = wrappedInTx.has(`${log.transactionHash}:${node}`);
        const next: FoldState = {
          name: `${String(args.label)}.${parentName}`,
          parentName,
          owner: getAddress(String(args.owner)),
          wrapped,
          expiry: wrapped ? Number(args.expiry) : null,
        };
        const mintedAt = new Date((timestamps.get(log.blockNumber) ?? 0) * 1000);
        if (!state.has(node)) {
          minted.push({
            node,
            name: next.name,
            parentName,
            label: String(args.label),
            mintedAt,
            txHash: log.transactionHash,
            blockNumber: log.blockNumber,
          });
        }
        record(log, node, next);
        events.push(
          newEvent('name.minted', parentName, { ...eventData(log, next), owner: next.owner }, mintedAt),
        );
        continue;
      }
      if (isFrom(log, contracts.nameWrapper)) {
        const event = log.event.name;
        if (event === 'TransferSingle' || event === 'TransferBatch') {
          if (String(args.to) === ZeroAddress) continue; // burnt: an unwrap (the registry's Transfer follows)
          for (const node of this.wrapperNodes(log)) transfer(log, node, String(args.to), true);
        } else if (event === 'NameWrapped') {
          transfer(log, String(args.node), String(args.owner), true, Number(args.expiry));
        } else if (event === 'ExpiryExtended') {
          const current = state.get(String(args.node));
          if (current) record(log, String(args.node), { ...current, expiry: Number(args.expiry) });
        }
        continue;
      }
      // The registry: a holder that is the NameWrapper means wrapped (its own events name the holder).
      const [node] = this.changedNodes(log, contracts);
      const owner = String(args.owner);
      if (node && owner.toLowerCase() !== contracts.nameWrapper.toLowerCase())
        transfer(log, node, owner, false);
    }
    return { minted, changes, events };
  }

  /** The token ids (as nodes) of a NameWrapper log. */
  private wrapperNodes(log: DecodedLog): string[] {
    const args = log.event.args;
    switch (log.event.name) {
      case 'TransferSingle':
        return [toBeHex(BigInt(String(args.id)), 32)];
      case 'TransferBatch':
        return (args.ids as bigint[]).map((id) => toBeHex(id, 32));
      default:
        return [String(args.node)];
    }
  }

  /** The nodes whose holder or expiry a log may change. */
  private changedNodes(log: DecodedLog, contracts: ControllerNetwork['contracts']): string[] {
    const args = log.event.args;
    if (log.address.toLowerCase() === contracts.nameWrapper.toLowerCase()) return this.wrapperNodes(log);
    if (log.address.toLowerCase() !== contracts.ensRegistry.toLowerCase()) return [];
    if (log.event.name === 'NewOwner') return [keccak256(concat([String(args.node), String(args.label)]))];
    return [String(args.node)];
  }

  /** Parent names by node: the listing's, else the NameWrapper's `names` (wrapped parents), else `[node]`. */
  private async parentNames(parentNodes: string[]): Promise<Map<string, string>> {
    const unique = [...new Set(parentNodes)];
    const names = await listedParentNames(this.ctx.db, this.networkName, unique);
    for (const node of unique.filter((n) => !names.has(n))) {
      const [encoded] = await readView<[string]>(this.network.provider, {
        to: this.network.contracts.nameWrapper,
        abi: nameWrapperInterface,
        fn: 'names',
        args: [node],
        context: `NameWrapper name of ${node}`,
      });
      if (encoded !== '0x') names.set(node, dnsDecode(encoded as `0x${string}`));
    }
    return names;
  }

  private async timestamps(blockNumbers: number[]): Promise<Map<number, number>> {
    const unique = [...new Set(blockNumbers)];
    const blocks = await Promise.all(unique.map((n) => this.network.provider.getBlock(n)));
    const found = new Map<number, number>();
    for (const [i, block] of blocks.entries()) {
      if (!block) throw new Error(`${this.networkName}: block ${unique[i]} is not available`);
      found.set(block.number, block.timestamp);
    }
    return found;
  }
}

/** The indexers of every network with a mint controller, each on the shared periodic loop. */
export interface NameIndexers {
  indexes: Map<string, NetworkNameIndex>;
  stop(): Promise<void>;
}

export function startNameIndexers(
  ctx: MintServiceContext,
  settingsOf: (network: string) => NameIndexSettings,
  logger: Logger,
  onLag: (network: string, blocks: number) => void,
): NameIndexers {
  const holder = `${hostname()}:${process.pid}:${randomUUID()}`;
  const indexes = new Map<string, NetworkNameIndex>();
  const tasks: PeriodicTask[] = [];
  for (const [name, network] of Object.entries(ctx.networks)) {
    const controller = network.mintController;
    if (!controller) continue;
    const settings = settingsOf(name);
    const index = new NetworkNameIndex(
      ctx,
      name,
      { ...network, mintController: controller },
      settings,
      holder,
      (blocks) => onLag(name, blocks),
    );
    indexes.set(name, index);
    tasks.push(startPeriodic(`name index ${name}`, settings.intervalMs, () => index.tick(), logger));
  }
  return {
    indexes,
    async stop() {
      await Promise.all(tasks.map((t) => t.stop()));
      await Promise.all([...indexes.values()].map((i) => i.release().catch(() => undefined)));
    },
  };
}
