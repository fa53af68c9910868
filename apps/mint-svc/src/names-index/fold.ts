import { concat, getAddress, keccak256, toBeHex, ZeroAddress } from 'ethers';
import type { DecodedLog } from '@nrp/chain';
import { newEvent } from '@nrp/outbox';
import type { PlatformEvent } from '@nrp/api';
import type { MintNetworkContext } from '../context';
import type { NameChange, NewName } from '../data/names-index';
import type { IndexedName } from '../data/names';

type Contracts = MintNetworkContext['contracts'];

export type FoldState = Pick<IndexedName, 'name' | 'parentName' | 'owner' | 'wrapped' | 'expiry'>;

/** What every network's batch is folded with: where it comes from and what the index and the chain already told. */
export interface BatchFacts {
  networkName: string;
  chainId: number;
  /** The indexed names among the nodes the logs touch. */
  known: Map<string, FoldState>;
  /** Parent names by parent node. */
  parents: Map<string, string>;
  /** Block timestamps (Unix seconds) of the mints' blocks. */
  timestamps: Map<number, number>;
}

/** An L1 batch: also the ENS contracts and our mint controller. */
export interface FoldInput extends BatchFacts {
  contracts: Contracts;
  mintController: string;
}

export interface FoldedBatch {
  minted: NewName[];
  changes: NameChange[];
  events: PlatformEvent[];
}

/**
 * Folds a batch's logs, one at a time in chain order, into the names minted, every change of a known name and the
 * events they emit (`name.minted`, `name.transferred`).
 */
export class BatchFolder {
  private readonly state: Map<string, FoldState>;
  private readonly batch: FoldedBatch = { minted: [], changes: [], events: [] };

  constructor(private readonly facts: BatchFacts) {
    this.state = new Map(facts.known);
  }

  /** A mint by our controller (SubnameMinted): a new name, or a known one registered again. */
  mint(log: DecodedLog, node: string, label: string, next: FoldState): void {
    const mintedAt = new Date((this.facts.timestamps.get(log.blockNumber) ?? 0) * 1000);
    if (!this.state.has(node)) {
      this.batch.minted.push({
        node,
        name: next.name,
        parentName: next.parentName,
        label,
        mintedAt,
        txHash: log.transactionHash,
        blockNumber: log.blockNumber,
      });
    }
    this.record(log, node, next);
    const data = { ...this.eventData(log, next), owner: next.owner };
    this.batch.events.push(newEvent('name.minted', next.parentName, data, mintedAt));
  }

  /** A known name's new holder (`name.transferred` when it changed); `expiry` from its state before. */
  transfer(
    log: DecodedLog,
    node: string,
    owner: string,
    wrapped: boolean,
    expiry: (current: FoldState) => number | null,
  ): void {
    const current = this.state.get(node);
    if (!current) return;
    const next = { ...current, owner: getAddress(owner), wrapped, expiry: expiry(current) };
    this.record(log, node, next);
    if (next.owner !== current.owner) {
      const data = { ...this.eventData(log, next), from: current.owner, to: next.owner };
      this.batch.events.push(newEvent('name.transferred', next.parentName, data));
    }
  }

  /** A known name's new expiry. */
  expire(log: DecodedLog, node: string, expiry: number | null): void {
    const current = this.state.get(node);
    if (current) this.record(log, node, { ...current, expiry });
  }

  result(): FoldedBatch {
    return this.batch;
  }

  /** One change per node and log: a later state at the same log replaces the earlier one. */
  private record(log: DecodedLog, node: string, next: FoldState): void {
    this.state.set(node, next);
    const { changes } = this.batch;
    const last = changes.at(-1);
    const change = { node, blockNumber: log.blockNumber, logIndex: log.logIndex, ...next };
    const sameLog =
      last?.node === node && last.blockNumber === log.blockNumber && last.logIndex === log.logIndex;
    if (sameLog) changes[changes.length - 1] = change;
    else changes.push(change);
  }

