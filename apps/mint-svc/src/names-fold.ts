import { concat, getAddress, keccak256, toBeHex, ZeroAddress } from 'ethers';
import type { DecodedLog } from '@nrp/chain';
import { newEvent } from '@nrp/outbox';
import type { PlatformEvent } from '@nrp/api';
import type { MintNetworkContext } from './context';
import type { NameChange, NewName } from './data/names-index';
import type { IndexedName } from './data/names';

type Contracts = MintNetworkContext['contracts'];

type FoldState = Pick<IndexedName, 'name' | 'parentName' | 'owner' | 'wrapped' | 'expiry'>;

/** What a batch's logs are folded with: where they come from and what the index and the chain already told. */
export interface FoldInput {
  networkName: string;
  chainId: number;
  contracts: Contracts;
  mintController: string;
  /** The indexed names among the nodes the logs touch. */
  known: Map<string, FoldState>;
  /** Parent names by parent node. */
  parents: Map<string, string>;
  /** Block timestamps (Unix seconds) of the mints' blocks. */
  timestamps: Map<number, number>;
}

export interface FoldedBatch {
  minted: NewName[];
  changes: NameChange[];
  events: PlatformEvent[];
}

const isFrom = (log: DecodedLog, address: string) => log.address.toLowerCase() === address.toLowerCase();

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
  const state = new Map<string, FoldState>(input.known);
  const minted: NewName[] = [];
  const changes: NameChange[] = [];
  const events: PlatformEvent[] = [];
  const record = (log: DecodedLog, node: string, next: FoldState) => {
    state.set(node, next);
    const last = changes.at(-1);
    const change = { node, blockNumber: log.blockNumber, logIndex: log.logIndex, ...next };
    const sameLog =
      last?.node === node && last.blockNumber === log.blockNumber && last.logIndex === log.logIndex;
    if (sameLog) changes[changes.length - 1] = change;
    else changes.push(change);
  };
  const eventData = (log: DecodedLog, name: FoldState) => ({
    network: input.networkName,
    chainId: input.chainId,
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
      const data = { ...eventData(log, next), from: current.owner, to: next.owner };
      events.push(newEvent('name.transferred', next.parentName, data));
    }
  };

  for (const log of logs) {
    const args = log.event.args;
    if (isFrom(log, mintController)) {
      const node = String(args.node);
      const parentNode = String(args.parentNode);
      const parentName = input.parents.get(parentNode) ?? `[${parentNode.slice(2)}]`;
      const wrapped = wrappedInTx.has(`${log.transactionHash}:${node}`);
      const next: FoldState = {
        name: `${String(args.label)}.${parentName}`,
        parentName,
        owner: getAddress(String(args.owner)),
        wrapped,
        expiry: wrapped ? Number(args.expiry) : null,
      };
      const mintedAt = new Date((input.timestamps.get(log.blockNumber) ?? 0) * 1000);
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
        for (const node of wrapperNodes(log)) transfer(log, node, String(args.to), true);
      } else if (event === 'NameWrapped') {
        transfer(log, String(args.node), String(args.owner), true, Number(args.expiry));
      } else if (event === 'ExpiryExtended') {
        const current = state.get(String(args.node));
        if (current) record(log, String(args.node), { ...current, expiry: Number(args.expiry) });
      }
      continue;
    }
    // The registry: a holder that is the NameWrapper means wrapped (its own events name the holder).
    const [node] = changedNodes(log, contracts);
    const owner = String(args.owner);
    if (node && owner.toLowerCase() !== contracts.nameWrapper.toLowerCase())
      transfer(log, node, owner, false);
  }
  return { minted, changes, events };
}
