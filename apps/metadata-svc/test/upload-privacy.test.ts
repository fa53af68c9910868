/**
 * Uploads are re-encoded: nothing of the file but its pixels is published. A phone-like JPEG (GPS EXIF, XMP, ICC
 * profile), a PNG with a tEXt chunk, a GIF with a comment and an SVG with XMP metadata are uploaded, and the served
 * bytes are searched for every piece of it; animated GIF and WebP keep their frames.
 */
import { crc32 } from 'node:zlib';
import request from 'supertest';
import sharp from 'sharp';
import type { Wallet } from 'ethers';
import type { EnsChain } from '@nrp/testkit';
import { stableImageUrl } from '../src/uploads/stable-url';
import {
  signedFields,
  startEnsChain,
  startMetadataService,
  upload,
  walletOf,
  BASE_URL,
  type MetadataService,
} from './support';

let chain: EnsChain;
let h: MetadataService;
let alice: Wallet;
let app: MetadataService['app'];

const NAME = 'photo.eth';
const path = `/profile/sepolia/${NAME}/avatar`;

beforeAll(async () => {
  chain = await startEnsChain({ chainId: 11155111 });
  h = await startMetadataService(chain);
  app = h.app;
  alice = walletOf(chain, 1);
  await chain.ens.registerEthName('photo', alice.address);
  await chain.ens.setText(NAME, 'avatar', stableImageUrl(BASE_URL, 'sepolia', NAME, 'avatar'));
}, 120_000);

afterAll(async () => {
  await h?.close();
  await chain?.stop();
});

/** Uploads `file` as the (confirmed) avatar of photo.eth and answers the bytes served at its stable URL. */
async function uploadAndServe(file: Buffer): Promise<Buffer> {
  const fields = await signedFields(app, alice, { scope: 'avatar' });
  await upload(app, path, 'avatar', file, fields).expect(200);
  const served = await request(app).get(path).expect(200);
  return served.body as Buffer;
}

const solid = (color: string, width = 48, height = 32) =>
  sharp({ create: { width, height, channels: 3, background: color } });

/** A PNG chunk: length, type, data, CRC-32 of type and data. */
function pngChunk(type: string, data: Buffer): Buffer {
  const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(body));
  return Buffer.concat([length, body, crc]);
}

/** `png` with a tEXt chunk inserted right after IHDR (8-byte signature + 25-byte IHDR chunk). */
function withTextChunk(png: Buffer, keyword: string, text: string): Buffer {
  const chunk = pngChunk('tEXt', Buffer.from(`${keyword}\0${text}`, 'latin1'));
  return Buffer.concat([png.subarray(0, 33), chunk, png.subarray(33)]);
}

/** `gif` with a comment extension (0x21 0xFE, one sub-block) after the header, screen descriptor and colour table. */
function withGifComment(gif: Buffer, comment: string): Buffer {
  const packed = gif[10] ?? 0;
  const tableBytes = packed & 0x80 ? 3 * 2 ** ((packed & 0x07) + 1) : 0;
  const at = 13 + tableBytes;
  const text = Buffer.from(comment, 'latin1');
  const extension = Buffer.concat([Buffer.from([0x21, 0xfe, text.length]), text, Buffer.from([0x00])]);
  return Buffer.concat([gif.subarray(0, at), extension, gif.subarray(at)]);
}

async function metadataOf(bytes: Buffer) {
  const { exif, xmp, icc, iptc, comments, format, pages } = await sharp(bytes).metadata();
  return { exif, xmp, icc, iptc, comments, format, pages: pages ?? 1 };
}

const animationFrames = () =>
  Promise.all(['#ff0000', '#00ff00', '#0000ff'].map((c) => solid(c, 16, 16).png().toBuffer()));

