import { keccak_256 } from '@noble/hashes/sha3';
import { InvalidTokenIdError } from './errors';
import { bytesToHex, hexDigitsToBytes, type Hex } from './hex';

const ENCODED_LABEL_RE = /^\[([0-9a-fA-F]{64})\]$/;
const ZERO32 = new Uint8Array(32);
const MAX_UINT256 = (1n << 256n) - 1n;
const encoder = new TextEncoder();

function labelhashBytes(label: string): Uint8Array {
  const encoded = ENCODED_LABEL_RE.exec(label);
  if (encoded?.[1]) return hexDigitsToBytes(encoded[1]);
  return keccak_256(encoder.encode(label));
}

/** If `label` is an encoded label '[<64 hex>]', returns its hash as 0x-hex. */
export function encodedLabelhash(label: string): Hex | undefined {
  const encoded = ENCODED_LABEL_RE.exec(label);
  return encoded?.[1] ? `0x${encoded[1].toLowerCase()}` : undefined;
}

/**
 * keccak256 of the label's UTF-8 bytes. An encoded label '[<64 hex>]' (as used for unknown labels)
 * stands for its own hash and is returned as is. Does not normalise.
 */
export function labelhash(label: string): Hex {
  return bytesToHex(labelhashBytes(label));
}

/** EIP-137 namehash; supports '[<64 hex>]' encoded labels. Does not normalise: pass a normalised name. */
export function namehash(name: string): Hex {
  let node: Uint8Array = ZERO32;
  if (name === '') return bytesToHex(node);
  const labels = name.split('.');
  for (let i = labels.length - 1; i >= 0; i--) {
    const buf = new Uint8Array(64);
    buf.set(node, 0);
    buf.set(labelhashBytes(labels[i] ?? ''), 32);
    node = keccak_256(buf);
  }
  return bytesToHex(node);
}

/** A namehash (bytes32 hex) as the uint256 decimal string NameWrapper and ERC-1155 use as token id. */
export function tokenIdFromNamehash(node: string): string {
  if (!/^0x[0-9a-fA-F]{64}$/.test(node))
    throw new InvalidTokenIdError(node, 'a namehash is 0x + 64 hex digits');
  return BigInt(node).toString(10);
}

/**
 * A token id (uint256 as decimal text, 0x-hex text or bigint) back to its bytes32 namehash.
 * Throws InvalidTokenIdError for anything that is not a uint256.
 */
export function namehashFromTokenId(tokenId: string | bigint): Hex {
  let value: bigint;
  if (typeof tokenId === 'bigint') {
    value = tokenId;
  } else if (/^[0-9]{1,78}$/.test(tokenId) || /^0x[0-9a-fA-F]{1,64}$/.test(tokenId)) {
    value = BigInt(tokenId);
  } else {
    throw new InvalidTokenIdError(tokenId, 'expected a decimal or 0x-hex unsigned integer');
  }
  if (value < 0n || value > MAX_UINT256)
    throw new InvalidTokenIdError(String(tokenId), 'out of uint256 range');
  return `0x${value.toString(16).padStart(64, '0')}`;
}
