/** A 0x-prefixed hex string. */
export type Hex = `0x${string}`;

const HEX_RE = /^0x(?:[0-9a-fA-F]{2})*$/;

export function isHex(value: unknown): value is Hex {
  return typeof value === 'string' && HEX_RE.test(value);
}

// No Buffer: this library also runs in browsers (through the client's schemas).
const BYTE_HEX = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

export function bytesToHex(bytes: Uint8Array): Hex {
  let hex = '';
  for (const byte of bytes) hex += BYTE_HEX[byte] ?? '';
  return `0x${hex}`;
}

/** The bytes of an even number of hex digits without `0x`, already checked to be hex. */
export function hexDigitsToBytes(digits: string): Uint8Array {
  const bytes = new Uint8Array(digits.length >> 1);
  for (let i = 0; i < bytes.length; i++) bytes[i] = Number.parseInt(digits.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** Decodes an even-length 0x-hex string; returns undefined when it is not one. */
export function hexToBytes(hex: string): Uint8Array | undefined {
  if (!HEX_RE.test(hex)) return undefined;
  return hexDigitsToBytes(hex.slice(2));
}
