/** A 0x-prefixed hex string. */
export type Hex = `0x${string}`;

const HEX_RE = /^0x(?:[0-9a-fA-F]{2})*$/;

export function isHex(value: unknown): value is Hex {
  return typeof value === 'string' && HEX_RE.test(value);
}

export function bytesToHex(bytes: Uint8Array): Hex {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`;
}

/** Decodes an even-length 0x-hex string; returns undefined when it is not one. */
export function hexToBytes(hex: string): Uint8Array | undefined {
  if (!HEX_RE.test(hex)) return undefined;
  return new Uint8Array(Buffer.from(hex.slice(2), 'hex'));
}
