import { AbiCoder, ZeroAddress, getAddress, getBytes, type ErrorDescription, type Provider } from 'ethers';
import { dnsEncode, namehash, type Hex } from '@nrp/ens';
import {
  EXTENDED_RESOLVER_INTERFACE_ID,
  ensRegistryInterface,
  proofVerifierInterface,
  resolverInterface,
  universalResolverInterface,
} from './abis';
import { NoValue, callView, readView, type ViewCall } from './call-view';
import { UpstreamError, toUpstreamError } from './errors';
import { LOCAL_BATCH_GATEWAY_URL } from './networks';
import { readController } from './name-control';

function orNull(address: string): string | null {
  return address === ZeroAddress ? null : getAddress(address);
}

/** An address the registry or the NameWrapper holds; null for the zero address. */
async function readAddress(provider: Provider, call: ViewCall): Promise<string | null> {
  const [address] = await readView<[string]>(provider, call);
  return orNull(address);
}

/** Owner of `name` in the ENS registry, or null. `name` must be normalised. */
export function getRegistryOwner(provider: Provider, registry: string, name: string): Promise<string | null> {
  return readAddress(provider, {
    to: registry,
    abi: ensRegistryInterface,
    fn: 'owner',
    args: [namehash(name)],
    context: `registry owner of ${name}`,
  });
}

/**
 * The effective owner of `name`: the NameWrapper token owner when the registry owner is the NameWrapper,
 * else the registry owner; null when unowned (`readController`).
 */
export async function getOwner(
  provider: Provider,
  ens: { ensRegistry: string; nameWrapper: string },
  name: string,
): Promise<string | null> {
  return (await readController(provider, ens, name)).controller;
}

async function supportsInterface(provider: Provider, address: string, interfaceId: string): Promise<boolean> {
  const answer = await callView<[boolean]>(provider, {
    to: address,
    abi: resolverInterface,
    fn: 'supportsInterface',
    args: [interfaceId],
    context: `supportsInterface on ${address}`,
  });
  // A contract without ERC-165 reverts or answers nothing: it does not support the interface.
  return !(answer instanceof NoValue) && answer[0];
}

/**
 * ENSIP-10 resolver of `name`: the first resolver set on the name or its closest ancestor; one found on an
 * ancestor counts only if it supports IExtendedResolver (wildcard). Null when there is none.
 */
export async function getResolverAddress(
  provider: Provider,
  registry: string,
  name: string,
): Promise<string | null> {
  const labels = name === '' ? [] : name.split('.');
  for (let i = 0; i <= labels.length; i++) {
    const current = labels.slice(i).join('.');
    const resolver = await readAddress(provider, {
      to: registry,
      abi: ensRegistryInterface,
      fn: 'resolver',
      args: [namehash(current)],
      context: `registry resolver of ${current}`,
    });
    if (resolver === null) continue;
    if (i === 0) return resolver;
    return (await supportsInterface(provider, resolver, EXTENDED_RESOLVER_INTERFACE_ID)) ? resolver : null;
  }
  return null;
}

/**
 * The revert data of a universal resolver lookup, which says why it has no answer; an answer without revert data
 * (an empty revert, bytes that are not the function's result) is the upstream's failure.
 */
function lookupRevertData(answer: NoValue): string {
  const data = answer.revertData;
  if (data === undefined || data.length < 10) throw answer.toUpstreamError();
  return data;
}

function parseUrError(data: string): ErrorDescription | null {
  try {
    return universalResolverInterface.parseError(data);
  } catch {
    return null;
  }
}

/** What each refusal of a proving resolver's verifier means, in words (the client's error says which root). */
const PROOF_REFUSALS: Record<string, (args: readonly unknown[]) => string> = {
  CommitTooOld: ([latest, got, window]) =>
    `the proofs are against L2 root ${String(got)}, older than the verifier accepts (latest ${String(latest)}, window ${String(window)})`,
  CommitTooNew: ([latest, got]) =>
    `the proofs are against L2 root ${String(got)}, newer than the verifier accepts (latest ${String(latest)})`,
  OutputNotFound: () => 'the proofs name an L2 root the rollup has not posted',
  GameNotFound: () => 'the proofs name an L2 root the rollup has not posted',
  InvalidProof: () => 'a proof does not verify',
};

/** Message of a revert payload: a verifier's refusal in words, Error(string) reason, a known error, or the raw hex. */
function describeRevert(data: string): string {
  if (data === '0x') return 'empty revert';
  try {
    const refusal = proofVerifierInterface.parseError(data);
    const words = refusal && PROOF_REFUSALS[refusal.name];
    if (refusal && words) return `${refusal.name}: ${words(refusal.args)}`;
    const parsed = resolverInterface.parseError(data);
    if (parsed) return `${parsed.name}(${parsed.args.map(String).join(', ')})`;
  } catch {
    // not a known error
  }
  return data;
}

