import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import sharp from 'sharp';
import { woffToSfnt, WoffError } from '../src/tokens/fonts';
import { looksLikeSvg, sanitizeSvg } from '../src/images/validation';
import { blobKeyTime, newBlobKey } from '../src/uploads/blobs';
import { recordPointsAt, stableImageUrl } from '../src/uploads/stable-url';
import { imageBudget } from '../src/images/work';
import { fontSizeFor, NameRenderer, shortenName } from '../src/tokens/render';
import { SvgPurifier } from '../src/images/svg-purifier';
import { sniffType } from '../src/images/sniff';
import { characterSet, decodeFuses, wrapperState } from '../src/tokens/token-metadata';

describe('sniffType', () => {
  it.each([
    [[0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0], 'png'],
    [[0xff, 0xd8, 0xff, 0xe0], 'jpeg'],
    [[...Buffer.from('GIF89a')], 'gif'],
    [[...Buffer.from('RIFF'), 0, 0, 0, 0, ...Buffer.from('WEBPVP8 ')], 'webp'],
  ])('recognises %#', (bytes, format) => {
    expect(sniffType(Buffer.from(bytes))).toMatchObject({ kind: 'raster', format });
  });

  it('names other types and treats text as text', () => {
    expect(sniffType(Buffer.from('%PDF-1.4'))).toEqual({ kind: 'other', mime: 'application/pdf' });
    expect(sniffType(Buffer.from('<html></html>'))).toEqual({ kind: 'text' });
    expect(sniffType(Buffer.from([0, 1, 2, 3]))).toEqual({ kind: 'other', mime: 'application/octet-stream' });
  });
});

describe('SVG', () => {
  it('recognises SVG documents behind declarations, comments and doctypes, and nothing else', () => {
    expect(looksLikeSvg(Buffer.from('<?xml version="1.0"?>\n<!-- x --><!DOCTYPE svg><svg xmlns="x"/>'))).toBe(
      true,
    );
    expect(looksLikeSvg(Buffer.from('\uFEFF<svg>'))).toBe(true);
    expect(looksLikeSvg(Buffer.from('<html><svg></svg></html>'))).toBe(false);
    expect(looksLikeSvg(Buffer.from('<svgx>'))).toBe(false);
  });

  it('keeps drawing and internal references, drops active content and external references', () => {
    const clean = sanitizeSvg(
      new SvgPurifier(),
      '<svg xmlns="http://www.w3.org/2000/svg" onload="x()"><defs><linearGradient id="g"/></defs>' +
        '<rect fill="url(#g)" width="1" height="1"/><rect fill="url(https://x.example/a)"/>' +
        '<image href="data:image/svg+xml;base64,PHN2Zz48L3N2Zz4="/><style>@import url(https://x.example)</style></svg>',
    );
    expect(clean).toContain('fill="url(#g)"');
    expect(clean).toContain('xmlns="http://www.w3.org/2000/svg"');
    for (const bad of ['onload', 'x.example', 'data:', '<style']) expect(clean).not.toContain(bad);
  });

  it('refuses a document with no svg root', () => {
    expect(() => sanitizeSvg(new SvgPurifier(), '<script>alert(1)</script>')).toThrow(/no <svg> root/);
  });
});

describe('stable URLs and keys', () => {
  it('builds the stable URL and matches record values with or without percent-encoding', () => {
    const url = stableImageUrl('https://m.example', 'sepolia', '🙂.eth', 'avatar');
    expect(url).toBe('https://m.example/profile/sepolia/%F0%9F%99%82.eth/avatar');
    expect(recordPointsAt(url, url)).toBe(true);
    expect(recordPointsAt('https://m.example/profile/sepolia/🙂.eth/avatar', url)).toBe(true);
    expect(recordPointsAt(` ${url} `, url)).toBe(true);
    expect(recordPointsAt('https://m.example/profile/sepolia/other.eth/avatar', url)).toBe(false);
    expect(recordPointsAt(null, url)).toBe(false);
    expect(recordPointsAt('%E0%A4%A', url)).toBe(false);
  });

  it('encodes the write time in blob keys', () => {
    const at = new Date('2026-01-02T03:04:05.678Z');
    const key = newBlobKey('mainnet', at);
    expect(key).toMatch(/^img\/mainnet\/\d{13}-[0-9a-f-]{36}$/);
    expect(blobKeyTime(key)).toBe(at.getTime());
    expect(blobKeyTime('img/other')).toBeUndefined();
    expect(newBlobKey('mainnet', at)).not.toBe(key);
  });
});

