import { Interface, isError, type Provider } from 'ethers';
import { ensRegistryInterface, nameWrapperInterface, toUpstreamError } from '@nrp/chain';
import { labelhash, namehash } from '@nrp/ens';
import type { ListingSettings } from '@nrp/api';

const baseRegistrarInterface = new Interface(['function nameExpires(uint256 id) view returns (uint256)']);
const erc721Interface = new Interface(['function balanceOf(address owner) view returns (uint256)']);
const erc1155Interface = new Interface([
  'function balanceOf(address account, uint256 id) view returns (uint256)',
]);

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

async function call(provider: Provider, to: string, data: string, context: string): Promise<string> {
  try {
    return await provider.call({ to, data });
  } catch (err) {
    throw toUpstreamError(context, err);
  }
}

function decodeOne<T>(iface: Interface, fn: string, raw: string, context: string): T {
  try {
    return iface.decodeFunctionResult(fn, raw)[0] as T;
  } catch (err) {
    throw toUpstreamError(`${context}: undecodable answer`, err);
  }
}

async function gateBalance(
  provider: Provider,
  gate: NonNullable<ListingSettings['tokenGate']>,
  minter: string,
): Promise<bigint> {
  const [iface, args] =
    gate.standard === 'erc721'
      ? [erc721Interface, [minter]]
      : [erc1155Interface, [minter, BigInt(gate.tokenId ?? '0')]];
  try {
    const raw = await provider.call({ to: gate.contract, data: iface.encodeFunctionData('balanceOf', args) });
    return iface.decodeFunctionResult('balanceOf', raw)[0] as bigint;
  } catch (err) {
    // A gate contract that reverts or is not a token holds nothing for anyone; a failing node is upstream.
    if (isError(err, 'CALL_EXCEPTION') || isError(err, 'BAD_DATA')) return 0n;
    throw toUpstreamError(`token gate balance of ${minter}`, err);
  }
}

/**
 * Everything an estimate needs from the chain, as independent eth_calls issued together, so that ethers'
 * JsonRpcProvider sends them as ONE JSON-RPC batch (one round trip).
 */
export async function readMintChainFacts(
  provider: Provider,
  contracts: ChainContracts,
  args: { parentName: string; label: string; minter: string; tokenGate: ListingSettings['tokenGate'] },
): Promise<MintChainFacts> {
  const parentNode = namehash(args.parentName);
  const node = namehash(`${args.label}.${args.parentName}`);
  const secondLevel = ethSecondLevelLabel(args.parentName);
  const [parentOwnerRaw, ownerRaw, wrappedOwnerRaw, parentDataRaw, registrarExpiryRaw, balance] =
    await Promise.all([
      call(
        provider,
        contracts.ensRegistry,
        ensRegistryInterface.encodeFunctionData('owner', [parentNode]),
        'parent owner',
      ),
      call(
        provider,
        contracts.ensRegistry,
        ensRegistryInterface.encodeFunctionData('owner', [node]),
        'subname owner',
      ),
      call(
        provider,
        contracts.nameWrapper,
        nameWrapperInterface.encodeFunctionData('ownerOf', [BigInt(node)]),
        'wrapped subname owner',
      ),
      call(
        provider,
        contracts.nameWrapper,
        nameWrapperInterface.encodeFunctionData('getData', [BigInt(parentNode)]),
        'wrapped parent data',
      ),
      secondLevel === undefined
        ? Promise.resolve(undefined)
        : call(
            provider,
            contracts.baseRegistrar,
            baseRegistrarInterface.encodeFunctionData('nameExpires', [BigInt(labelhash(secondLevel))]),
            'registrar expiry',
          ),
      args.tokenGate ? gateBalance(provider, args.tokenGate, args.minter) : Promise.resolve(null),
    ]);

  const wrapper = contracts.nameWrapper.toLowerCase();
  const parentOwner = decodeOne<string>(
    ensRegistryInterface,
    'owner',
    parentOwnerRaw,
    'parent owner',
  ).toLowerCase();
  const owner = decodeOne<string>(ensRegistryInterface, 'owner', ownerRaw, 'subname owner').toLowerCase();
  const wrappedOwner = decodeOne<string>(nameWrapperInterface, 'ownerOf', wrappedOwnerRaw, 'wrapped owner');
  const parentWrapped = parentOwner === wrapper;
  const subnameTaken = owner !== ZERO && (owner !== wrapper || wrappedOwner.toLowerCase() !== ZERO);

  let parentExpiry: bigint | null = null;
  let effectiveParentOwner: string | null = parentOwner === ZERO ? null : parentOwner;
  if (parentWrapped) {
    let data;
    try {
      data = nameWrapperInterface.decodeFunctionResult('getData', parentDataRaw);
    } catch (err) {
      throw toUpstreamError('wrapped parent data: undecodable answer', err);
    }
    const wrappedParentOwner = String(data[0]).toLowerCase();
    effectiveParentOwner = wrappedParentOwner === ZERO ? null : wrappedParentOwner;
    const expiry = BigInt(data[2] as bigint);
    if (expiry > 0n && expiry < MAX_UINT64) parentExpiry = expiry;
  }
  if (registrarExpiryRaw !== undefined) {
    const expiry = decodeOne<bigint>(
      baseRegistrarInterface,
      'nameExpires',
      registrarExpiryRaw,
      'registrar expiry',
    );
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

const approvalInterface = new Interface([
  'function isApprovedForAll(address owner, address operator) view returns (bool)',
]);

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
  const target = facts.parentWrapped ? contracts.nameWrapper : contracts.ensRegistry;
  const raw = await call(
    provider,
    target,
    approvalInterface.encodeFunctionData('isApprovedForAll', [facts.parentOwner, controller]),
    'controller approval',
  );
  return decodeOne<boolean>(approvalInterface, 'isApprovedForAll', raw, 'controller approval');
}
