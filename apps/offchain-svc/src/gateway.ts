import { ZeroAddress, type Result } from 'ethers';
import type { OffchainSubname } from '@nrp/api';
import { resolverInterface } from '@nrp/chain';
import { encodeAddress, encodeContenthash, type Hex } from '@nrp/ens';

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