/**
 * `classifyRevert` for the revert of a whole lookup: there the universal resolver wraps the resolver's own reverts
 * in ResolverError, so a bare Error(string) is the batch gateway's failure of that lookup (timeout, refused URL,
 * unreachable gateway).
 */
function classifyLookupRevert(data: string): RevertFailure | null {
  const reason = errorStringReason(data);
  if (reason !== undefined) return { code: 'GatewayError', message: `gateway failed: ${reason}` };
  return classifyRevert(data);
}

/** An upstream failure read from revert data: the upstream's code and message. */
interface RevertFailure {
  code: string;
  message: string;
}

function errorStringReason(data: string): string | undefined {
  if (!data.toLowerCase().startsWith(ERROR_STRING_SELECTOR)) return undefined;
  try {
    const [reason] = AbiCoder.defaultAbiCoder().decode(['string'], '0x' + data.slice(10)) as unknown as [
      string,
    ];
    return reason;
  } catch {
    return undefined;
  }
}

const ERROR_STRING_SELECTOR = '0x08c379a0';

const NOT_SET_ERRORS = new Set(['UnsupportedResolverProfile', 'ResolverNotFound', 'ResolverNotContract']);

/**
 * Classifies revert data of a resolver call as seen through the universal resolver: null when it means "this
 * record is not there" (empty revert, a bare 4-byte selector, UnsupportedResolverProfile, no resolver,
 * ResolverError(0x), ResolverError wrapping UnsupportedResolverProfile), else the upstream failure: HttpError (a
 * CCIP-Read gateway's HTTP failure, possibly wrapped in ResolverError) or any other revert (ResolverError: bad
 * signature, …). See `classifyLookupRevert` for what a whole single lookup's revert can also mean.
 */
export function classifyRevert(data: string): RevertFailure | null {
  if (data === '0x' || data.length === 10) return null;
  let parsed: ErrorDescription | null = null;
  try {
    parsed = universalResolverInterface.parseError(data);
  } catch {
    parsed = null;
  }
  if (parsed && NOT_SET_ERRORS.has(parsed.name)) return null;
  if (parsed?.name === 'HttpError') {
    return {
      code: 'HttpError',
      message: `gateway HTTP ${String(parsed.args[0])}: ${String(parsed.args[1])}`,
    };
  }
  if (parsed?.name === 'ResolverError') {
    // ResolverError(0x): the resolver reverted without data, which is how a resolver without that record's
    // function answers (the universal resolver wraps it so for a single record; a multicall slot holds 0x).
    const inner = String(parsed.args[0]);
    if (inner === '0x') return null;
    const failure = inner.length === 10 ? undefined : classifyRevert(inner);
    if (failure === null || failure?.code === 'HttpError') return failure;
    return { code: 'ResolverError', message: `resolver reverted: ${describeRevert(inner)}` };
  }
  return { code: 'ResolverError', message: `resolver reverted: ${describeRevert(data)}` };
}

/**
 * One slot of a universal resolver `multicall` answer. The UniversalResolver puts either the ABI-encoded answer
 * (a whole number of 32-byte words) or the sub-call's raw revert data (4-byte selector + words; `0x` for an empty
 * revert; the call's own selector when the resolver answered nothing) in each slot. Returns the answer, null when
 * the record is absent (see `classifyRevert`), or the UpstreamError of that slot.
 */
export function classifyResolveSlot(data: string, context = 'resolver call'): Hex | null | UpstreamError {
  const size = (data.length - 2) / 2;
  if (size === 0) return null;
  if (size % 32 === 0) return data as Hex;
  const failure = classifyRevert(data);
  if (failure === null) return null;
  return new UpstreamError(`${context}: ${failure.message}`, {
    upstreamCode: failure.code,
    upstreamMessage: failure.message,
  });
}

export interface UniversalResolveResult {
  /** The resolver that answered, or null when the name has no (usable) resolver. */
  resolver: string | null;
  /** One entry per call: the ABI-encoded answer, or null (no resolver, unsupported profile, empty answer). */
  results: Array<Hex | null>;
}

/**
 * Resolves `calls` (ABI-encoded resolver calls, e.g. `text(node,key)`) for `name` in ONE eth_call through the
 * universal resolver: `resolveWithGateways(dnsEncode(name), multicall(calls), batchGateways)` (a single call is
 * passed as is), with ENSIP-10 wildcard and CCIP-Read (one gateway request for an ENSIP-22 resolver, else one
 * batch of per-record requests). No resolver, or a resolver without the profile of a call, is not an error
 * (null results). RPC and gateway failures throw UpstreamError, including the failure of ONE slot of a
 * multicall (e.g. HttpError from the batch gateway for an offchain sub-call): a partial answer would pass a
 * failed record off as unset. `name` must be normalised.
 */
