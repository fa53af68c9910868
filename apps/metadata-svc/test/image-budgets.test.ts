/**
 * Bounded cost of avatars and token images (issue 20): every width/height/format answers 200 or a 4xx, the
 * transform variants of an image are a fixed set (and a bounded number is stored), pixel and filter budgets,
 * the image work limit (503 + Retry-After), bounded NFT metadata JSON, hostile tokenURI data, and fetch failures
 * that do not tell a closed port from an open one.
 */
import {
  createServer as createTcpServer,
  type AddressInfo,
  type Server as TcpServer,
  type Socket,
} from 'node:net';
import { createServer, type Server } from 'node:http';
import { hostname } from 'node:os';
import type { Wallet } from 'ethers';
import sharp from 'sharp';
import request from 'supertest';
import { OUTPUT_FORMATS, TRANSFORM_FITS, TRANSFORM_SIZES } from '@nrp/api';
import { namehash, tokenIdFromNamehash } from '@nrp/ens';
import { expectProblem, type EnsChain } from '@nrp/testkit';
import { AVATAR_TRANSFORM_PREFIX, STORED_VARIANTS_PER_IMAGE } from '../src/avatars/variants';
import { ImageWork } from '../src/images/work';
import {
  imageRows,
  png,
  signedFields,
  startEnsChain,
  startMetadataService,
  storedKeys,
  upload,
  walletOf,
  type MetadataService,
} from './support';

let chain: EnsChain;
let h: MetadataService;
let alice: Wallet;
let remote: Server;
let remoteUrl: string;
let closedOrigin: string;
let tcp: TcpServer;
let tcpOrigin: string;
const tcpSockets = new Set<Socket>();
const files = new Map<string, { type: string; bytes: Buffer }>();

const origin = (server: Server | TcpServer) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
const listen = <T extends Server | TcpServer>(server: T) =>
  new Promise<T>((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)));

async function named(label: string, avatar: string): Promise<string> {
  const { name } = await chain.ens.registerEthName(label, alice.address);
  await chain.ens.setAddr(name, alice.address);
  await chain.ens.setText(name, 'avatar', avatar);
  return name;
}

function serve(path: string, bytes: Buffer, type = 'application/octet-stream'): string {
  files.set(path, { type, bytes });
  return `${remoteUrl}${path}`;
}

const get = (path: string) => request(h.app).get(path);

beforeAll(async () => {
  chain = await startEnsChain({ chainId: 11155111 });
  alice = walletOf(chain, 1);
  remote = await listen(
    createServer((req, res) => {
      const file = files.get(req.url ?? '');
      if (!file) return res.writeHead(404).end();
      return res.writeHead(200, { 'content-type': file.type }).end(file.bytes);
    }),
  );
  remoteUrl = origin(remote);
  // A port that accepts and answers garbage (an open port of something that is not HTTP) and one that is closed.
  tcp = await listen(
    createTcpServer((socket) => {
      tcpSockets.add(socket);
      socket.on('close', () => tcpSockets.delete(socket));
      socket.end('SSH-2.0-OpenSSH_9.6\r\n');
    }),
  );
  tcpOrigin = origin(tcp);
  const closed = await listen(createServer());
  closedOrigin = origin(closed);
  await new Promise((resolve) => closed.close(resolve));
  h = await startMetadataService(chain, {
    IMAGE_FETCH_ALLOWED_ORIGINS: [remoteUrl, tcpOrigin, closedOrigin].join(','),
  });
}, 120_000);

afterAll(async () => {
  await h?.close();
  remote?.closeAllConnections();
  await new Promise((resolve) => remote?.close(resolve));
  for (const socket of tcpSockets) socket.destroy();
  await new Promise((resolve) => tcp?.close(resolve));
  await chain?.stop();
});

