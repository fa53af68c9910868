/**
 * The type of a file from its first bytes (magic numbers), never from its name or declared type. Raster types
 * this service accepts are named exactly; a few common others are named for the error message.
 * The signatures are the ones from the formats' specifications; a sniffed raster is then decoded by sharp,
 * which is the real proof that it is an image.
 */
export type SniffedType =
  | { kind: 'raster'; format: 'png' | 'jpeg' | 'gif' | 'webp'; mime: string }
  | { kind: 'text' }
  | { kind: 'other'; mime: string };

const startsWith = (bytes: Buffer, signature: number[], offset = 0): boolean =>
  bytes.length >= offset + signature.length && signature.every((b, i) => bytes[offset + i] === b);
const ascii = (text: string): number[] => [...text].map((c) => c.charCodeAt(0));

export function sniffType(bytes: Buffer): SniffedType {
  if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) {
    return { kind: 'raster', format: 'png', mime: 'image/png' };
  }
  if (startsWith(bytes, [0xff, 0xd8, 0xff])) return { kind: 'raster', format: 'jpeg', mime: 'image/jpeg' };
  if (startsWith(bytes, ascii('GIF87a')) || startsWith(bytes, ascii('GIF89a'))) {
    return { kind: 'raster', format: 'gif', mime: 'image/gif' };
  }
  if (startsWith(bytes, ascii('RIFF')) && startsWith(bytes, ascii('WEBP'), 8)) {
    return { kind: 'raster', format: 'webp', mime: 'image/webp' };
  }
  if (startsWith(bytes, ascii('%PDF'))) return { kind: 'other', mime: 'application/pdf' };
  if (startsWith(bytes, [0x50, 0x4b, 0x03, 0x04])) return { kind: 'other', mime: 'application/zip' };
  if (startsWith(bytes, ascii('BM'))) return { kind: 'other', mime: 'image/bmp' };
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) {
    return { kind: 'other', mime: 'image/tiff' };
  }
  if (startsWith(bytes, ascii('ftyp'), 4)) return { kind: 'other', mime: 'image/heif or video/mp4' };
  // Text: no NUL byte in the first 4 KiB (an SVG is then recognised by its root element).
  if (!bytes.subarray(0, 4096).includes(0)) return { kind: 'text' };
  return { kind: 'other', mime: 'application/octet-stream' };
}
