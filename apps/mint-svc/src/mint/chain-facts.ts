import type { Provider } from 'ethers';
import {
  NoValue,
  baseRegistrarInterface,
  callView,
  ensRegistryInterface,
  erc1155Interface,
  erc721Interface,
  nameWrapperInterface,
  readView,
} from '@nrp/chain';
import { labelhash, namehash } from '@nrp/ens';
import type { ListingSettings } from '@nrp/api';

const ZERO = '0x0000000000000000000000000000000000000000';
/** The NameWrapper test double (and wrapped names without a limit) use the largest uint64 for "never". */
const MAX_UINT64 = 2n ** 64n - 1n;

export interface ChainContracts {
  ensRegistry: string;
  nameWrapper: string;
  baseRegistrar: string;
}

export interface MintChainFacts {
  /** The subname has a live owner (registry, or NameWrapper when wrapped). */
  subnameTaken: boolean;
  parentWrapped: boolean;
  /** Effective owner of the parent (NameWrapper owner when wrapped), lower-case; null when unowned. */
  parentOwner: string | null;
  /** Unix seconds; null when the parent has no expiry (or an unlimited one). */
  parentExpiry: number | null;
  /** Minter's balance of the gating token; null when the listing has no token gate. */
  gateBalance: bigint | null;
}

/** For `a.b.eth`, the label `b` of its .eth second-level name; undefined outside .eth. */
function ethSecondLevelLabel(name: string): string | undefined {
  const labels = name.split('.');
  if (labels.length < 2 || labels[labels.length - 1] !== 'eth') return undefined;
  return labels[labels.length - 2];
}

async function gateBalance(
  provider: Provider,
  gate: NonNullable<ListingSettings['tokenGate']>,
  minter: string,
): Promise<bigint> {
  const answer = await callView<[bigint]>(provider, {
    to: gate.contract,
    ...(gate.standard === 'erc721'
      ? { abi: erc721Interface, args: [minter] }
      : { abi: erc1155Interface, args: [minter, BigInt(gate.tokenId ?? '0')] }),
    fn: 'balanceOf',
    context: `token gate balance of ${minter}`,
  });
  // A gate contract that reverts or is not a token holds nothing for anyone; a failing node is upstream.
  return answer instanceof NoValue ? 0n : answer[0];
}

/**
 * Everything an estimate needs from the chain, as independent eth_calls issued together, so that ethers'
 * JsonRpcProvider sends them as ONE JSON-RPC batch (one round trip). `label` null: the subname lives on an L2, its
 * availability is read there (`subnameTaken` false here).
 */
export async function readMintChainFacts(
  provider: Provider,
  contracts: ChainContracts,
  args: { parentName: string; label: string | null; minter: string; tokenGate: ListingSettings['tokenGate'] },
): Promise<MintChainFacts> {
  const parentNode = namehash(args.parentName);
  const node = args.label === null ? null : namehash(`${args.label}.${args.parentName}`);
  const secondLevel = ethSecondLevelLabel(args.parentName);
  const [[parentOwnerRaw], [ownerRaw], [wrappedOwner], parentData, registrarExpiry, balance] =
    await Promise.all([
      readView<[string]>(provider, {
        to: contracts.ensRegistry,
        abi: ensRegistryInterface,
        fn: 'owner',
        args: [parentNode],
        context: 'parent owner',
      }),
      node === null
        ? Promise.resolve<[string]>([ZERO])
        : readView<[string]>(provider, {
            to: contracts.ensRegistry,
            abi: ensRegistryInterface,
            fn: 'owner',
            args: [node],
            context: 'subname owner',
          }),
      node === null
        ? Promise.resolve<[string]>([ZERO])
        : readView<[string]>(provider, {
            to: contracts.nameWrapper,
            abi: nameWrapperInterface,
            fn: 'ownerOf',
            args: [BigInt(node)],
            context: 'wrapped subname owner',
          }),
      readView<[string, bigint, bigint]>(provider, {
        to: contracts.nameWrapper,
        abi: nameWrapperInterface,
        fn: 'getData',
        args: [BigInt(parentNode)],
        context: 'wrapped parent data',
      }),
      secondLevel === undefined
        ? Promise.resolve(undefined)
        : readView<[bigint]>(provider, {
            to: contracts.baseRegistrar,
            abi: baseRegistrarInterface,
            fn: 'nameExpires',
            args: [BigInt(labelhash(secondLevel))],
            context: 'registrar expiry',
          }),
      args.tokenGate ? gateBalance(provider, args.tokenGate, args.minter) : Promise.resolve(null),
    ]);

  const wrapper = contracts.nameWrapper.toLowerCase();
  const parentOwner = parentOwnerRaw.toLowerCase();
  const owner = ownerRaw.toLowerCase();
  const parentWrapped = parentOwner === wrapper;
  const subnameTaken = owner !== ZERO && (owner !== wrapper || wrappedOwner.toLowerCase() !== ZERO);

  let parentExpiry: bigint | null = null;
  let effectiveParentOwner: string | null = parentOwner === ZERO ? null : parentOwner;
  if (parentWrapped) {
    const [wrappedParentOwnerRaw, , expiry] = parentData;
    const wrappedParentOwner = wrappedParentOwnerRaw.toLowerCase();
    effectiveParentOwner = wrappedParentOwner === ZERO ? null : wrappedParentOwner;
    if (expiry > 0n && expiry < MAX_UINT64) parentExpiry = expiry;
  }
  if (registrarExpiry !== undefined) {
    const [expiry] = registrarExpiry;
    if (expiry > 0n && (parentExpiry === null || expiry < parentExpiry)) parentExpiry = expiry;
  }
  return {
    subnameTaken,
    parentWrapped,
    parentOwner: effectiveParentOwner,
    parentExpiry: parentExpiry === null ? null : Number(parentExpiry),
    gateBalance: balance,
  };
}

/**
 * Whether the parent's owner lets `controller` create subnames: `isApprovedForAll(owner, controller)` on the
 * NameWrapper for a wrapped parent, on the registry otherwise (or the controller owns the parent itself).
 */
export async function isControllerApproved(
  provider: Provider,
  contracts: ChainContracts,
  facts: Pick<MintChainFacts, 'parentWrapped' | 'parentOwner'>,
  controller: string,
): Promise<boolean> {
  if (facts.parentOwner === null) return false;
  if (facts.parentOwner === controller.toLowerCase()) return true;
  const [approved] = await readView<[boolean]>(provider, {
    ...(facts.parentWrapped
      ? { to: contracts.nameWrapper, abi: nameWrapperInterface }
      : { to: contracts.ensRegistry, abi: ensRegistryInterface }),
    fn: 'isApprovedForAll',
    args: [facts.parentOwner, controller],
    context: 'controller approval',
  });
  return approved;
}