describe('transforms: a fixed set of variants, every combination 200 or 4xx', () => {
  it('format or height without width (and every format, size pair and fit) answers, never 5xx', async () => {
    const frame = (color: string) =>
      sharp({ create: { width: 60, height: 40, channels: 3, background: color } })
        .png()
        .toBuffer();
    const gif = await sharp([await frame('#00ff00'), await frame('#0000ff')], { join: { animated: true } })
      .gif()
      .toBuffer();
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="30" height="50"><rect width="30" height="50" fill="#f00"/></svg>',
    );
    const sources = [
      await named('combopng', serve('/combo.png', await png(80, 50))),
      await named('combogif', serve('/combo.gif', gif)),
      await named('combosvg', serve('/combo.svg', svg)),
    ];
    const queries = ['format=webp', 'height=64', 'height=16&format=png', 'width=16', ''];
    for (const format of [...OUTPUT_FORMATS, undefined]) {
      for (const fit of TRANSFORM_FITS) {
        queries.push(`width=32&height=96&fit=${fit}${format ? `&format=${format}` : ''}`);
      }
    }
    for (const name of sources) {
      for (const query of queries) {
        const res = await get(`/sepolia/avatar/${name}?${query}`);
        expect([name, query, res.status, res.status === 200 ? '' : res.text]).toEqual([name, query, 200, '']);
      }
    }
    // Outside the fixed set: 400 naming the parameter, nothing stored.
    const stored = await h.context.blobs.list(AVATAR_TRANSFORM_PREFIX);
    for (const query of ['width=40', 'height=2048', 'width=64&height=0', 'format=gif', 'width=64.5']) {
      const res = await get(`/sepolia/avatar/${sources[0]}?${query}`);
      expectProblem(res, 400, 'INVALID_INPUT');
      expect(res.body.errors[0].path).toMatch(/^query\.(width|height|format)$/);
    }
    expect(await h.context.blobs.list(AVATAR_TRANSFORM_PREFIX)).toEqual(stored);
  });

  it(`keeps at most ${STORED_VARIANTS_PER_IMAGE} variants of one image in blob storage; the rest answer from memory`, async () => {
    const name = await named('variants', serve('/variants.png', await png(300, 200, '#123456')));
    const meta = (await get(`/sepolia/avatar/${name}/meta`).expect(200)).body as { sha256: string };
    let asked = 0;
    for (const width of TRANSFORM_SIZES) {
      for (const format of OUTPUT_FORMATS) {
        const res = await get(`/sepolia/avatar/${name}?width=${width}&format=${format}`);
        expect(res.status).toBe(200);
        asked++;
      }
    }
    expect(asked).toBeGreaterThan(STORED_VARIANTS_PER_IMAGE);
    const kept = await h.context.blobs.list(`${AVATAR_TRANSFORM_PREFIX}${meta.sha256}/`);
    expect(kept).toHaveLength(STORED_VARIANTS_PER_IMAGE);
  });
});

describe('image budgets', () => {
  it('an SVG loses the filters whose cost an attribute multiplies (feTurbulence …) before it is rendered', async () => {
    const noise =
      '<svg xmlns="http://www.w3.org/2000/svg" width="512" height="512"><filter id="f">' +
      '<feTurbulence baseFrequency="0.9" numOctaves="10"/><feMorphology radius="500"/>' +
      '<feConvolveMatrix order="30" kernelMatrix="1"/></filter>' +
      '<rect width="512" height="512" fill="#0a0" filter="url(#f)"/></svg>';
    const name = await named('turbulence', serve('/noise.svg', Buffer.from(noise), 'image/svg+xml'));
    const served = await get(`/sepolia/avatar/${name}`).buffer(true).expect(200);
    expect(String(served.body)).not.toMatch(/feTurbulence|feMorphology|feConvolveMatrix/i);
    const large = await get(`/sepolia/avatar/${name}?width=1024&format=png`).expect(200);
    expect(large.headers['content-type']).toBe('image/png');
  });

  it('an SVG whose render no filter removal bounds is cut off at the time budget (404), the process still answering', async () => {
    // 200 large blurs: a few hundred ms at the 32 px of validation, minutes at 1024 px (librsvg cannot be
    // interrupted mid-render, and sharp's own timeout is only checked between tiles: the route's 45 s ran out first).
    const blurs =
      '<svg xmlns="http://www.w3.org/2000/svg" width="1024" height="1024"><filter id="b" x="-100" y="-100" ' +
      'width="200" height="200"><feGaussianBlur stdDeviation="100"/></filter>' +
      '<rect width="1024" height="1024" filter="url(#b)"/>'.repeat(200) +
      '</svg>';
    const name = await named('blurs', serve('/blurs.svg', Buffer.from(blurs), 'image/svg+xml'));
    await get(`/sepolia/avatar/${name}/meta`).expect(200);
    let renderAnswered = false;
    const render = get(`/sepolia/avatar/${name}?width=1024&format=png`).then((res) => {
      renderAnswered = true;
      return res;
    });
    const health = await get('/health');
    expect([health.status, renderAnswered]).toEqual([200, false]);
    const res = await render;
    expectProblem(res, 404, 'AVATAR_UNAVAILABLE');
    expect(res.body).toMatchObject({ reason: 'too-large', detail: expect.stringMatching(/longer than/) });
  }, 60_000);

  it('an image over the default pixel budget (a few KB of lossless WebP) is 404 too-large, not decoded', async () => {
    const bomb = await sharp({ create: { width: 4100, height: 4100, channels: 3, background: '#fff' } })
      .webp({ lossless: true, effort: 0 })
      .toBuffer();
    expect(bomb.length).toBeLessThan(100_000);
    const name = await named('pixelbomb', serve('/bomb.webp', bomb));
    const res = await get(`/sepolia/avatar/${name}`);
    expectProblem(res, 404, 'AVATAR_UNAVAILABLE');
    expect(res.body).toMatchObject({ reason: 'too-large', detail: expect.stringMatching(/pixels/) });
  });

  it('a full image work queue answers 503 with Retry-After at once', async () => {
    const work = new ImageWork(1, 1);
    let release = () => undefined as void;
    const first = work.run(() => new Promise<void>((resolve) => (release = resolve)));
    const second = work.run(async () => 'second');
    const third: unknown = await work.run(async () => 'third').catch((e: unknown) => e);
    expect(third).toMatchObject({
      status: 503,
      code: 'SERVICE_UNAVAILABLE',
      headers: { 'Retry-After': '1' },
    });
    release();
    await first;
    expect(await second).toBe('second');
    expect(await work.run(async () => 'later')).toBe('later');
  });
});

