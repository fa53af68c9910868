import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { inflateSync } from 'node:zlib';

/** A WOFF 1.0 file that cannot be turned back into an SFNT font. */
export class WoffError extends Error {
  override name = 'WoffError';
}

const WOFF_HEADER = 44;
const WOFF_ENTRY = 20;

/**
 * WOFF 1.0 → SFNT (TrueType/OpenType) bytes: the same tables, inflated where compressed, behind a rebuilt table
 * directory (https://www.w3.org/TR/WOFF/). resvg loads SFNT only, while the npm font packages ship WOFF.
 */
export function woffToSfnt(woff: Buffer): Buffer {
  if (woff.length < WOFF_HEADER || woff.toString('latin1', 0, 4) !== 'wOFF') {
    throw new WoffError('not a WOFF 1.0 file');
  }
  const flavor = woff.readUInt32BE(4);
  const numTables = woff.readUInt16BE(12);
  const tables: Array<{ tag: Buffer; checksum: number; data: Buffer }> = [];
  for (let i = 0; i < numTables; i++) {
    const at = WOFF_HEADER + i * WOFF_ENTRY;
    if (at + WOFF_ENTRY > woff.length) throw new WoffError('truncated table directory');
    const tag = woff.subarray(at, at + 4);
    const offset = woff.readUInt32BE(at + 4);
    const compLength = woff.readUInt32BE(at + 8);
    const origLength = woff.readUInt32BE(at + 12);
    const checksum = woff.readUInt32BE(at + 16);
    if (offset + compLength > woff.length)
      throw new WoffError(`table ${tag.toString('latin1')} overruns the file`);
    const raw = woff.subarray(offset, offset + compLength);
    const data = compLength < origLength ? inflateSync(raw) : raw;
    if (data.length !== origLength)
      throw new WoffError(`table ${tag.toString('latin1')} has the wrong length`);
    tables.push({ tag, checksum, data });
  }
  let entrySelector = 0;
  while (2 ** (entrySelector + 1) <= numTables) entrySelector++;
  const searchRange = 2 ** entrySelector * 16;
  const headerLength = 12 + numTables * 16;
  const padded = (n: number) => (n + 3) & ~3;
  const total = tables.reduce((sum, t) => sum + padded(t.data.length), headerLength);
  const out = Buffer.alloc(total);
  out.writeUInt32BE(flavor, 0);
  out.writeUInt16BE(numTables, 4);
  out.writeUInt16BE(searchRange, 6);
  out.writeUInt16BE(entrySelector, 8);
  out.writeUInt16BE(numTables * 16 - searchRange, 10);
  let offset = headerLength;
  tables.forEach((table, i) => {
    const at = 12 + i * 16;
    table.tag.copy(out, at);
    out.writeUInt32BE(table.checksum, at + 4);
    out.writeUInt32BE(offset, at + 8);
    out.writeUInt32BE(table.data.length, at + 12);
    table.data.copy(out, offset);
    offset += padded(table.data.length);
  });
  return out;
}

/** The npm packages whose fonts the image template uses (regular weight only). */
const FONT_PACKAGES: Array<{ pkg: string; match: RegExp }> = [
  { pkg: '@fontsource/dejavu-sans', match: /-400-normal\.woff$/ },
  { pkg: '@fontsource/noto-emoji', match: /-400-normal\.woff$/ },
];

/**
 * Font files for resvg, converted once from the WOFF files of `@fontsource/dejavu-sans` (text) and
 * `@fontsource/noto-emoji` (emoji, monochrome outlines) into a cache directory. Packages that are not installed
 * are skipped; with none, rendering falls back to the system's fonts.
 */
export function bundledFontFiles(cacheDir = join(tmpdir(), 'nrp-metadata-fonts')): string[] {
  const files: string[] = [];
  for (const { pkg, match } of FONT_PACKAGES) {
    let dir: string;
    try {
      dir = join(dirname(require.resolve(`${pkg}/package.json`)), 'files');
    } catch {
      continue;
    }
    for (const file of readdirSync(dir).filter((f) => match.test(f))) {
      try {
        const woff = readFileSync(join(dir, file));
        const hash = createHash('sha256').update(woff).digest('hex').slice(0, 12);
        const target = join(cacheDir, `${file.replace(/\.woff$/, '')}-${hash}.ttf`);
        if (!existsSync(target)) {
          mkdirSync(cacheDir, { recursive: true });
          const temp = `${target}.${process.pid}.tmp`;
          writeFileSync(temp, woffToSfnt(woff));
          // rename is atomic: concurrent processes never read a half-written font
          renameSync(temp, target);
        }
        files.push(target);
      } catch {
        // An unwritable cache directory or a broken font file: render with what is left (system fonts last).
      }
    }
  }
  return files;
}