describe('uploads publish pixels, never the metadata of the file', () => {
  it('a JPEG with GPS EXIF, XMP and an ICC profile is served without any of them', async () => {
    const photo = await solid('#aa3311')
      .jpeg()
      .withExif({
        IFD0: { Make: 'NRP-SECRET-CAMERA', ImageDescription: 'NRP-SECRET-HOME' },
        IFD3: {
          GPSLatitudeRef: 'N',
          GPSLatitude: '47/1 22/1 3697/100',
          GPSLongitudeRef: 'E',
          GPSLongitude: '8/1 32/1 3012/100',
        },
      })
      .withXmp('<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF>NRP-SECRET-XMP</rdf:RDF></x:xmpmeta>')
      .withIccProfile('p3')
      .toBuffer();
    // The test file really carries what must disappear.
    const sent = await metadataOf(photo);
    expect(sent.exif?.includes(Buffer.from([0x25, 0x88]))).toBe(true); // GPS IFD pointer (tag 0x8825, LE)
    expect(sent.xmp && sent.icc).toBeTruthy();
    for (const marker of [
      'Exif\0\0',
      'NRP-SECRET-CAMERA',
      'NRP-SECRET-HOME',
      'NRP-SECRET-XMP',
      'ICC_PROFILE',
    ]) {
      expect(photo.includes(marker)).toBe(true);
    }

    const served = await uploadAndServe(photo);
    for (const marker of ['Exif', 'NRP-SECRET', 'xmpmeta', 'ICC_PROFILE', 'http://ns.adobe.com']) {
      expect(served.includes(marker)).toBe(false);
    }
    expect(await metadataOf(served)).toMatchObject({
      exif: undefined,
      xmp: undefined,
      icc: undefined,
      iptc: undefined,
      format: 'jpeg',
    });
    const stats = await sharp(served).stats();
    // Still the same picture (JPEG is lossy: close to the colour, not equal).
    expect(stats.channels[0]?.mean).toBeGreaterThan(150);
  });

  it('a PNG with a tEXt chunk is served without it, pixel for pixel', async () => {
    const plain = await solid('#3366ff').png().toBuffer();
    const tagged = withTextChunk(plain, 'Comment', 'NRP-SECRET-PNG-TEXT 47.3769N 8.5417E');
    expect((await metadataOf(tagged)).comments).toEqual([
      { keyword: 'Comment', text: 'NRP-SECRET-PNG-TEXT 47.3769N 8.5417E' },
    ]);
    const served = await uploadAndServe(tagged);
    expect(served.includes('tEXt')).toBe(false);
    expect(served.includes('NRP-SECRET')).toBe(false);
    expect((await metadataOf(served)).comments).toBeUndefined();
    const [before, after] = await Promise.all([plain, served].map((b) => sharp(b).raw().toBuffer()));
    expect(Buffer.compare(before as Buffer, after as Buffer)).toBe(0);
  });

  it('an animated GIF stays animated (3 frames) and loses its comment', async () => {
    const gif = await sharp(await animationFrames(), { join: { animated: true } })
      .gif({ loop: 0, delay: [100, 200, 300] })
      .toBuffer();
    const commented = withGifComment(gif, 'NRP-SECRET-GIF-COMMENT');
    expect((await metadataOf(commented)).pages).toBe(3);
    expect(commented.includes('NRP-SECRET-GIF-COMMENT')).toBe(true);
    const served = await uploadAndServe(commented);
    expect(served.includes('NRP-SECRET')).toBe(false);
    const meta = await sharp(served).metadata();
    expect({ format: meta.format, pages: meta.pages, delay: meta.delay, loop: meta.loop }).toEqual({
      format: 'gif',
      pages: 3,
      delay: [100, 200, 300],
      loop: 0,
    });
  });

  it('an animated WebP stays animated (3 frames) and loses its EXIF', async () => {
    const webp = await sharp(await animationFrames(), { join: { animated: true } })
      .webp({ loop: 0, delay: [100, 100, 100] })
      .withExif({ IFD0: { Make: 'NRP-SECRET-WEBP' } })
      .toBuffer();
    expect(webp.includes('NRP-SECRET-WEBP')).toBe(true);
    const served = await uploadAndServe(webp);
    expect(served.includes('NRP-SECRET')).toBe(false);
    expect(served.includes('EXIF')).toBe(false);
    const meta = await sharp(served).metadata();
    expect({ format: meta.format, pages: meta.pages, exif: meta.exif }).toEqual({
      format: 'webp',
      pages: 3,
      exif: undefined,
    });
  });

  it('an SVG is served without its <metadata> (XMP/RDF), comments, data-* and editor attributes', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" xmlns:sodipodi="http://sodipodi.sourceforge.net/DTD/sodipodi-0.dtd" ' +
        'sodipodi:docname="/home/NRP-SECRET-USER/avatar.svg" width="10" height="10"><!-- NRP-SECRET-COMMENT -->' +
        '<metadata><x:xmpmeta xmlns:x="adobe:ns:meta/">NRP-SECRET-XMP</x:xmpmeta></metadata>' +
        '<circle cx="5" cy="5" r="4" fill="#123456" data-gps="NRP-SECRET-DATA"/></svg>',
    );
    const served = (await uploadAndServe(svg)).toString('utf8');
    expect(served).toContain('<circle');
    expect(served).toContain('#123456');
    for (const gone of ['NRP-SECRET', '<metadata', 'xmpmeta', 'sodipodi', 'data-gps', '<!--']) {
      expect(served).not.toContain(gone);
    }
  });

  it('refuses an animation whose frames together exceed MAX_IMAGE_PIXELS (413), storing nothing', async () => {
    const limited = await startMetadataService(chain, { MAX_IMAGE_PIXELS: String(16 * 16 * 2) });
    try {
      const gif = await sharp(await animationFrames(), { join: { animated: true } })
        .gif()
        .toBuffer();
      const fields = await signedFields(limited.app, alice, { scope: 'avatar' });
      const res = await upload(limited.app, path, 'avatar', gif, fields).expect(413);
      expect(res.body.code).toBe('IMAGE_TOO_LARGE');
      expect(res.body.detail).toContain('3 frames');
      expect(await limited.db.db.selectFrom('images').selectAll().execute()).toEqual([]);
    } finally {
      await limited.close();
    }
  });
});
