import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Contract, Wallet } from 'ethers';
import sharp from 'sharp';
import request from 'supertest';
import {
  deployContract,
  erc1155AvatarTestDoubleArtifact,
  erc721AvatarTestDoubleArtifact,
} from '@nrp/contracts';
import { namehash, tokenIdFromNamehash } from '@nrp/ens';
import type { EnsChain } from '@nrp/testkit';
import { AVATAR_SOURCE_PREFIX, AVATAR_TRANSFORM_PREFIX } from '../src/avatars/variants';
import { stableImageUrl } from '../src/uploads/stable-url';
import {
  png,
  signedFields,
  startEnsChain,
  startMetadataService,
  upload,
  walletOf,
  BASE_URL,
  type MetadataService,
} from './support';

const CID = 'QmYwAPJzv5CZsnA625s3Xf2nemtYgPpHdWEz79ojWnPbdG';
const MAX_BYTES = 200_000;
const TIMEOUT_MS = 1500;

let chain: EnsChain;
let h: MetadataService;
let alice: Wallet;
let bob: Wallet;
let remote: Server;
let gateway: Server;
let remoteUrl: string;
let gatewayUrl: string;
let red: Buffer;
let animated: Buffer;
const gatewayPaths: string[] = [];
const hanging = new Set<ServerResponse>();

function listen(handler: (req: IncomingMessage, res: ServerResponse) => void): Promise<Server> {
  const server = createServer(handler);
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));
}
const origin = (server: Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

async function binary(path: string, headers: Record<string, string> = {}) {
  let req = request(h.app).get(path);
  for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
  return req.buffer(true).parse((res, cb) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => cb(null, Buffer.concat(chunks)));
  });
}

const problem = async (path: string, status: number) => {
  const res = await request(h.app).get(path).expect(status);
  expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
  return res.body as { code: string; reason?: string; detail: string };
};

async function named(label: string, avatar: string, owner: Wallet = alice): Promise<string> {
  const { name } = await chain.ens.registerEthName(label, owner.address);
  await chain.ens.setAddr(name, owner.address);
  await chain.ens.setText(name, 'avatar', avatar);
  return name;
}

let erc721: Contract;
let erc1155: Contract;
const names: Record<string, string> = {};

