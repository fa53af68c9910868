import { InvalidDnsEncodingError } from './errors';
import { labelhash } from './hash';
import { bytesToHex, hexToBytes, type Hex } from './hex';

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8', { fatal: true });

/**
 * DNS wire format of a name (RFC 1035 §3.1, as ENSIP-10 `resolve(bytes name, ...)` expects):
 * each label as one length byte and its UTF-8 bytes, then a 0 byte. The root '' is 0x00.
 * A label longer than 255 bytes cannot be length-prefixed; it is replaced by its encoded labelhash
 * '[<64 hex>]' (66 bytes), the practice of viem and the ENS app, which the universal resolver
 * understands. Empty labels ('a..eth') are rejected. Does not normalise.
 */
export function dnsEncode(name: string): Hex {
  if (name === '') return '0x00';
  const parts: Uint8Array[] = [];
  let size = 1;
  for (const label of name.split('.')) {
    if (label === '') throw new InvalidDnsEncodingError(`empty label in ${JSON.stringify(name)}`);
    let bytes = encoder.encode(label);
    if (bytes.length > 255) bytes = encoder.encode(`[${labelhash(label).slice(2)}]`);
    const part = new Uint8Array(bytes.length + 1);
    part[0] = bytes.length;
    part.set(bytes, 1);
    parts.push(part);
    size += part.length;
  }
  const out = new Uint8Array(size);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return bytesToHex(out);
}

/**
 * Inverse of dnsEncode: 0x-hex or bytes to a dotted name. Strict: the 0 terminator must be the last
 * byte, labels must be valid UTF-8 and non-empty and contain no '.'. Encoded labels '[<hex>]' are
 * returned as they are. Throws InvalidDnsEncodingError.
 */
export function dnsDecode(encoded: Hex | Uint8Array): string {
  const bytes = typeof encoded === 'string' ? hexToBytes(encoded) : encoded;
  if (!bytes) throw new InvalidDnsEncodingError('not an even-length 0x-hex string');
  const labels: string[] = [];
  let offset = 0;
  for (;;) {
    const len = bytes[offset];
    if (len === undefined) throw new InvalidDnsEncodingError('missing 0 terminator');
    if (len === 0) break;
    const end = offset + 1 + len;
    if (end > bytes.length) throw new InvalidDnsEncodingError(`label at offset ${offset} overruns the input`);
    let label: string;
    try {
      label = decoder.decode(bytes.subarray(offset + 1, end));
    } catch {
      throw new InvalidDnsEncodingError(`label at offset ${offset} is not valid UTF-8`);
    }
    if (label.includes('.')) throw new InvalidDnsEncodingError(`label at offset ${offset} contains a dot`);
    labels.push(label);
    offset = end;
  }
  if (offset !== bytes.length - 1) throw new InvalidDnsEncodingError('trailing bytes after the 0 terminator');
  return labels.join('.');
}
