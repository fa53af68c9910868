import { AbiCoder } from 'ethers';
import { namehash, type Hex } from '@nrp/ens';
import { resolverInterface } from './abis';
import { UpstreamError } from './errors';

const abi = AbiCoder.defaultAbiCoder();

/** Resolver calls for `universalResolve` (the name must be normalised). */
export function encodeTextCall(name: string, key: string): Hex {
  return resolverInterface.encodeFunctionData('text', [namehash(name), key]) as Hex;
}

/** `addr(bytes32,uint256)` (ENSIP-9/11); coin type 60 is ETH. */
export function encodeAddrCall(name: string, coinType: number | bigint = 60): Hex {
  return resolverInterface.encodeFunctionData('addr(bytes32,uint256)', [namehash(name), coinType]) as Hex;
}

export function encodeContenthashCall(name: string): Hex {
  return resolverInterface.encodeFunctionData('contenthash', [namehash(name)]) as Hex;
}

function decodeOne(type: 'string' | 'bytes', value: Hex | null): string | null {
  if (value === null) return null;
  try {
    const [decoded] = abi.decode([type], value) as unknown as [string];
    return decoded === '' || decoded === '0x' ? null : decoded;
  } catch (err) {
    throw new UpstreamError(`resolver answered an undecodable ${type}`, {
      upstreamCode: 'BAD_DATA',
      upstreamMessage: value.slice(0, 200),
      cause: err,
    });
  }
}

/** A `text` result: the value, or null when unset. */
export function decodeTextResult(value: Hex | null): string | null {
  return decodeOne('string', value);
}

/** An `addr(bytes32,uint256)` result: the address bytes (0x-hex, decode per coin type), or null when unset. */
export function decodeAddrResult(value: Hex | null): Hex | null {
  return decodeOne('bytes', value) as Hex | null;
}

/** A `contenthash` result: the contenthash bytes (0x-hex), or null when unset. */
export function decodeContenthashResult(value: Hex | null): Hex | null {
  return decodeOne('bytes', value) as Hex | null;
}
