import sharp from 'sharp';
import {
  AvatarUnavailableError,
  decodeDataUri,
  metadataImageUri,
  parseNftReference,
  substituteErc1155Id,
  uriTarget,
} from '../src/avatars/uri';
import { TRANSFORM_SIZES, transformQuerySchema } from '@nrp/api';
import { imageBudget } from '../src/images/work';
import { applyTransform, chooseTransform } from '../src/avatars/transform';

const budget = imageBudget(1e6, 5000);
const gateways = { ipfs: 'https://ipfs.example/', arweave: 'https://ar.example' };
const CID0 = 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG';
const CID1 = 'bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi';

function reasonOf(fn: () => unknown): string {
  try {
    fn();
  } catch (err) {
    if (err instanceof AvatarUnavailableError) return err.reason;
    throw err;
  }
  return 'no error';
}

describe('ENSIP-12 URIs', () => {
  it.each([
    ['https://example.com/a.png', 'https', 'https://example.com/a.png'],
    ['  HTTP://example.com/a.png ', 'https', 'HTTP://example.com/a.png'],
    [`ipfs://${CID0}`, 'ipfs', `https://ipfs.example/ipfs/${CID0}`],
    [`ipfs://${CID1}/dir/a.png`, 'ipfs', `https://ipfs.example/ipfs/${CID1}/dir/a.png`],
    [`ipfs://ipfs/${CID0}/a.png`, 'ipfs', `https://ipfs.example/ipfs/${CID0}/a.png`],
    [`ipfs/${CID0}/a.png`, 'ipfs', `https://ipfs.example/ipfs/${CID0}/a.png`],
    [`/ipfs/${CID0}`, 'ipfs', `https://ipfs.example/ipfs/${CID0}`],
    [CID0, 'ipfs', `https://ipfs.example/ipfs/${CID0}`],
    [`${CID1}/x.svg`, 'ipfs', `https://ipfs.example/ipfs/${CID1}/x.svg`],
    ['ipns://vitalik.eth/avatar.png', 'ipns', 'https://ipfs.example/ipns/vitalik.eth/avatar.png'],
    ['ipns/k51qzi5uqu5dl/a.png', 'ipns', 'https://ipfs.example/ipns/k51qzi5uqu5dl/a.png'],
    ['ar://abcDEF_123-x/img.png', 'arweave', 'https://ar.example/abcDEF_123-x/img.png'],
    ['data:image/png;base64,AAAA', 'data', 'data:image/png;base64,AAAA'],
  ])('%s → %s %s', (uri, kind, url) => {
    expect(uriTarget(uri, gateways)).toEqual({ kind, url });
  });

  it.each(['ftp://example.com/a.png', 'javascript:alert(1)', 'file:///etc/passwd', 'just some text', ''])(
    '%s is an unsupported scheme',
    (uri) => {
      expect(reasonOf(() => uriTarget(uri, gateways))).toBe('unsupported-scheme');
    },
  );

  it('reads NFT references (erc721 and erc1155, decimal and hex ids, any case)', () => {
    const contract = '0xb47e3cd837dDF8e4c57F05d70Ab865de6e193BBB';
    expect(parseNftReference(`eip155:1/erc721:${contract}/2430`)).toEqual({
      chainId: 1,
      standard: 'erc721',
      contract,
      tokenId: 2430n,
    });
    expect(parseNftReference(`EIP155:11155111/ERC1155:${contract}/0x10`)).toEqual({
      chainId: 11155111,
      standard: 'erc1155',
      contract,
      tokenId: 16n,
    });
    expect(parseNftReference('https://example.com/a.png')).toBeNull();
    expect(reasonOf(() => parseNftReference(`eip155:1/erc20:${contract}/1`))).toBe('unsupported-scheme');
    expect(reasonOf(() => parseNftReference('eip155:1/erc721:0x1234/1'))).toBe('unsupported-scheme');
    expect(reasonOf(() => parseNftReference(`eip155:1/erc721:${contract}/0x${'f'.repeat(64)}1`))).toBe(
      'unsupported-scheme',
    );
  });

  it('substitutes the ERC-1155 {id} as 64 lowercase hex digits', () => {
    expect(substituteErc1155Id('https://x.example/{id}.json?v={id}', 0xabn)).toBe(
      `https://x.example/${'0'.repeat(62)}ab.json?v=${'0'.repeat(62)}ab`,
    );
    expect(substituteErc1155Id('ipfs://cid/meta.json', 5n)).toBe('ipfs://cid/meta.json');
  });

  it('takes image, then image_url, then image_data from NFT metadata', () => {
    expect(metadataImageUri({ image: 'ipfs://a', image_url: 'https://b' })).toBe('ipfs://a');
    expect(metadataImageUri({ image: '', image_url: 'https://b' })).toBe('https://b');
    const inline = metadataImageUri({ image_data: '<svg xmlns="http://www.w3.org/2000/svg"/>' });
    expect(decodeDataUri(inline, 1000)).toEqual({
      mediaType: 'image/svg+xml',
      bytes: Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>'),
    });
    expect(reasonOf(() => metadataImageUri({ name: 'no image' }))).toBe('not-an-image');
    expect(reasonOf(() => metadataImageUri('nope'))).toBe('not-an-image');
  });

  it('decodes base64 and percent-encoded data: URIs under a byte limit', () => {
    expect(decodeDataUri('data:application/json;base64,eyJhIjoxfQ==', 100).bytes.toString()).toBe('{"a":1}');
    expect(decodeDataUri('data:application/json,%7B%22a%22%3A1%7D', 100)).toEqual({
      mediaType: 'application/json',
      bytes: Buffer.from('{"a":1}'),
    });
    expect(decodeDataUri('data:,hi', 100).mediaType).toBe('text/plain');
    expect(reasonOf(() => decodeDataUri(`data:image/png;base64,${'A'.repeat(400)}`, 100))).toBe('too-large');
    expect(reasonOf(() => decodeDataUri('data:image/png;base64', 100))).toBe('fetch-failed');
    expect(reasonOf(() => decodeDataUri('data:text/plain,%E0%A4%A', 100))).toBe('fetch-failed');
  });
});

