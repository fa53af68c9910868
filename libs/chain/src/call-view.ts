import { isCallException, type Interface, type Provider } from 'ethers';
import { toUpstreamError, type UpstreamError } from './errors';
import { ChainProvider } from './provider';

/** One read of a contract: `fn(...args)` of `abi` on `to`. */
export interface ViewCall {
  to: string;
  abi: Interface;
  fn: string;
  args?: readonly unknown[];
  /** What is read, the start of an UpstreamError's message: `registry owner of alice.eth`. */
  context: string;
  /** Follow EIP-3668 OffchainLookup reverts (CCIP-Read); without it an OffchainLookup is a revert like any other. */
  ccipRead?: boolean;
}

/**
 * A contract's answer that holds no value of the function: a revert (`revertData`, `0x` when it carries none),
 * or bytes that do not decode as the function's result (`revertData` undefined; e.g. `0x` from an address without
 * code). What it means is the caller's to say: "no token" for an NFT, "not supported" for ERC-165, an upstream
 * failure for a contract that always answers (`toUpstreamError()`).
 */
export class NoValue {
  constructor(
    readonly revertData: string | undefined,
    /** The ethers error (CALL_EXCEPTION or BAD_DATA). */
    readonly cause: unknown,
    private readonly call: ViewCall,
  ) {}

  /** For a contract that must answer (the ENS registry, the NameWrapper): the answer is the upstream's failure. */
  toUpstreamError(): UpstreamError {
    const { context, to } = this.call;
    return this.revertData === undefined
      ? toUpstreamError(`${context}: undecodable answer from ${to}`, this.cause)
      : toUpstreamError(context, this.cause);
  }
}

/**
 * Every contract read of the services: encodes `call.fn(...call.args)`, sends one `eth_call` (never shared with an
 * identical call in flight, so a readiness probe asks the node each time), decodes the answer.
 * Returns the decoded values (typed by the caller as `T`), or NoValue when the contract answered without a value
 * (reverted, or answered bytes that are not the function's result). A failing RPC node or CCIP-Read gateway
 * (unreachable, timed out, answered an error that is not a revert) throws UpstreamError.
 */
export async function callView<T extends readonly unknown[]>(
  provider: Provider,
  call: ViewCall,
): Promise<T | NoValue> {
  const data = call.abi.encodeFunctionData(call.fn, call.args ?? []);
  let raw: string;
  try {
    raw = await provider.call({ to: call.to, data, enableCcipRead: call.ccipRead === true });
  } catch (err) {
    if (isCallException(err)) {
      return new NoValue(typeof err.data === 'string' ? err.data : '0x', err, call);
    }
    throw toUpstreamError(call.context, err, rpcNodeOf(provider));
  }
  try {
    const result = call.abi.decodeFunctionResult(call.fn, raw);
    // ethers defers some decoding errors (a string that is not UTF-8, a length past the data) until the value is
    // read: reading every value here makes them a NoValue instead of an exception in the caller.
    result.toArray(true);
    return result as unknown as T;
  } catch (err) {
    return new NoValue(undefined, err, call);
  }
}

/**
 * callView of a contract that always answers (the ENS registry, the NameWrapper, our mint controller): an answer
 * without a value means the configured address is not that contract, an upstream failure (UpstreamError, code
 * CALL_EXCEPTION or BAD_DATA).
 */
export async function readView<T extends readonly unknown[]>(provider: Provider, call: ViewCall): Promise<T> {
  const answer = await callView<T>(provider, call);
  if (answer instanceof NoValue) throw answer.toUpstreamError();
  return answer;
}

/**
 * A deployless read: one `eth_call` without a recipient whose data is a contract's creation code followed by its
 * constructor arguments; the node runs the constructor and answers the bytes it returns. Those bytes, or undefined
 * when the creation reverted. A failing RPC node throws UpstreamError, as for callView.
 */
export async function callDeployless(
  provider: Provider,
  call: { data: string; context: string },
): Promise<string | undefined> {
  try {
    return await provider.call({ data: call.data });
  } catch (err) {
    if (isCallException(err)) return undefined;
    throw toUpstreamError(call.context, err, rpcNodeOf(provider));
  }
}

/** `RPC node for sepolia`: the dependency a failed call names when nothing answered. */
function rpcNodeOf(provider: Provider): string {
  return provider instanceof ChainProvider ? `RPC node for ${provider.config.name}` : 'RPC node';
}