describe('metadata helpers', () => {
  it('classifies character sets like the ENS metadata service', () => {
    expect(characterSet('123')).toBe('digit');
    expect(characterSet('abc')).toBe('letter');
    expect(characterSet('abc123')).toBe('alphanumeric');
    expect(characterSet('日本')).toBe('alphanumeric');
    expect(characterSet('🙂🚀')).toBe('emoji');
    expect(characterSet('👨‍👩‍👧')).toBe('emoji');
    expect(characterSet('a-b')).toBe('mixed');
    expect(characterSet('a🙂')).toBe('mixed');
  });

  it('decodes fuses and wrapper states', () => {
    expect(wrapperState(0)).toBe('Wrapped');
    expect(wrapperState(0x10000)).toBe('Emancipated');
    expect(wrapperState(0x10001)).toBe('Locked');
    const fuses = decodeFuses(0x10000 | 0x20000 | 4);
    expect(fuses.parent).toEqual({ PARENT_CANNOT_CONTROL: true, IS_DOT_ETH: true, CAN_EXTEND_EXPIRY: false });
    expect(fuses.child).toMatchObject({
      CANNOT_TRANSFER: true,
      CANNOT_UNWRAP: false,
      CAN_DO_EVERYTHING: false,
    });
  });
});

describe('rendering', () => {
  it('shortens long names in the middle without splitting emoji', () => {
    expect(shortenName('short.eth')).toBe('short.eth');
    const long = shortenName('abcdefghijklmnopqrstuvwxyz0123456789.eth');
    expect([...long]).toHaveLength(24);
    expect(long).toMatch(/^abcdefghijkl….+\.eth$/);
    const emoji = shortenName(`${'👨‍👩‍👧'.repeat(30)}.eth`);
    expect(emoji).toContain('…');
    expect(emoji.replace(/👨‍👩‍👧/g, '').replace('…', '')).toBe('.eth');
    expect(fontSizeFor('a.eth')).toBe(32);
    expect(fontSizeFor('a'.repeat(24))).toBeLessThan(fontSizeFor('a'.repeat(10)));
  });

  it('draws emoji glyphs (the bundled Noto Emoji font), not blanks', async () => {
    const pixels = async (name: string) =>
      (
        await sharp(await new NameRenderer().render(name, imageBudget(1e6, 5000)))
          .raw()
          .toBuffer()
      ).toString('base64');
    const withEmoji = await pixels('🙂.eth');
    expect(withEmoji).not.toBe(await pixels('.eth'));
    expect(withEmoji).not.toBe(await pixels('🚀.eth'));
  });
});

describe('woffToSfnt', () => {
  it('turns a WOFF font from npm into a font with the same tables', () => {
    const dir = join(dirname(require.resolve('@fontsource/dejavu-sans/package.json')), 'files');
    const file = readdirSync(dir).find((f) => f.endsWith('-400-normal.woff'));
    if (!file) throw new Error('no woff file');
    const woff = readFileSync(join(dir, file));
    const sfnt = woffToSfnt(woff);
    expect(sfnt.readUInt32BE(0)).toBe(woff.readUInt32BE(4));
    expect(sfnt.readUInt16BE(4)).toBe(woff.readUInt16BE(12));
    expect(sfnt.length).toBe(woff.readUInt32BE(16));
  });

  it('refuses what is not WOFF', () => {
    expect(() => woffToSfnt(Buffer.from('not a font at all, long enough for the header check.....'))).toThrow(
      WoffError,
    );
  });
});
