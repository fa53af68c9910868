import { AbiCoder, SigningKey, getBytes, keccak256, solidityPackedKeccak256 } from 'ethers';
import { dnsDecode, type Hex } from '@nrp/ens';
import { resolverInterface } from './abis';

export class CcipRequestError extends Error {
  override name = 'CcipRequestError';
}

/**
 * The digest ENS's OffchainResolver (SignatureVerifier.makeSignatureHash) verifies:
 * keccak256(abi.encodePacked(hex"1900", target, uint64 expires, keccak256(request), keccak256(result))).
 */
export function offchainResolverSignatureHash(args: {
  sender: string;
  expires: bigint | number;
  request: string;
  result: string;
}): Hex {
  return solidityPackedKeccak256(
    ['bytes', 'address', 'uint64', 'bytes32', 'bytes32'],
    ['0x1900', args.sender, BigInt(args.expires), keccak256(args.request), keccak256(args.result)],
  ) as Hex;
}

/**
 * Gateway answer for ENS's OffchainResolver: abi.encode(bytes result, uint64 expires, bytes sig), `sig` signing
 * the raw digest (no EIP-191 prefix). `sender` is the OffchainResolver contract address (the signature
 * target), `request` the callData the gateway received, `expires` a unix timestamp in seconds.
 */
export function signOffchainResolverResponse(args: {
  signerKey: string;
  sender: string;
  request: string;
  result: string;
  expires: bigint | number;
}): Hex {
  const digest = offchainResolverSignatureHash(args);
  const signature = new SigningKey(args.signerKey).sign(digest).serialized;
  return AbiCoder.defaultAbiCoder().encode(
    ['bytes', 'uint64', 'bytes'],
    [args.result, BigInt(args.expires), signature],
  ) as Hex;
}

/** Decodes `resolve(bytes name, bytes data)` callData into the dotted name and the inner resolver call. */
export function decodeResolveCall(callData: string): { name: string; data: Hex } {
  let decoded;
  try {
    decoded = resolverInterface.decodeFunctionData('resolve', callData);
  } catch (err) {
    throw new CcipRequestError('callData is not resolve(bytes,bytes)', { cause: err });
  }
  const [dnsName, data] = decoded as unknown as [string, string];
  try {
    return { name: dnsDecode(getBytes(dnsName)), data: data as Hex };
  } catch (err) {
    throw new CcipRequestError('resolve(bytes,bytes) name is not a valid DNS-encoded name', { cause: err });
  }
}
