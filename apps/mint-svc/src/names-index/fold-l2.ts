import { getAddress, toBeHex } from 'ethers';
import type { DecodedLog } from '@nrp/chain';
import type { L2Parent } from '../mint/l2-controllers';
import { BatchFolder, isFrom, type BatchFacts, type FoldedBatch, type FoldState } from './fold';

/** L2Registry's "never expires" (an L2MintController mint with `expiry` 0). */
const NEVER = 2n ** 64n - 1n;

/** A registry expiry as the index keeps it: Unix seconds, null for never. */
const expiryOf = (value: unknown): number | null => (BigInt(String(value)) === NEVER ? null : Number(value));

/** The node of a registry log: the ERC-721 token id of a Transfer, `node` of a NameRegistered. */
function registryNode(log: DecodedLog): string | undefined {
  const args = log.event.args;
  if (log.event.name === 'Transfer') return toBeHex(BigInt(String(args.tokenId)), 32);
  if (log.event.name === 'NameRegistered') return String(args.node);
  return undefined;
}

const fromRegistry = (log: DecodedLog, parents: readonly L2Parent[]) =>
  parents.some((p) => isFrom(log, p.registry));

/** Every node the logs of the parents' registries may change (to look up in the index before folding). */
export function l2TouchedNodes(logs: DecodedLog[], parents: readonly L2Parent[]): string[] {
  const touched = new Set<string>();
  for (const log of logs) {
    const node = fromRegistry(log, parents) ? registryNode(log) : undefined;
    if (node) touched.add(node);
  }
  return [...touched];
}

/**
 * An L2 batch: the controllers' `SubnameMinted` (a name, its holder and registry expiry), the registries' ERC-721
 * `Transfer` (a new holder; to the zero address when a name is revoked or burnt before it is registered again) and
 * `NameRegistered` (a new expiry). L2 names are never wrapped.
 */
export function foldL2Logs(logs: DecodedLog[], parents: readonly L2Parent[], facts: BatchFacts): FoldedBatch {
  const folder = new BatchFolder(facts);
  // A transfer keeps the registry expiry.
  const keep = (current: FoldState) => current.expiry;
  for (const log of logs) {
    const args = log.event.args;
    const parent = parents.find((p) => isFrom(log, p.mintController));
    if (parent) {
      const label = String(args.label);
      folder.mint(log, String(args.node), label, {
        name: `${label}.${parent.parentName}`,
        parentName: parent.parentName,
        owner: getAddress(String(args.owner)),
        wrapped: false,
        expiry: expiryOf(args.expiry),
      });
      continue;
    }
    const node = registryNode(log);
    if (!node) continue;
    if (log.event.name === 'Transfer') folder.transfer(log, node, String(args.to), false, keep);
    else folder.expire(log, node, expiryOf(args.expiry));
  }
  return folder.result();
}