describe('through HTTP, with one image work slot and no queue', () => {
  let busy: MetadataService;
  beforeAll(async () => {
    busy = await startMetadataService(chain, {
      IMAGE_FETCH_ALLOWED_ORIGINS: remoteUrl,
      IMAGE_WORK_CONCURRENCY: '1',
      IMAGE_WORK_QUEUE_MAX: '0',
      // Only the slot is under test: a decode slowed by a busy machine must not run out of time.
      IMAGE_WORK_TIMEOUT_MS: '60000',
    });
  }, 60_000);
  afterAll(() => busy?.close());

  it('concurrent first decodes answer 200 or 503 + Retry-After', async () => {
    const noise = await sharp(
      Buffer.alloc(1000 * 1000 * 3).map(() => Math.floor(Math.random() * 256)),
      {
        raw: { width: 1000, height: 1000, channels: 3 },
      },
    )
      .png({ compressionLevel: 0 })
      .toBuffer();
    const names = await Promise.all(
      [0, 1, 2, 3, 4, 5].map((i) => named(`busy${i}`, serve(`/busy${i}.png`, noise))),
    );
    const answers = await Promise.all(names.map((n) => request(busy.app).get(`/sepolia/avatar/${n}`)));
    const others = answers.filter((a) => a.status !== 200 && a.status !== 503);
    expect(others.map((a) => [a.status, a.body])).toEqual([]);
    const full = answers.filter((a) => a.status === 503);
    expect(full.length).toBeGreaterThan(0);
    for (const res of full) {
      expectProblem(res, 503, 'SERVICE_UNAVAILABLE');
      expect(res.headers['retry-after']).toBe('1');
    }
    // A refused decode is not remembered: asked again alone, it is decoded.
    const refused = names[answers.findIndex((a) => a.status === 503)] ?? '';
    await request(busy.app).get(`/sepolia/avatar/${refused}`).expect(200);
  });

  it('an upload decodes in the same slots: with them full it is 503 + Retry-After, nothing stored, nonce unused', async () => {
    let release = () => undefined as void;
    const held = busy.context.imageWork.run(() => new Promise<void>((resolve) => (release = resolve)));
    const { name } = await chain.ens.registerEthName('poolfull', alice.address);
    const fields = await signedFields(busy.app, alice);
    const path = `/profile/sepolia/${name}/avatar`;
    try {
      const res = await upload(busy.app, path, 'avatar', await png(), fields);
      expectProblem(res, 503, 'SERVICE_UNAVAILABLE');
      expect(res.headers['retry-after']).toBe('1');
      expect(await imageRows(busy.db)).toEqual([]);
      expect(await storedKeys(busy.context.blobs)).toEqual([]);
    } finally {
      release();
      await held;
    }
    await upload(busy.app, path, 'avatar', await png(), fields).expect(200);
  });
});

