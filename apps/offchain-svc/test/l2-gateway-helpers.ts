/** Requests to the L2 gateway and checks of its answers, shared by the L2 gateway tests. */
import { AbiCoder, Wallet, recoverAddress } from 'ethers';
import { offchainResolverSignatureHash, resolverInterface } from '@nrp/chain';
import { dnsEncode, namehash } from '@nrp/ens';

export const SIGNER = new Wallet('0x' + '6b'.repeat(32));
export const SENDER = '0x00000000000000000000000000000000000000aa';
export const BASE_COIN = 0x80000000 + 8453;

export const addrCall = (name: string) =>
  resolverInterface.encodeFunctionData('addr(bytes32)', [namehash(name)]);
export const coinCall = (name: string, coin: number) =>
  resolverInterface.encodeFunctionData('addr(bytes32,uint256)', [namehash(name), coin]);
export const textCall = (name: string, key: string) =>
  resolverInterface.encodeFunctionData('text', [namehash(name), key]);
export const contenthashCall = (name: string) =>
  resolverInterface.encodeFunctionData('contenthash', [namehash(name)]);
export const multicall = (calls: string[]) => resolverInterface.encodeFunctionData('multicall', [calls]);

/** `resolve(dnsEncode(name), inner)`: the callData an L2NameResolver's OffchainLookup carries. */
export const resolveCall = (name: string | Uint8Array, inner: string) =>
  resolverInterface.encodeFunctionData('resolve', [typeof name === 'string' ? dnsEncode(name) : name, inner]);

/**
 * The result inside a signed answer to `request` for `sender`, after checking that the gateway key signed exactly
 * this request and result for this sender and that it has not expired.
 */
export function verifiedResult(data: string, request: string, sender = SENDER): string {
  const [result, expires, signature] = AbiCoder.defaultAbiCoder().decode(
    ['bytes', 'uint64', 'bytes'],
    data,
  ) as unknown as [string, bigint, string];
  const digest = offchainResolverSignatureHash({ sender, expires, request, result });
  expect(recoverAddress(digest, signature)).toBe(SIGNER.address);
  expect(Number(expires)).toBeGreaterThan(Date.now() / 1000);
  return result;
}

/** The values of a multicall result, each decoded as the function of the same index. */
export function decodeMulticall(result: string, fns: string[]): unknown[] {
  const [items] = resolverInterface.decodeFunctionResult('multicall', result) as unknown as [string[]];
  return items.map((item, i) => resolverInterface.decodeFunctionResult(fns[i] ?? '', item)[0]);
}
