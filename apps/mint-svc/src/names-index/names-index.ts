import { readBlock, readBlockNumber, readLogs, type BlockHeader, type DecodedLog } from '@nrp/chain';
import type { MintContext } from '../context';
import {
  applyBatch,
  latestCheckpoints,
  pruneCheckpoints,
  releaseLease,
  rollBackTo,
  takeLease,
  type Checkpoint,
} from '../data/names-index';
import { findNames, listedParentNames } from '../data/names';
import type { IndexContracts, NameIndexSource } from './sources';

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

/** Where an index reports its lag and its failed runs (the metrics). */
export interface IndexReport {
  lag(blocks: number): void;
  failures(count: number): void;
}

/** The failed runs in a row and when the next is tried (for /ready; why they failed goes to the logs). */
export interface IndexHealth {
  failures: number;
  retryInMs: number;
}

/** The index of one network: one tick reads every confirmed batch it can (when it holds the lease). */
export class NetworkNameIndex {
  private failures = 0;
  private retryAt = 0;

  constructor(
    private readonly ctx: Pick<MintContext, 'db' | 'events'>,
    private readonly networkName: string,
    private readonly source: NameIndexSource,
    private readonly settings: NameIndexSettings,
    private readonly holder: string,
    private readonly report: IndexReport,
  ) {}

  /** Blocks between the confirmed head and the cursor (what /ready and the metric report). */
  async lag(): Promise<number> {
    const head = await readBlockNumber(this.source.provider, this.networkName);
    const [latest] = await latestCheckpoints(this.ctx.db, this.networkName, 1);
    const lag = Math.max(0, head - this.settings.confirmations - this.cursorOf(latest));
    this.report.lag(lag);
    return lag;
  }

  health(): IndexHealth {
    return {
      failures: this.failures,
      retryInMs: Math.max(0, this.retryAt - Date.now()),
    };
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
      this.retryAt = Date.now() + retryDelayMs(this.settings, this.failures);
      throw err;
    } finally {
      this.report.failures(this.failures);
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
    const provider = this.source.provider;
    const target = (await readBlockNumber(provider, this.networkName)) - this.settings.confirmations;
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

  /**
   * The newest checkpoint still on the chain when the newest is not (a reorganisation), else undefined. By hash,
   * read fresh: a new chain may have grown past the old one's height a moment after the last look.
   */
  private async forkPoint(checkpoints: Checkpoint[]): Promise<number | undefined> {
    for (const [i, checkpoint] of checkpoints.entries()) {
      const block = await readBlock(this.source.provider, checkpoint.blockNumber, this.networkName);
      if (block?.hash === checkpoint.blockHash) return i === 0 ? undefined : checkpoint.blockNumber;
    }
    // None is left: every indexed block is undone (back to the configured start).
    return checkpoints.length === 0 ? undefined : this.settings.startBlock - 1;
  }

  private async block(blockNumber: number): Promise<BlockHeader> {
    const block = await readBlock(this.source.provider, blockNumber, this.networkName);
    if (!block) throw new Error(`${this.networkName}: block ${blockNumber} is not available`);
    return block;
  }

  private async indexRange(expectedCursor: number | null, from: number, to: number) {
    const { provider } = this.source;
    const contracts = await this.source.contracts();
    const hashBefore = (await this.block(to)).hash;
    const logs = await readLogs(
      provider,
      contracts.logSources,
      from,
      to,
      `indexing ${this.networkName} blocks ${from}-${to}`,
    );
    // The logs belong to the chain whose block `to` is hashBefore only if it still is (no reorganisation meanwhile).
    if ((await this.block(to)).hash !== hashBefore) {
      throw new Error(`${this.networkName}: the chain changed while blocks ${from}-${to} were read`);
    }
    const folded = await this.fold(contracts, logs);
    return applyBatch(this.ctx.db, this.networkName, this.holder, expectedCursor, {
      ...folded,
      checkpoint: { blockNumber: to, blockHash: hashBefore },
      appendEvents: (trx) => this.ctx.events.append(trx, folded.events),
    });
  }

  /** The names minted in `logs`, and every later change of a name the index knows, in chain order. */
  private async fold(contracts: IndexContracts, logs: DecodedLog[]) {
    const mints = contracts.mintLogs(logs);
    const known = await findNames(this.ctx.db, this.networkName, contracts.touchedNodes(logs));
    const parents = await this.parentNames(mints.map((m) => String(m.event.args.parentNode)));
    const timestamps = await this.timestamps(mints.map((m) => m.blockNumber));
    return contracts.fold(logs, {
      networkName: this.networkName,
      chainId: this.source.chainId,
      known,
      parents,
      timestamps,
    });
  }

  /** Parent names by node: the listing's, else what the chain tells (see NameIndexSource.parentNames). */
  private async parentNames(parentNodes: string[]): Promise<Map<string, string>> {
    const unique = [...new Set(parentNodes)];
    const names = await listedParentNames(this.ctx.db, this.networkName, unique);
    const fromChain = await this.source.parentNames(unique.filter((n) => !names.has(n)));
    for (const [node, name] of fromChain) names.set(node, name);
    return names;
  }

  private async timestamps(blockNumbers: number[]): Promise<Map<number, number>> {
    const unique = [...new Set(blockNumbers)];
    const timestamps = new Map<number, number>();
    // A backfill batch may span thousands of blocks: read them a few at a time, not all at once from one node.
    for (let i = 0; i < unique.length; i += BLOCK_READS_AT_ONCE) {
      const blocks = await Promise.all(unique.slice(i, i + BLOCK_READS_AT_ONCE).map((n) => this.block(n)));
      for (const b of blocks) timestamps.set(b.number, b.timestamp);
    }
    return timestamps;
  }
}

const BLOCK_READS_AT_ONCE = 16;

/** The wait before the next run after `failures` failed runs in a row: the interval doubled each time, capped. */
export function retryDelayMs(
  settings: Pick<NameIndexSettings, 'intervalMs' | 'maxBackoffMs'>,
  failures: number,
) {
  return Math.min(settings.maxBackoffMs, settings.intervalMs * 2 ** failures);
}
