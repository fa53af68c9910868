import { ZeroAddress, type Result } from 'ethers';
import type { OffchainSubname } from '@nrp/api';
import {
  CcipRequestError,
  decodeResolveCall,
  resolverInterface,
  signOffchainResolverResponse,
} from '@nrp/chain';
import { encodeAddress, encodeContenthash, normalizeName, type Hex } from '@nrp/ens';
import { ProblemError, type ProblemDef } from '@nrp/validation';
import type { OffchainDb } from './data/database';
import { findRecordsByName } from './data/subnames';
import { offchainProblems } from './problems';

export type GatewayRecords = Pick<OffchainSubname, 'texts' | 'addresses' | 'contenthash'>;

/** A resolver call the gateway does not answer (unknown selector, nested multicall, undecodable arguments). */
export class UnsupportedResolverCallError extends Error {
  override name = 'UnsupportedResolverCallError';
}

const EMPTY: GatewayRecords = { texts: {}, addresses: {}, contenthash: null };
const ETH_COIN = '60';

function addressBytes(records: GatewayRecords, coinType: bigint): Hex {
  const value = coinType <= 0xffffffffn ? records.addresses[coinType.toString()] : undefined;
  if (!value) return '0x';
  // Stored values were validated on write; a value that no longer encodes is answered as unset.
  try {
    return encodeAddress(Number(coinType), value);
  } catch {
    return '0x';
  }
}

function contenthashBytes(records: GatewayRecords): Hex {
  if (!records.contenthash) return '0x';
  try {
    return encodeContenthash(records.contenthash);
  } catch {
    return '0x';
  }
}

function answerOne(data: string, records: GatewayRecords, depth: number): string {
  let call: { signature: string; args: Result } | null;
  try {
    call = resolverInterface.parseTransaction({ data });
  } catch (err) {
    throw new UnsupportedResolverCallError(`cannot decode resolver call ${data.slice(0, 10)}`, {
      cause: err,
    });
  }
  if (!call) throw new UnsupportedResolverCallError(`unknown resolver function ${data.slice(0, 10)}`);
  const fragment = resolverInterface.getFunction(call.signature);
  if (!fragment) throw new UnsupportedResolverCallError(`unknown resolver function ${call.signature}`);
  const encode = (values: unknown[]) => resolverInterface.encodeFunctionResult(fragment, values);
  switch (call.signature) {
    case 'addr(bytes32)': {
      const value = records.addresses[ETH_COIN];
      return encode([value ?? ZeroAddress]);
    }
    case 'addr(bytes32,uint256)':
      return encode([addressBytes(records, BigInt(String(call.args[1])))]);
    case 'text(bytes32,string)':
      return encode([records.texts[String(call.args[1])] ?? '']);
    case 'contenthash(bytes32)':
      return encode([contenthashBytes(records)]);
    case 'multicall(bytes[])': {
      if (depth > 0) throw new UnsupportedResolverCallError('multicall cannot be nested');
      const calls = call.args[0] as unknown as string[];
      return encode([calls.map((inner) => answerOne(inner, records, depth + 1))]);
    }
    default:
      throw new UnsupportedResolverCallError(`the gateway does not answer ${call.signature}`);
  }
}

/**
 * The ABI-encoded result of the resolver call `data` (addr, addr with coin type, text, contenthash, or a
 * multicall of those) for a name with `records`; an unknown name (undefined) answers every record as unset.
 * Throws UnsupportedResolverCallError.
 */
export function answerResolverCall(data: string, records: GatewayRecords | undefined): Hex {
  return answerOne(data, records ?? EMPTY, 0) as Hex;
}

export interface GatewaySigning {
  /** Unset: the gateway answers 503 GATEWAY_NOT_CONFIGURED. */
  signerKey?: string;
  ttlSeconds: number;
  /** Clock in ms. */
  now: () => number;
}

/** EIP-3668 clients read `message` from an error body; problem+json carries it next to `detail`. */
function gatewayProblem(def: ProblemDef, detail: string, cause?: unknown): ProblemError {
  return new ProblemError(def, detail, { extensions: { message: detail }, cause });
}

/**
 * The signed EIP-3668 answer to `callData` (`resolve(bytes name, bytes data)`) for `sender`: the resolver call
 * answered from the stored records of the name (every record unset for a name the service does not hold),
 * `abi.encode(result, expires, signature)` with `expires` = now + ttlSeconds.
 */
export async function answerCcipRequest(
  db: OffchainDb,
  signing: GatewaySigning,
  sender: string,
  callData: string,
): Promise<{ data: string }> {
  if (!signing.signerKey) {
    throw gatewayProblem(offchainProblems.GATEWAY_NOT_CONFIGURED, 'This gateway has no signing key.');
  }
  let call: { name: string; data: string };
  try {
    call = decodeResolveCall(callData);
  } catch (err) {
    const detail = err instanceof CcipRequestError ? err.message : 'callData is not resolve(bytes,bytes)';
    throw gatewayProblem(offchainProblems.INVALID_CCIP_REQUEST, detail, err);
  }
  let name: string | undefined;
  try {
    name = normalizeName(call.name);
  } catch {
    name = undefined; // not a name this service can hold: every record is unset
  }
  const records = name === undefined ? undefined : await findRecordsByName(db, name);
  let result: string;
  try {
    result = answerResolverCall(call.data, records);
  } catch (err) {
    if (!(err instanceof UnsupportedResolverCallError)) throw err;
    throw gatewayProblem(offchainProblems.UNSUPPORTED_RESOLVER_CALL, err.message, err);
  }
  const expires = Math.floor(signing.now() / 1000) + signing.ttlSeconds;
  const data = signOffchainResolverResponse({
    signerKey: signing.signerKey,
    sender,
    request: callData,
    result,
    expires,
  });
  return { data };
}