export async function universalResolve(
  provider: Provider,
  universalResolver: string,
  name: string,
  calls: Hex[],
  batchGateways: readonly string[] = [LOCAL_BATCH_GATEWAY_URL],
): Promise<UniversalResolveResult> {
  const single = calls.length === 1 ? calls[0] : undefined;
  const data = single ?? resolverInterface.encodeFunctionData('multicall', [calls]);
  const context = `resolving ${name}`;
  const answer = await callView<[string, string]>(provider, {
    to: universalResolver,
    abi: universalResolverInterface,
    fn: 'resolveWithGateways',
    args: [dnsEncode(name), data, batchGateways],
    context,
    ccipRead: true,
  });
  if (answer instanceof NoValue) {
    const failure = classifyLookupRevert(lookupRevertData(answer));
    // No resolver, or it does not implement the call(s): no records, not a failure.
    if (failure === null) return { resolver: null, results: calls.map(() => null) };
    throw new UpstreamError(`${context}: ${failure.message}`, {
      upstreamCode: failure.code,
      upstreamMessage: failure.message,
      cause: answer.cause,
    });
  }
  const [result, resolverAddress] = answer;
  let resolver: string | null;
  let slots: string[];
  try {
    resolver = orNull(resolverAddress);
    if (single !== undefined) return { resolver, results: [result === '0x' ? null : (result as Hex)] };
    [slots] = resolverInterface.decodeFunctionResult('multicall', result) as unknown as [string[]];
    if (slots.length !== calls.length) {
      throw new Error(`multicall answered ${slots.length} results for ${calls.length} calls`);
    }
  } catch (err) {
    throw toUpstreamError(`${context}: undecodable answer`, err);
  }
  const results = slots.map((slot, i) => {
    const outcome = classifyResolveSlot(slot, `${context}: ${describeCall(calls[i])}`);
    if (outcome instanceof UpstreamError) throw outcome;
    return outcome;
  });
  return { resolver, results };
}

/** `text(…, "avatar")`, `addr(…, 60)`: which record a call reads, for error messages. */
function describeCall(call: Hex | undefined): string {
  if (call === undefined) return 'call';
  try {
    const parsed = resolverInterface.parseTransaction({ data: call });
    if (!parsed) return call.slice(0, 10);
    const args = parsed.args.slice(1).map((a) => (typeof a === 'string' ? JSON.stringify(a) : String(a)));
    return `${parsed.name}(${args.join(', ')})`;
  } catch {
    return call.slice(0, 10);
  }
}

export interface UniversalReverseResult {
  /** The verified primary name (forward-resolves back to the address), or null. */
  name: string | null;
  /** The forward resolver of the primary name, or null. */
  resolver: string | null;
  /** The resolver of `<addr>.addr.reverse`, or null. */
  reverseResolver: string | null;
  /** Set when a reverse record exists but its name does not resolve back to the address. */
  unverifiedName?: string;
}

/**
 * ENSIP-19 primary name of `address` for `coinType` (default 60) through the universal resolver's
 * `reverseWithGateways`, verified by forward resolution of the same coin type (CCIP-Read enabled). No reverse
 * record or a mismatching one: name null. Failures: UpstreamError.
 */
export async function universalReverse(
  provider: Provider,
  universalResolver: string,
  address: string,
  coinType = 60,
  batchGateways: readonly string[] = [LOCAL_BATCH_GATEWAY_URL],
): Promise<UniversalReverseResult> {
  const context = `reverse resolving ${address} (coin type ${coinType})`;
  const answer = await callView<[string, string, string]>(provider, {
    to: universalResolver,
    abi: universalResolverInterface,
    fn: 'reverseWithGateways',
    args: [getBytes(getAddress(address)), BigInt(coinType), batchGateways],
    context,
    ccipRead: true,
  });
  if (answer instanceof NoValue) {
    const reverted = lookupRevertData(answer);
    const parsed = parseUrError(reverted);
    // No reverse resolver, or a reverse record that is not a name (empty label, label over 255 bytes).
    if (
      parsed?.name === 'ResolverNotFound' ||
      parsed?.name === 'ResolverNotContract' ||
      parsed?.name === 'DNSEncodingFailed'
    ) {
      return { name: null, resolver: null, reverseResolver: null };
    }
    if (parsed?.name === 'ReverseAddressMismatch') {
      return { name: null, resolver: null, reverseResolver: null, unverifiedName: String(parsed.args[0]) };
    }
    const failure = classifyLookupRevert(reverted);
    // A reverse or forward resolver without the name/addr profile: no (verified) primary name.
    if (failure === null) return { name: null, resolver: null, reverseResolver: null };
    throw new UpstreamError(`${context}: ${failure.message}`, {
      upstreamCode: failure.code,
      upstreamMessage: failure.message,
      cause: answer.cause,
    });
  }
  const [primary, resolver, reverseResolver] = answer;
  return {
    name: primary === '' ? null : primary,
    resolver: orNull(resolver),
    reverseResolver: orNull(reverseResolver),
  };
}