  private eventData(log: DecodedLog, name: FoldState) {
    return {
      network: this.facts.networkName,
      chainId: this.facts.chainId,
      name: name.name,
      parentName: name.parentName,
      wrapped: name.wrapped,
      expiry: name.expiry,
      txHash: log.transactionHash,
      blockNumber: log.blockNumber,
    };
  }
}

export const isFrom = (log: DecodedLog, address: string) =>
  log.address.toLowerCase() === address.toLowerCase();

/** The token ids (as nodes) of a NameWrapper log. */
function wrapperNodes(log: DecodedLog): string[] {
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
function changedNodes(log: DecodedLog, contracts: Contracts): string[] {
  const args = log.event.args;
  if (isFrom(log, contracts.nameWrapper)) return wrapperNodes(log);
  if (!isFrom(log, contracts.ensRegistry)) return [];
  if (log.event.name === 'NewOwner') return [keccak256(concat([String(args.node), String(args.label)]))];
  return [String(args.node)];
}

/** Every node the logs may change (to look up in the index before folding). */
export function touchedNodes(logs: DecodedLog[], contracts: Contracts): string[] {
  const touched = new Set<string>();
  for (const log of logs) for (const node of changedNodes(log, contracts)) touched.add(node);
  return [...touched];
}

/** The mints of the controller among `logs`. */
export function mintLogs(logs: DecodedLog[], mintController: string): DecodedLog[] {
  return logs.filter((l) => isFrom(l, mintController) && l.event.name === 'SubnameMinted');
}

/** The names minted in `logs`, and every later change of a name the index knows, in chain order, with their events. */
export function foldLogs(logs: DecodedLog[], input: FoldInput): FoldedBatch {
  const { contracts, mintController } = input;
  // A wrapped mint: the NameWrapper issued the token in the mint's own transaction.
  const wrappedInTx = new Set<string>();
  for (const log of logs) {
    if (!isFrom(log, contracts.nameWrapper)) continue;
    for (const node of wrapperNodes(log)) wrappedInTx.add(`${log.transactionHash}:${node}`);
  }
  const folder = new BatchFolder(input);
  // An unwrapped name has no expiry; a wrapped one keeps its own unless the log names one.
  const keptWhenWrapped = (wrapped: boolean) => (current: FoldState) => (wrapped ? current.expiry : null);

  for (const log of logs) {
    const args = log.event.args;
    if (isFrom(log, mintController)) {
      const node = String(args.node);
      const parentNode = String(args.parentNode);
      const parentName = input.parents.get(parentNode) ?? `[${parentNode.slice(2)}]`;
      const wrapped = wrappedInTx.has(`${log.transactionHash}:${node}`);
      folder.mint(log, node, String(args.label), {
        name: `${String(args.label)}.${parentName}`,
        parentName,
        owner: getAddress(String(args.owner)),
        wrapped,
        expiry: wrapped ? Number(args.expiry) : null,
      });
      continue;
    }
    if (isFrom(log, contracts.nameWrapper)) {
      const event = log.event.name;
      if (event === 'TransferSingle' || event === 'TransferBatch') {
        if (String(args.to) === ZeroAddress) continue; // burnt: an unwrap (the registry's Transfer follows)
        for (const node of wrapperNodes(log))
          folder.transfer(log, node, String(args.to), true, keptWhenWrapped(true));
      } else if (event === 'NameWrapped') {
        folder.transfer(log, String(args.node), String(args.owner), true, () => Number(args.expiry));
      } else if (event === 'ExpiryExtended') {
        folder.expire(log, String(args.node), Number(args.expiry));
      }
      continue;
    }
    // The registry: a holder that is the NameWrapper means wrapped (its own events name the holder).
    const [node] = changedNodes(log, contracts);
    const owner = String(args.owner);
    if (node && owner.toLowerCase() !== contracts.nameWrapper.toLowerCase())
      folder.transfer(log, node, owner, false, keptWhenWrapped(false));
  }
  return folder.result();
}