beforeAll(async () => {
  chain = await startEnsChain({ chainId: 11155111 });
  alice = walletOf(chain, 1);
  bob = walletOf(chain, 2);
  red = await png(96, 64, '#ff0000');
  const frame = (color: string) =>
    sharp({ create: { width: 48, height: 48, channels: 3, background: color } })
      .png()
      .toBuffer();
  animated = await sharp([await frame('#00ff00'), await frame('#0000ff')], { join: { animated: true } })
    .gif()
    .toBuffer();
  const svg = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="32" height="32"><script>alert(1)</script>' +
      '<rect width="32" height="32" fill="#00f" onclick="alert(2)"/></svg>',
  );

  remote = await listen((req, res) => {
    const path = req.url ?? '/';
    const image = (bytes: Buffer, type = 'image/png') =>
      res.writeHead(200, { 'content-type': type }).end(bytes);
    if (path === '/red.png') return image(red);
    if (path === '/anim.gif') return image(animated, 'image/gif');
    if (path === '/evil.svg') return image(svg, 'image/svg+xml');
    if (path === '/redirect') return res.writeHead(302, { location: '/red.png' }).end();
    if (path === '/to-loopback') return res.writeHead(302, { location: 'http://127.0.0.1:1/x.png' }).end();
    if (path === '/page.png') return image(Buffer.from('<!doctype html><html><body>hi</body></html>'));
    if (path === '/missing.png') return res.writeHead(404).end();
    if (path === '/huge-declared.png') {
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': String(MAX_BYTES * 10) });
      return res.end();
    }
    if (path === '/huge-streamed.png') {
      // No Content-Length: the limit must be enforced while reading.
      res.writeHead(200, { 'content-type': 'image/png' });
      const chunk = Buffer.alloc(64 * 1024, 1);
      let sent = 0;
      const push = () => {
        while (sent < MAX_BYTES * 10 && res.write(chunk)) sent += chunk.length;
        if (sent < MAX_BYTES * 10) res.once('drain', push);
        else res.end();
      };
      res.on('error', () => undefined);
      return push();
    }
    if (path === '/slow.png') {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.write(red.subarray(0, 10));
      hanging.add(res);
      return undefined;
    }
    if (path === '/meta/721.json')
      return image(Buffer.from(JSON.stringify({ image: `${origin(remote)}/red.png` })), 'application/json');
    const erc1155Meta = /^\/meta\/1155\/([0-9a-f]{64})\.json$/.exec(path);
    if (erc1155Meta) {
      return image(
        Buffer.from(JSON.stringify({ name: erc1155Meta[1], image_url: `ipfs://${CID}/anim.gif` })),
        'application/json',
      );
    }
    return res.writeHead(404).end();
  });
  gateway = await listen((req, res) => {
    const path = req.url ?? '/';
    gatewayPaths.push(path);
    if (
      path === `/ipfs/${CID}/red.png` ||
      path === '/ipns/avatars.eth/red.png' ||
      path === '/ar/tx_ID-1/red.png'
    ) {
      return res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(red);
    }
    if (path === `/ipfs/${CID}/anim.gif`) return res.writeHead(200).end(animated);
    return res.writeHead(404).end();
  });
  remoteUrl = origin(remote);
  gatewayUrl = origin(gateway);

  h = await startMetadataService(chain, {
    IPFS_GATEWAY_URL: gatewayUrl,
    ARWEAVE_GATEWAY_URL: `${gatewayUrl}/ar`,
    IMAGE_FETCH_ALLOWED_ORIGINS: remoteUrl,
    IMAGE_FETCH_TIMEOUT_MS: String(TIMEOUT_MS),
    IMAGE_FETCH_MAX_BYTES: String(MAX_BYTES),
    AVATAR_CACHE_TTL_MS: '60000',
  });

  erc721 = await deployContract(chain.ens.deployer, erc721AvatarTestDoubleArtifact);
  erc1155 = await deployContract(chain.ens.deployer, erc1155AvatarTestDoubleArtifact, [
    `${remoteUrl}/meta/1155/{id}.json`,
  ]);
  const inlineMeta = `data:application/json;base64,${Buffer.from(
    JSON.stringify({ image_data: svg.toString('utf8') }),
  ).toString('base64')}`;
  await chain.ens.send(erc721, chain.ens.deployer, 'mint', [alice.address, 1, `${remoteUrl}/meta/721.json`]);
  await chain.ens.send(erc721, chain.ens.deployer, 'mint', [alice.address, 2, inlineMeta]);
  await chain.ens.send(erc721, chain.ens.deployer, 'mint', [bob.address, 3, `${remoteUrl}/meta/721.json`]);
  await chain.ens.send(erc1155, chain.ens.deployer, 'mint', [alice.address, 0xabc, 1]);
  const c721 = await erc721.getAddress();
  const c1155 = await erc1155.getAddress();
  const records: Record<string, string> = {
    https: `${remoteUrl}/red.png`,
    redirect: `${remoteUrl}/redirect`,
    ipfs: `ipfs://${CID}/red.png`,
    ipfspath: `ipfs/${CID}/red.png`,
    ipns: 'ipns://avatars.eth/red.png',
    arweave: 'ar://tx_ID-1/red.png',
    data: `data:image/png;base64,${red.toString('base64')}`,
    svg: `${remoteUrl}/evil.svg`,
    anim: `${remoteUrl}/anim.gif`,
    nft721: `eip155:11155111/erc721:${c721}/1`,
    nft721data: `eip155:11155111/erc721:${c721}/2`,
    nft1155: `eip155:11155111/erc1155:${c1155}/${0xabc}`,
    notowned: `eip155:11155111/erc721:${c721}/3`,
    notheld: `eip155:11155111/erc1155:${c1155}/7`,
    nosuchtoken: `eip155:11155111/erc721:${c721}/99`,
    otherchain: `eip155:5/erc721:${c721}/1`,
    ftp: 'ftp://example.com/a.png',
    loopback: 'https://127.0.0.1/a.png',
    localhost: 'https://localhost/a.png',
    plainhttp: 'http://example.com/a.png',
    hopback: `${remoteUrl}/to-loopback`,
    notfound: `${remoteUrl}/missing.png`,
    html: `${remoteUrl}/page.png`,
    hugedeclared: `${remoteUrl}/huge-declared.png`,
    hugestreamed: `${remoteUrl}/huge-streamed.png`,
    slow: `${remoteUrl}/slow.png`,
  };
  for (const [label, value] of Object.entries(records)) names[label] = await named(label, value);
  await chain.ens.registerEthName('bare', alice.address);
}, 180_000);

afterAll(async () => {
  for (const res of hanging) res.destroy();
  await h?.close();
  await new Promise((r) => remote?.close(r));
  await new Promise((r) => gateway?.close(r));
  await chain?.stop();
});

