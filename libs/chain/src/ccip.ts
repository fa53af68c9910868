import { keccak_256 } from '@noble/hashes/sha3';
import { getBytes } from 'ethers';
import { ecdsaSign } from 'secp256k1';
import { dnsDecode, type Hex } from '@nrp/ens';
import { resolverInterface } from './abis';

export class CcipRequestError extends Error {
  override name = 'CcipRequestError';
}

const WORD = 32;

function bytesOf(hex: string, what: string): Buffer {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(hex)) throw new TypeError(`${what} is not 0x-prefixed hex bytes`);
  return Buffer.from(hex.slice(2), 'hex');
}

/**
 * The digest ENS's OffchainResolver (SignatureVerifier.makeSignatureHash) verifies:
 * keccak256(abi.encodePacked(hex"1900", target, uint64 expires, keccak256(request), keccak256(result))), packed by
 * hand: ethers' generic packer cost more than the hashing on a gateway's cold lookup.
 */
export function offchainResolverSignatureHash(args: {
  sender: string;
  expires: bigint | number;
  request: string;
  result: string;
}): Hex {
  const digest = signatureDigest(
    bytesOf(args.sender, 'sender'),
    args.expires,
    bytesOf(args.request, 'request'),
    bytesOf(args.result, 'result'),
  );
  return `0x${digest.toString('hex')}`;
}

function signatureDigest(sender: Buffer, expires: bigint | number, request: Buffer, result: Buffer): Buffer {
  if (sender.length !== 20) throw new TypeError('sender is not a 20-byte address');
  const packed = Buffer.alloc(2 + 20 + 8 + WORD + WORD);
  packed[0] = 0x19;
  sender.copy(packed, 2);
  packed.writeBigUInt64BE(BigInt(expires), 22);
  packed.set(keccak_256(request), 30);
  packed.set(keccak_256(result), 30 + WORD);
  return Buffer.from(keccak_256(packed));
}

/** `bytes` as the tail of an ABI encoding: its length, then the bytes padded to whole words. */
function abiBytesTail(data: Buffer): Buffer {
  const tail = Buffer.alloc(WORD + Math.ceil(data.length / WORD) * WORD);
  tail.writeUInt32BE(data.length, WORD - 4);
  data.copy(tail, WORD);
  return tail;
}

/**
 * The 65-byte signature r ‖ s ‖ v (27 or 28) of a 32-byte digest: RFC 6979 deterministic with low s, so the same
 * bytes ethers' SigningKey makes, by libsecp256k1 (the `secp256k1` package's native addon; where no prebuilt addon
 * loads, its pure-JS fallback signs the same bytes): about 45 µs of CPU where its WebAssembly build took 120 and
 * ethers' noble 300, on a gateway's cold lookup, which is mostly this signature.
 */
function signDigest(digest: Buffer, key: Buffer): Buffer {
  const { signature, recid } = ecdsaSign(digest, key);
  const signed = Buffer.allocUnsafe(65);
  signed.set(signature);
  signed[64] = 27 + recid;
  return signed;
}

/**
 * Gateway answer for ENS's OffchainResolver: abi.encode(bytes result, uint64 expires, bytes sig), `sig` signing
 * the raw digest (no EIP-191 prefix). `sender` is the OffchainResolver contract address (the signature
 * target), `request` the callData the gateway received, `result` 0x hex or the bytes themselves (a gateway's own
 * answer, not encoded to hex and back), `expires` a unix timestamp in seconds.
 */
export function signOffchainResolverResponse(args: {
  signerKey: string;
  sender: string;
  request: string;
  result: string | Uint8Array;
  expires: bigint | number;
}): Hex {
  const resultBytes =
    typeof args.result === 'string'
      ? bytesOf(args.result, 'result')
      : Buffer.from(args.result.buffer, args.result.byteOffset, args.result.byteLength);
  const digest = signatureDigest(
    bytesOf(args.sender, 'sender'),
    args.expires,
    bytesOf(args.request, 'request'),
    resultBytes,
  );
  const signature = signDigest(digest, bytesOf(args.signerKey, 'key'));
  const result = abiBytesTail(resultBytes);
  const head = Buffer.alloc(3 * WORD);
  head.writeUInt32BE(3 * WORD, WORD - 4);
  head.writeBigUInt64BE(BigInt(args.expires), 2 * WORD - 8);
  head.writeUInt32BE(3 * WORD + result.length, 3 * WORD - 4);
  return `0x${Buffer.concat([head, result, abiBytesTail(signature)]).toString('hex')}`;
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