describe('transforms', () => {
  it('validates the query: the fixed sizes, the four formats, the sharp fits, nothing else', () => {
    expect(transformQuerySchema.safeParse({ width: '64', format: 'avif', fit: 'contain' }).success).toBe(
      true,
    );
    for (const size of TRANSFORM_SIZES) {
      expect(transformQuerySchema.parse({ width: String(size), height: String(size) })).toEqual({
        width: size,
        height: size,
      });
    }
    for (const bad of [
      { width: '0' },
      { width: '40' },
      { height: '2048' },
      { height: '2049' },
      { width: '64.0' },
      { width: '1.5' },
      { format: 'gif' },
      { fit: 'crop' },
      { w: '1' },
    ]) {
      expect(transformQuerySchema.safeParse(bad).success).toBe(false);
    }
  });

  it('negotiates webp, then avif, else the source format; an unsized SVG stays SVG', () => {
    expect(chooseTransform({}, 'png', 'image/avif,image/webp,*/*')).toMatchObject({
      format: 'webp',
      negotiated: true,
    });
    expect(chooseTransform({}, 'png', 'image/avif,*/*')).toMatchObject({ format: 'avif', negotiated: true });
    expect(chooseTransform({}, 'png', undefined)).toMatchObject({ format: 'original', negotiated: true });
    expect(chooseTransform({ width: 10 }, 'gif', '*/*')).toMatchObject({
      format: 'gif',
      width: 10,
      fit: 'cover',
    });
    expect(chooseTransform({}, 'svg', 'image/webp')).toMatchObject({ format: 'original', negotiated: false });
    expect(chooseTransform({ height: 10 }, 'svg', '*/*')).toMatchObject({ format: 'png', negotiated: true });
    expect(chooseTransform({ format: 'jpeg' }, 'png', 'image/webp')).toMatchObject({
      format: 'jpeg',
      negotiated: false,
    });
  });

  it('keeps animation as webp, takes the first frame as png, never enlarges', async () => {
    const frame = (color: string) =>
      sharp({ create: { width: 40, height: 40, channels: 3, background: color } })
        .png()
        .toBuffer();
    const gif = await sharp([await frame('#ff0000'), await frame('#0000ff')], { join: { animated: true } })
      .gif()
      .toBuffer();
    const webp = await applyTransform(
      gif,
      'gif',
      { width: 20, fit: 'cover', format: 'webp', negotiated: false },
      budget,
    );
    const webpMeta = await sharp(webp.bytes, { animated: true }).metadata();
    expect([webp.contentType, webpMeta.pages, webpMeta.width]).toEqual(['image/webp', 2, 20]);
    const png = await applyTransform(
      gif,
      'gif',
      { width: 400, fit: 'cover', format: 'png', negotiated: false },
      budget,
    );
    const pngMeta = await sharp(png.bytes).metadata();
    expect([png.contentType, pngMeta.format, pngMeta.pages ?? 1, pngMeta.width]).toEqual([
      'image/png',
      'png',
      1,
      40,
    ]);
  });
});