const avatar = (label: string, query = '') => `/sepolia/avatar/${names[label] ?? `${label}.eth`}${query}`;

describe('records of every kind', () => {
  it.each([
    ['https', 'https', (u: string) => u === `${remoteUrl}/red.png`],
    ['redirect', 'https', (u: string) => u === `${remoteUrl}/red.png`],
    ['ipfs', 'ipfs', (u: string) => u === `${gatewayUrl}/ipfs/${CID}/red.png`],
    ['ipfspath', 'ipfs', (u: string) => u === `${gatewayUrl}/ipfs/${CID}/red.png`],
    ['ipns', 'ipns', (u: string) => u === `${gatewayUrl}/ipns/avatars.eth/red.png`],
    ['arweave', 'arweave', (u: string) => u === `${gatewayUrl}/ar/tx_ID-1/red.png`],
  ])('%s: the image, with the URL it came from', async (label, kind, urlOk) => {
    const res = await binary(avatar(label));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(res.body as Buffer, red)).toBe(0);
    const meta = (await request(h.app).get(avatar(label, '/meta')).expect(200)).body;
    expect(meta).toMatchObject({ recordKind: kind, ownershipVerified: null, contentType: 'image/png' });
    expect(urlOk(meta.imageUrl as string)).toBe(true);
  });

  it('data: URIs are decoded inline (no image URL)', async () => {
    const res = await binary(avatar('data'));
    expect(Buffer.compare(res.body as Buffer, red)).toBe(0);
    const meta = (await request(h.app).get(avatar('data', '/meta')).expect(200)).body;
    expect(meta).toMatchObject({ recordKind: 'data', imageUrl: null });
  });

  it('SVG is sanitised as for uploads', async () => {
    const res = await binary(avatar('svg'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/svg+xml');
    const text = (res.body as Buffer).toString('utf8');
    expect(text).toContain('<rect');
    expect(text).not.toMatch(/script|onclick/);
  });

  it('ERC-721: owned by the name, tokenURI over HTTP → metadata image', async () => {
    const res = await binary(avatar('nft721'));
    expect(res.status).toBe(200);
    expect(Buffer.compare(res.body as Buffer, red)).toBe(0);
    const meta = (await request(h.app).get(avatar('nft721', '/meta')).expect(200)).body;
    expect(meta).toMatchObject({
      recordKind: 'erc721',
      ownershipVerified: true,
      imageUrl: `${remoteUrl}/red.png`,
      nft: { chainId: 11155111, contract: await erc721.getAddress(), tokenId: '1', owner: alice.address },
    });
  });

  it('ERC-721: a data: token URI with image_data (inline SVG)', async () => {
    const res = await binary(avatar('nft721data'));
    expect(res.headers['content-type']).toBe('image/svg+xml');
    expect((res.body as Buffer).toString('utf8')).not.toContain('script');
  });

  it('ERC-1155: balanceOf, uri with {id} substituted, image_url on IPFS (animated GIF kept)', async () => {
    const res = await binary(avatar('nft1155'));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/gif');
    expect((await sharp(res.body as Buffer, { animated: true }).metadata()).pages).toBe(2);
    const meta = (await request(h.app).get(avatar('nft1155', '/meta')).expect(200)).body;
    expect(meta).toMatchObject({
      recordKind: 'erc1155',
      ownershipVerified: true,
      imageUrl: `${gatewayUrl}/ipfs/${CID}/anim.gif`,
    });
  });

  it('an upload of this service is served from storage', async () => {
    const { name } = await chain.ens.registerEthName('uploaded', alice.address);
    await chain.ens.setText(name, 'avatar', stableImageUrl(BASE_URL, 'sepolia', name, 'avatar'));
    const before = await request(h.app).get(`/sepolia/avatar/${name}/meta`).expect(200);
    expect(before.body).toMatchObject({ recordKind: 'upload', reason: 'fetch-failed' });
    const blue = await png(50, 50, '#0000ff');
    await upload(
      h.app,
      `/profile/sepolia/${name}/avatar`,
      'avatar',
      blue,
      await signedFields(h.app, alice),
    ).expect(200);
    // The upload drops the cached resolution at once.
    const res = await binary(`/sepolia/avatar/${name}`);
    expect(Buffer.compare(res.body as Buffer, blue)).toBe(0);
    const meta = (await request(h.app).get(`/sepolia/avatar/${name}/meta`).expect(200)).body;
    expect(meta).toMatchObject({ recordKind: 'upload', ownershipVerified: true });
  });

  it('headers resolve the same way', async () => {
    await chain.ens.setText(names.https ?? '', 'header', `ipfs://${CID}/red.png`);
    const res = await binary(`/sepolia/header/${names.https}`);
    expect(Buffer.compare(res.body as Buffer, red)).toBe(0);
    expect((await request(h.app).get(`/sepolia/header/${names.https}/meta`).expect(200)).body.kind).toBe(
      'header',
    );
  });
});

describe('records that give no image: 404 with a reason, never 5xx', () => {
  it.each([
    ['notowned', 'not-owned', /not owned by/],
    ['notheld', 'not-owned', /holds no token/],
    ['nosuchtoken', 'not-owned', /not owned by/],
    ['otherchain', 'unsupported-chain', /chain 5/],
    ['ftp', 'unsupported-scheme', /ftp:/],
    ['loopback', 'url-refused', /not a public address/],
    ['localhost', 'url-refused', /loopback host/],
    ['plainhttp', 'url-refused', /only https/],
    ['hopback', 'url-refused', /127\.0\.0\.1:1/],
    ['notfound', 'fetch-failed', /gave no image/],
    ['html', 'not-an-image', /text/],
    ['hugedeclared', 'too-large', /larger than 200000 bytes/],
    ['hugestreamed', 'too-large', /larger than 200000 bytes/],
    ['slow', 'fetch-failed', /gave no image/],
  ])('%s → %s', async (label, reason, detail) => {
    const body = await problem(avatar(label), 404);
    expect(body).toMatchObject({ code: 'AVATAR_UNAVAILABLE', reason });
    expect(body.detail).toMatch(detail);
    const meta = (await request(h.app).get(avatar(label, '/meta')).expect(200)).body;
    expect(meta).toMatchObject({ reason });
    if (reason === 'not-owned') expect(meta.ownershipVerified).toBe(false);
  });

  it('no record → 404 IMAGE_NOT_FOUND; unknown network, invalid name, bad transforms → 400', async () => {
    expect((await problem('/sepolia/avatar/bare.eth', 404)).code).toBe('IMAGE_NOT_FOUND');
    expect((await problem('/sepolia/avatar/bare.eth/meta', 404)).code).toBe('IMAGE_NOT_FOUND');
    expect((await problem('/goerli/avatar/bare.eth', 400)).code).toBe('INVALID_INPUT');
    expect((await problem('/sepolia/avatar/Not..Valid', 400)).code).toBe('INVALID_NAME');
    for (const query of [
      'width=0',
      'width=40',
      'width=2048',
      'width=4096',
      'height=abc',
      'format=gif',
      'fit=crop',
      'size=64',
    ]) {
      expect((await problem(avatar('https', `?${query}`), 400)).code).toBe('INVALID_INPUT');
    }
  });
});

describe('transforms and cache headers', () => {
  it.each([
    ['webp', 'image/webp'],
    ['avif', 'image/avif'],
    ['png', 'image/png'],
    ['jpeg', 'image/jpeg'],
  ])('format=%s with width and height', async (format, type) => {
    const res = await binary(avatar('https', `?width=32&height=32&fit=contain&format=${format}`));
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe(type);
    expect(res.headers.vary).toBeUndefined();
    const meta = await sharp(res.body as Buffer).metadata();
    expect([meta.format === 'heif' ? 'avif' : meta.format, meta.width, meta.height]).toEqual([
      format,
      32,
      32,
    ]);
  });

  it('animated GIF stays animated as webp; png takes the first frame', async () => {
    const webp = await binary(avatar('anim', '?width=32&format=webp'));
    expect((await sharp(webp.body as Buffer, { animated: true }).metadata()).pages).toBe(2);
    const first = await binary(avatar('anim', '?width=32&format=png'));
    expect((await sharp(first.body as Buffer, { animated: true }).metadata()).pages ?? 1).toBe(1);
  });

  it('negotiates from Accept when no format is given (Vary: Accept)', async () => {
    const webp = await binary(avatar('https', '?width=48'), { Accept: 'image/avif,image/webp,*/*' });
    expect([webp.headers['content-type'], webp.headers.vary]).toEqual(['image/webp', 'Accept']);
    const avif = await binary(avatar('https', '?width=48'), { Accept: 'image/avif,*/*' });
    expect(avif.headers['content-type']).toBe('image/avif');
    const plain = await binary(avatar('https'), { Accept: '*/*' });
    expect([plain.headers['content-type'], plain.headers.vary]).toEqual(['image/png', 'Accept']);
  });

  it('strong ETag, 304, stale-while-revalidate, and results stored by (source hash, transform)', async () => {
    const res = await binary(avatar('https', '?width=16&format=webp'));
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    expect(res.headers['cache-control']).toBe('public, max-age=60, stale-while-revalidate=600');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect((await binary(avatar('https', '?width=16&format=webp'), { 'If-None-Match': etag })).status).toBe(
      304,
    );
    const meta = (await request(h.app).get(avatar('https', '/meta')).expect(200)).body;
    expect(await h.context.blobs.list(`${AVATAR_SOURCE_PREFIX}${meta.sha256}`)).toHaveLength(1);
    expect(await h.context.blobs.list(`${AVATAR_TRANSFORM_PREFIX}${meta.sha256}/`)).toContain(
      `${AVATAR_TRANSFORM_PREFIX}${meta.sha256}/w16-hauto-cover.webp`,
    );
    // The same bytes reached through another record share the stored transform and its ETag.
    const viaIpfs = await binary(avatar('ipfs', '?width=16&format=webp'));
    expect(viaIpfs.headers.etag).toBe(etag);
  });
});

describe('freshness and the token image', () => {
  it('a changed record shows once AVATAR_CACHE_TTL_MS has passed', async () => {
    const name = await named('fresh', `${remoteUrl}/red.png`);
    expect((await binary(`/sepolia/avatar/${name}`)).headers['content-type']).toBe('image/png');
    await chain.ens.setText(name, 'avatar', `${remoteUrl}/anim.gif`);
    expect((await binary(`/sepolia/avatar/${name}`)).headers['content-type']).toBe('image/png');
    h.advance(60_001);
    expect((await binary(`/sepolia/avatar/${name}`)).headers['content-type']).toBe('image/gif');
  });

  it('noCache=true reads the changed record at once and refreshes the cache; bad values are 400', async () => {
    const name = await named('nocache', `${remoteUrl}/red.png`);
    expect((await binary(`/sepolia/avatar/${name}`)).headers['content-type']).toBe('image/png');
    await chain.ens.setText(name, 'avatar', `${remoteUrl}/anim.gif`);
    expect((await binary(`/sepolia/avatar/${name}`)).headers['content-type']).toBe('image/png');
    const meta = await request(h.app).get(`/sepolia/avatar/${name}/meta?noCache=true`).expect(200);
    expect(meta.body).toMatchObject({ record: `${remoteUrl}/anim.gif`, contentType: 'image/gif' });
    expect((await binary(`/sepolia/avatar/${name}`)).headers['content-type']).toBe('image/gif');
    await chain.ens.setText(name, 'avatar', `${remoteUrl}/red.png`);
    expect(
      (await binary(`/sepolia/avatar/${name}?noCache=true&width=16&format=png`)).headers['content-type'],
    ).toBe('image/png');
    const refreshed = await request(h.app).get(`/sepolia/avatar/${name}/meta`).expect(200);
    expect(refreshed.body).toMatchObject({ record: `${remoteUrl}/red.png`, contentType: 'image/png' });
    const bad = await request(h.app).get(`/sepolia/avatar/${name}?noCache=maybe`).expect(400);
    expect(bad.body.code).toBe('INVALID_INPUT');
  });

  it('image.png is drawn over the resolved avatar of any name (NFT here), else the generated card', async () => {
    const { name } = await chain.ens.registerEthName('card', alice.address);
    await chain.ens.wrapName(name, alice.address);
    const path = `/metadata/network/11155111/token/${tokenIdFromNamehash(namehash(name))}/image.png`;
    const plain = await binary(path);
    const corner = async (bytes: Buffer) => [...(await sharp(bytes).raw().toBuffer()).subarray(0, 3)];
    expect(await corner(plain.body as Buffer)).not.toEqual([255, 0, 0]);

    const { name: other } = await chain.ens.registerEthName('card2', alice.address);
    await chain.ens.setAddr(other, alice.address);
    await chain.ens.setText(
      other,
      'avatar',
      names.nft721 ? `eip155:11155111/erc721:${await erc721.getAddress()}/1` : '',
    );
    await chain.ens.wrapName(other, alice.address);
    const drawn = await binary(
      `/metadata/network/11155111/token/${tokenIdFromNamehash(namehash(other))}/image.png`,
    );
    expect(await corner(drawn.body as Buffer)).toEqual([255, 0, 0]);
  });
});
