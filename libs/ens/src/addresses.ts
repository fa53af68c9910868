import { getCoderByCoinType } from '@ensdomains/address-encoder';
import { keccak_256 } from '@noble/hashes/sha3';
import { isEvmCoinType, isValidCoinType } from './chains';
import { InvalidAddressError } from './errors';
import { bytesToHex, hexDigitsToBytes, hexToBytes, type Hex } from './hex';

/** SLIP-44 coin type of Aptos; @ensdomains/address-encoder v1 has no coder for it. */
const APTOS_COIN_TYPE = 637;

interface Codec {
  encode(text: string): Uint8Array;
  decode(bytes: Uint8Array): string;
}

const EVM_ADDRESS_RE = /^0x[0-9a-fA-F]{40}$/;
const encoder = new TextEncoder();

/** EIP-55: a hex digit is upper case when the matching nibble of keccak256(lowercase digits) is 8 or more. */
function checksumAddress(digits: string): string {
  const lower = digits.toLowerCase();
  const hash = keccak_256(encoder.encode(lower));
  let out = '0x';
  for (let i = 0; i < lower.length; i++) {
    const nibble = ((hash[i >> 1] ?? 0) >> (i % 2 === 0 ? 4 : 0)) & 0xf;
    out += nibble >= 8 ? (lower[i] ?? '').toUpperCase() : lower[i];
  }
  return out;
}

const evmCodec: Codec = {
  encode(text) {
    // All lowercase carries no checksum; any upper case digit makes it an EIP-55 checksum that must match.
    if (
      !EVM_ADDRESS_RE.test(text) ||
      (text !== text.toLowerCase() && checksumAddress(text.slice(2)) !== text)
    )
      throw new Error('expected a 0x-prefixed 20-byte hex address');
    return hexDigitsToBytes(text.slice(2));
  },
  decode(bytes) {
    if (bytes.length !== 20) throw new Error(`expected 20 bytes, got ${bytes.length}`);
    return checksumAddress(bytesToHex(bytes).slice(2));
  },
};

/** Aptos account addresses: 32 bytes, text 0x + up to 64 hex digits (short forms are zero-padded). */
const aptosCodec: Codec = {
  encode(text) {
    if (!/^0x[0-9a-fA-F]{1,64}$/.test(text)) throw new Error('expected 0x + 1 to 64 hex digits');
    return hexDigitsToBytes(text.slice(2).padStart(64, '0'));
  },
  decode(bytes) {
    if (bytes.length !== 32) throw new Error(`expected 32 bytes, got ${bytes.length}`);
    return bytesToHex(bytes).toLowerCase();
  },
};

function codecFor(coinType: number, input: string): Codec {
  if (!isValidCoinType(coinType)) throw new InvalidAddressError(coinType, input, 'not a valid coin type');
  if (isEvmCoinType(coinType)) return evmCodec;
  if (coinType === APTOS_COIN_TYPE) return aptosCodec;
  try {
    // address-encoder names are the other way round: its `decode` parses text, its `encode` prints bytes.
    const coder = getCoderByCoinType(coinType);
    return { encode: (text) => coder.decode(text), decode: (bytes) => coder.encode(bytes) };
  } catch (err) {
    throw new InvalidAddressError(coinType, input, `coin type ${coinType} is not supported`, { cause: err });
  }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** True when addresses of this coin type can be encoded and decoded. */
export function isSupportedCoinType(coinType: number): boolean {
  try {
    codecFor(coinType, '');
    return true;
  } catch {
    return false;
  }
}

/**
 * Address text in its native form → the bytes a resolver stores for `addr(node, coinType)`, as 0x-hex.
 * EVM coin types (60 and every ENSIP-11 type) take a 20-byte 0x address (EIP-55 checksum enforced when
 * mixed case). Throws InvalidAddressError (code INVALID_ADDRESS).
 */
export function encodeAddress(coinType: number, text: string): Hex {
  const codec = codecFor(coinType, text);
  const trimmed = text.trim();
  if (trimmed === '') throw new InvalidAddressError(coinType, text, 'empty address');
  let bytes: Uint8Array;
  try {
    bytes = codec.encode(trimmed);
  } catch (err) {
    throw new InvalidAddressError(coinType, text, message(err), { cause: err });
  }
  if (bytes.length === 0) throw new InvalidAddressError(coinType, text, 'encodes to no bytes');
  return bytesToHex(bytes);
}

/**
 * Resolver bytes (0x-hex or bytes) → the native text form (EVM: EIP-55 checksummed).
 * Empty bytes — an unset record — decode to ''. Throws InvalidAddressError.
 */
export function decodeAddress(coinType: number, encoded: Hex | Uint8Array): string {
  const input = typeof encoded === 'string' ? encoded : bytesToHex(encoded);
  const codec = codecFor(coinType, input);
  const bytes = typeof encoded === 'string' ? hexToBytes(encoded) : encoded;
  if (!bytes) throw new InvalidAddressError(coinType, input, 'not an even-length 0x-hex string');
  if (bytes.length === 0) return '';
  try {
    return codec.decode(bytes);
  } catch (err) {
    throw new InvalidAddressError(coinType, input, message(err), { cause: err });
  }
}

/** True when `text` is a valid address for `coinType` (and the coin type is supported). */
export function isValidAddress(coinType: number, text: string): boolean {
  try {
    encodeAddress(coinType, text);
    return true;
  } catch {
    return false;
  }
}
