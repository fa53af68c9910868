import { lookup } from 'node:dns/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { hostname } from 'node:os';
import {
  CcipReadUrlRefusedError,
  ChainProvider,
  NON_PUBLIC_ADDRESS,
  OutboundNoAnswerError,
  OutboundTooLargeError,
  OutboundUrlRefusedError,
  isPublicAddress,
  normaliseOrigin,
  outboundRequest,
  outboundUrlRefusal,
  parseOutboundJson,
  publicOnlyLookup,
  loadNetworksConfig,
} from '../src';

/** One address of every IANA special-purpose range (and multicast, site-local, outside 2000::/3). */
const SPECIAL_PURPOSE = [
  '0.0.0.0',
  '0.1.2.3',
  '10.1.2.3',
  '100.64.0.1',
  '100.127.255.254',
  '127.0.0.1',
  '127.255.255.254',
  '169.254.169.254',
  '172.16.0.1',
  '172.31.255.254',
  '192.0.0.8',
  '192.0.0.170',
  '192.0.2.2',
  '192.31.196.1',
  '192.52.193.1',
  '192.88.99.1',
  '192.168.1.1',
  '192.175.48.1',
  '198.18.0.1',
  '198.19.255.254',
  '198.51.100.7',
  '203.0.113.9',
  '224.0.0.1',
  '239.255.255.250',
  '240.0.0.1',
  '255.255.255.255',
  '::',
  '::1',
  'fc00::1',
  'fd12:3456::1',
  'fe80::1',
  'febf::1',
  'fec0::1',
  'ff02::1',
  '100::1',
  '64:ff9b:1::1',
  '5f00::1',
  '2001:2::1',
  '2001:db8::1',
  '2001:10::1',
  '2001:20::1',
  '2620:4f:8000::1',
  '3fff::1',
  '4000::1',
];

/** IPv4 embedded in IPv6, judged by the embedded address: [embedding of 127.0.0.1, same embedding of 8.8.8.8]. */
const EMBEDDED = [
  ['::ffff:127.0.0.1', '::ffff:8.8.8.8'], // IPv4-mapped
  ['::ffff:7f00:1', '::ffff:808:808'],
  ['::ffff:0:127.0.0.1', '::ffff:0:8.8.8.8'], // IPv4-translated
  ['::127.0.0.1', '::8.8.8.8'], // IPv4-compatible
  ['::7f00:1', '::808:808'],
  ['64:ff9b::127.0.0.1', '64:ff9b::8.8.8.8'], // NAT64
  ['64:ff9b::a00:1', '64:ff9b::808:808'],
  ['2002:7f00:1::1', '2002:808:808::1'], // 6to4
  ['2002:c000:202::', '2002:808:808::'],
  // Teredo: server 8.8.8.8 or 127.0.0.1, client XOR 0xffffffff (f7f7:f7f7 = 8.8.8.8, 80ff:fffe = 127.0.0.1)
  ['2001:0:808:808::80ff:fffe', '2001:0:808:808::f7f7:f7f7'],
  ['2001:0:7f00:1::f7f7:f7f7', '2001:0:808:808::f7f7:f7f7'],
] as const;