describe('NFT metadata and hostile tokenURI answers', () => {
  let contracts = 0;
  /** An ERC-1155 "contract" whose every call answers `words` (balanceOf reads the first word, 0x20, as a balance). */
  async function contractAnswering(words: string[]): Promise<string> {
    contracts++;
    const address = `0x${'5e'.repeat(18)}${contracts.toString(16).padStart(4, '0')}`;
    const runtime =
      words
        .map((word, i) => `7f${word.padStart(64, '0')}61${(i * 32).toString(16).padStart(4, '0')}52`)
        .join('') + `61${(words.length * 32).toString(16).padStart(4, '0')}6000f3`;
    await fetch(chain.anvil.rpcUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'anvil_setCode',
        params: [address, `0x${runtime}`],
      }),
    });
    return address;
  }
  /** The ABI encoding of a string answer, as 32-byte words (hex). */
  const abiString = (text: string) => {
    const hex = Buffer.from(text, 'utf8').toString('hex');
    const words = hex.match(/.{1,64}/g) ?? [];
    return ['20', text.length.toString(16), ...words.map((w) => w.padEnd(64, '0'))];
  };

  it.each([
    ['a string length of 2^256-1', ['20', 'f'.repeat(64)]],
    ['invalid UTF-8', ['20', '2', `fffe${'0'.repeat(60)}`]],
  ])(
    'a uri() answer with %s: 404 with a reason on /avatar and /meta, the plain card on image.png',
    async (_what, words) => {
      const contract = await contractAnswering(words);
      const name = await named(`hostile${contracts}`, `eip155:11155111/erc1155:${contract}/1`);
      const res = await get(`/sepolia/avatar/${name}`);
      expectProblem(res, 404, 'AVATAR_UNAVAILABLE');
      expect(res.body.reason).toBe('fetch-failed');
      const meta = await get(`/sepolia/avatar/${name}/meta`).expect(200);
      expect(meta.body).toMatchObject({
        recordKind: 'erc1155',
        ownershipVerified: true,
        reason: 'fetch-failed',
      });
      await chain.ens.wrapName(name, alice.address);
      const card = await get(
        `/metadata/network/11155111/token/${tokenIdFromNamehash(namehash(name))}/image.png`,
      );
      expect(card.status).toBe(200);
      expect(card.headers['content-type']).toBe('image/png');
    },
  );

  it('metadata JSON nested deeper than the limit, or larger than it, is refused before it is parsed', async () => {
    const deep = serve('/deep.json', Buffer.from(`${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`));
    const deepName = await named(
      'deepjson',
      `eip155:11155111/erc1155:${await contractAnswering(abiString(deep))}/1`,
    );
    const refused = await get(`/sepolia/avatar/${deepName}`);
    expectProblem(refused, 404, 'AVATAR_UNAVAILABLE');
    expect(refused.body).toMatchObject({
      reason: 'fetch-failed',
      detail: expect.stringMatching(/16 levels/),
    });

    const padding = 'x'.repeat(1024 * 1024);
    const big = serve('/big.json', Buffer.from(JSON.stringify({ image: `${remoteUrl}/combo.png`, padding })));
    const bigName = await named(
      'bigjson',
      `eip155:11155111/erc1155:${await contractAnswering(abiString(big))}/1`,
    );
    const tooLarge = await get(`/sepolia/avatar/${bigName}`);
    expectProblem(tooLarge, 404, 'AVATAR_UNAVAILABLE');
    expect(tooLarge.body.reason).toBe('too-large');
  });
});

describe('fetch failures look alike', () => {
  it('a closed port, an open port that is not HTTP, an error status and a name resolving to a private address', async () => {
    const port = (tcp.address() as AddressInfo).port;
    const records = {
      closed: `${closedOrigin}/a.png`,
      open: `${tcpOrigin}/a.png`,
      missing: `${remoteUrl}/missing.png`,
      privatename: `https://${hostname()}:${port}/a.png`,
    };
    const details = new Set<string>();
    for (const [label, record] of Object.entries(records)) {
      const name = await named(`look${label}`, record);
      const res = await get(`/sepolia/avatar/${name}`);
      expectProblem(res, 404, 'AVATAR_UNAVAILABLE');
      expect(res.body.reason).toBe('fetch-failed');
      const meta = (await get(`/sepolia/avatar/${name}/meta`).expect(200)).body;
      expect(meta.reason).toBe('fetch-failed');
      details.add(`${res.body.detail}|${meta.detail}`);
      expect(`${res.body.detail}|${meta.detail}`).not.toMatch(
        /ECONN|ENOTFOUND|EPROTO|HTTP|resolves|127\.0\.0\.1/,
      );
    }
    expect(details.size).toBe(1);
  });

  it.each([
    'https://192.0.2.2:4001/a.png',
    'https://198.51.100.7/a.png',
    'https://203.0.113.9/a.png',
    'https://[::127.0.0.1]/a.png',
    'https://[::ffff:0:127.0.0.1]/a.png',
    'https://[64:ff9b::127.0.0.1]/a.png',
    'https://[2002:7f00:1::]/a.png',
    'https://[2001:0:808:808::80ff:fffe]/a.png',
    'https://[fec0::1]/a.png',
  ])('%s is refused by the URL policy (404 url-refused)', async (record) => {
    const name = await named(`policy${Math.abs(hashOf(record))}`, record);
    const res = await get(`/sepolia/avatar/${name}`);
    expectProblem(res, 404, 'AVATAR_UNAVAILABLE');
    expect(res.body).toMatchObject({
      reason: 'url-refused',
      detail: expect.stringMatching(/not a public address/),
    });
  });
});

function hashOf(text: string): number {
  let hash = 0;
  for (const char of text) hash = (hash * 31 + char.charCodeAt(0)) | 0;
  return hash;
}