describe('isPublicAddress', () => {
  it.each(SPECIAL_PURPOSE)('%s is a special-purpose address', (address) => {
    expect(isPublicAddress(address)).toBe(false);
    expect(outboundUrlRefusal(`https://${address.includes(':') ? `[${address}]` : address}/x`)).toMatch(
      /not a public address/,
    );
  });

  it.each(EMBEDDED)('%s is judged by its embedded IPv4 address (%s is public)', (special, publicOne) => {
    expect(isPublicAddress(special)).toBe(false);
    expect(isPublicAddress(publicOne)).toBe(true);
    expect(outboundUrlRefusal(`https://[${special}]/x`)).toMatch(/not a public address/);
    expect(outboundUrlRefusal(`https://[${publicOne}]/x`)).toBeNull();
  });

  it.each([
    '8.8.8.8',
    '1.1.1.1',
    '100.63.255.255',
    '100.128.0.0',
    '172.15.255.255',
    '172.32.0.0',
    '192.0.1.1',
    '192.0.3.1',
    '198.17.255.255',
    '198.20.0.0',
    '223.255.255.255',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
    '2001:4860:4860::8888',
    '2001:200::1',
  ])('%s is public', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('anything that is not an IP address is not public', () => {
    expect(isPublicAddress('not-an-ip')).toBe(false);
    expect(isPublicAddress('')).toBe(false);
    expect(isPublicAddress('[::1]')).toBe(false);
  });
});

describe('outboundUrlRefusal', () => {
  it.each([
    'https://gateway.example.com/{sender}/{data}.json',
    'https://ccip.ens.xyz/lookup/{sender}/{data}',
    'https://8.8.8.8/{data}',
    'https://[2606:4700:4700::1111]/{data}',
  ])('allows %s', (url) => {
    expect(outboundUrlRefusal(url)).toBeNull();
  });

  it.each([
    ['http://gateway.example.com/{data}', /only https/],
    ['ftp://gateway.example.com/{data}', /only https/],
    ['https://localhost/{data}', /loopback host/],
    ['https://LOCALHOST./{data}', /loopback host/],
    ['https://api.localhost:8443/{data}', /loopback host/],
    ['https://127.0.0.1/{data}', /not a public address/],
    ['https://2130706433/{data}', /127\.0\.0\.1 is not a public/], // WHATWG URL canonicalises the number
    ['https://0x7f.1/{data}', /127\.0\.0\.1 is not a public/],
    ['https://192.0.2.2:4001/hook', /192\.0\.2\.2 is not a public/],
    ['https://[::127.0.0.1]/{data}', /not a public address/],
    ['https://[::ffff:0:127.0.0.1]/{data}', /not a public address/],
    ['https://[64:ff9b::127.0.0.1]/{data}', /not a public address/],
    ['https://[fec0::1]/{data}', /not a public address/],
    ['not a url', /not a valid URL/],
  ])('refuses %s', (url, reason) => {
    expect(outboundUrlRefusal(url)).toMatch(reason);
  });

  it('an allow-listed origin passes whatever its scheme and host; only that exact origin', () => {
    const policy = { allowedOrigins: ['http://127.0.0.1:3003'] };
    expect(
      outboundUrlRefusal('http://127.0.0.1:3003/api/v1/gateway/{sender}/{data}.json', policy),
    ).toBeNull();
    expect(outboundUrlRefusal('http://127.0.0.1:3004/{data}', policy)).toMatch(/only https/);
    expect(outboundUrlRefusal('https://127.0.0.1:3003/{data}', policy)).toMatch(/not a public/);
    expect(outboundUrlRefusal('http://127.0.0.1.nip.io:3003/{data}', policy)).toMatch(/only https/);
    expect(outboundUrlRefusal('http://127.0.0.1:3003@evil.example/{data}', policy)).toMatch(/only https/);
  });

  it('an allowed origin is exactly an origin: a path, query, fragment or user info is refused, not widened', () => {
    expect(normaliseOrigin(' http://127.0.0.1:3003/ ')).toBe('http://127.0.0.1:3003');
    expect(normaliseOrigin('https://Gateway.Example:443')).toBe('https://gateway.example');
    for (const value of [
      'http://127.0.0.1:3003/gateway',
      'http://127.0.0.1:3003/?x=1',
      'http://127.0.0.1:3003/#x',
      'http://127.0.0.1:3003?',
      'http://user@127.0.0.1:3003',
      'ftp://127.0.0.1',
    ]) {
      expect(() => normaliseOrigin(value)).toThrow(/origin/);
    }
  });
});

describe('publicOnlyLookup', () => {
  it('refuses a host name that resolves to a loopback address (the socket connects to checked addresses only)', async () => {
    const refused = await new Promise<NodeJS.ErrnoException | null>((resolve) =>
      publicOnlyLookup('localhost', {}, (err) => resolve(err)),
    );
    expect(refused?.code).toBe(NON_PUBLIC_ADDRESS);
    expect(refused?.message).toMatch(/localhost resolves to (127\.0\.0\.1|::1)/);
  });
});

describe('outboundRequest', () => {
  let server: Server;
  let origin: string;
  let connections = 0;
  beforeAll(async () => {
    server = createServer((req, res) => {
      if (req.url === '/big') return res.end(Buffer.alloc(5000, 1));
      if (req.url === '/deep') return res.end('['.repeat(40) + ']'.repeat(40));
      res.writeHead(req.url === '/moved' ? 302 : 200, { location: '/x' }).end('{"ok":true}');
    });
    server.on('connection', () => connections++);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => server.close(resolve)));
  const signal = () => AbortSignal.timeout(2000);

  it('answers an allowed origin, bounded; redirects are answered, not followed', async () => {
    const policy = { allowedOrigins: [origin] };
    const ok = await outboundRequest(`${origin}/ok`, { policy, signal: signal(), maxBytes: 100 });
    expect(ok.status).toBe(200);
    expect(parseOutboundJson(ok.body)).toEqual({ ok: true });
    const moved = await outboundRequest(`${origin}/moved`, { policy, signal: signal(), maxBytes: 100 });
    expect(moved).toMatchObject({ status: 302, headers: { location: '/x' } });
    await expect(
      outboundRequest(`${origin}/big`, { policy, signal: signal(), maxBytes: 1000 }),
    ).rejects.toBeInstanceOf(OutboundTooLargeError);
    const deep = await outboundRequest(`${origin}/deep`, { policy, signal: signal(), maxBytes: 1000 });
    expect(() => parseOutboundJson(deep.body)).toThrow(/deeper than 32/);
    // Brackets inside strings (escaped quotes included) are not nesting.
    const text = JSON.stringify({ a: `"${'['.repeat(40)}` });
    expect(parseOutboundJson(Buffer.from(text))).toEqual({ a: `"${'['.repeat(40)}` });
  });

  it('refuses by the URL text, and answers "no answer" alike for a closed port and a name resolving to a private address', async () => {
    await expect(
      outboundRequest(`${origin}/ok`, { policy: {}, signal: signal(), maxBytes: 100 }),
    ).rejects.toBeInstanceOf(OutboundUrlRefusedError);
    const before = connections;
    // This machine's host name resolves to one of its own (non-public) addresses; the socket refuses it.
    const own = await lookup(hostname());
    expect(isPublicAddress(own.address)).toBe(false);
    const port = (server.address() as AddressInfo).port;
    const pinned: unknown = await outboundRequest(`https://${hostname()}:${port}/ok`, {
      policy: {},
      signal: signal(),
      maxBytes: 100,
    }).catch((e: unknown) => e);
    expect(pinned).toBeInstanceOf(OutboundNoAnswerError);
    expect((pinned as Error).message).toBe('no answer');
    expect(((pinned as Error).cause as { code?: string }).code).toBe(NON_PUBLIC_ADDRESS);
    expect(connections).toBe(before);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedOrigin = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise((resolve) => closed.close(resolve));
    const refused: unknown = await outboundRequest(`${closedOrigin}/x`, {
      policy: { allowedOrigins: [closedOrigin] },
      signal: signal(),
      maxBytes: 100,
    }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OutboundNoAnswerError);
    expect((refused as Error).message).toBe('no answer');
  });
});

describe('CCIP_READ_ALLOWED_ORIGINS', () => {
  it('is a comma-separated list of origins, normalised; unset is none', () => {
    expect(loadNetworksConfig({}).sepolia.ccipReadAllowedOrigins).toEqual([]);
    const config = loadNetworksConfig({
      CCIP_READ_ALLOWED_ORIGINS: ' http://127.0.0.1:3003/ , https://Gateway.Example:443,,',
    });
    expect(config.sepolia.ccipReadAllowedOrigins).toEqual([
      'http://127.0.0.1:3003',
      'https://gateway.example',
    ]);
    expect(config.mainnet.ccipReadAllowedOrigins).toEqual(config.sepolia.ccipReadAllowedOrigins);
    expect(() => loadNetworksConfig({ CCIP_READ_ALLOWED_ORIGINS: 'ftp://x' })).toThrow(
      /CCIP_READ_ALLOWED_ORIGINS/,
    );
    expect(() => loadNetworksConfig({ CCIP_READ_ALLOWED_ORIGINS: 'http://127.0.0.1:3003/api' })).toThrow(
      /CCIP_READ_ALLOWED_ORIGINS/,
    );
  });
});

describe('ChainProvider.ccipReadFetch under the policy', () => {
  const servers: Server[] = [];
  const hits: string[] = [];

  async function serve(handler: Parameters<typeof createServer>[1]): Promise<string> {
    const server = createServer(handler);
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  afterAll(async () => {
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
  });

  function provider(allowed: string[]): ChainProvider {
    const config = loadNetworksConfig({
      SEPOLIA_RPC_URL: 'http://127.0.0.1:9',
      RPC_TIMEOUT_MS: '2000',
      CCIP_READ_ALLOWED_ORIGINS: allowed.join(','),
    }).sepolia;
    return new ChainProvider(config);
  }

  const tx = { to: '0x000000000000000000000000000000000000dEaD' };

  it('fetches an allow-listed gateway (GET with {data}, POST without)', async () => {
    const origin = await serve((req, res) => {
      hits.push(`${req.method} ${req.url}`);
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ data: '0x1234' }));
    });
    const p = provider([origin]);
    try {
      expect(await p.ccipReadFetch(tx, '0xABCD', [`${origin}/{sender}/{data}.json`])).toBe('0x1234');
      expect(await p.ccipReadFetch(tx, '0xabcd', [`${origin}/post`])).toBe('0x1234');
      expect(hits).toEqual([`GET /0x000000000000000000000000000000000000dead/0xabcd.json`, 'POST /post']);
    } finally {
      p.destroy();
    }
  });

  it('refuses every URL outside the policy without fetching it', async () => {
    let asked = 0;
    const origin = await serve((_req, res) => {
      asked++;
      res.end('{"data":"0x12"}');
    });
    const p = provider([]);
    try {
      const err: unknown = await p.ccipReadFetch(tx, '0x', [`${origin}/{data}`]).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(CcipReadUrlRefusedError);
      expect(err).toMatchObject({
        code: 'CCIP_READ_URL_REFUSED',
        message: expect.stringMatching(
          /^CCIP-Read gateway URL refused: http:\/\/127\.0\.0\.1:\d+\/\{data\} \(only https/,
        ),
      });
      expect(asked).toBe(0);
    } finally {
      p.destroy();
    }
  });

  it('skips refused URLs and uses the allowed ones; a redirect is not followed', async () => {
    let innerHits = 0;
    const inner = await serve((_req, res) => {
      innerHits++;
      res.end('{"data":"0x99"}');
    });
    const redirecting = await serve((_req, res) => {
      res.writeHead(302, { location: `${inner}/x` });
      res.end();
    });
    const p = provider([redirecting, inner]);
    try {
      const err: unknown = await p
        .ccipReadFetch(tx, '0x', ['http://10.0.0.1/{data}', `${redirecting}/{data}`])
        .catch((e: unknown) => e);
      expect(err).toMatchObject({
        code: 'OFFCHAIN_FAULT',
        message: expect.stringMatching(/HTTP 302: redirect not followed/),
      });
      expect(innerHits).toBe(0);
      expect(await p.ccipReadFetch(tx, '0x', ['http://10.0.0.1/{data}', `${inner}/{data}`])).toBe('0x99');
    } finally {
      p.destroy();
    }
  });
});
