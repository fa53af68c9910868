import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  CcipReadUrlRefusedError,
  ChainProvider,
  outboundUrlRefusal,
  checkOutboundUrl,
  isPrivateAddress,
  loadNetworksConfig,
} from '../src';

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
    ['https://127.0.0.1/{data}', /private/],
    ['https://2130706433/{data}', /127\.0\.0\.1 is a private/], // WHATWG URL canonicalises the number
    ['https://10.1.2.3/{data}', /private/],
    ['https://172.16.0.1/{data}', /private/],
    ['https://192.168.1.1/{data}', /private/],
    ['https://169.254.169.254/latest/meta-data', /private/],
    ['https://100.64.0.1/{data}', /private/],
    ['https://0.0.0.0/{data}', /private/],
    ['https://[::1]/{data}', /private/],
    ['https://[fe80::1]/{data}', /private/],
    ['https://[fd00::1]/{data}', /private/],
    ['https://[::ffff:127.0.0.1]/{data}', /private/],
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
    expect(outboundUrlRefusal('https://127.0.0.1:3003/{data}', policy)).toMatch(/private/);
  });

  it('isPrivateAddress: public addresses are not private', () => {
    expect(isPrivateAddress('8.8.8.8')).toBe(false);
    expect(isPrivateAddress('2606:4700:4700::1111')).toBe(false);
    expect(isPrivateAddress('::ffff:8.8.8.8')).toBe(false);
    expect(isPrivateAddress('::ffff:7f00:1')).toBe(true);
    expect(isPrivateAddress('not-an-ip')).toBe(false);
  });

  it('checkOutboundUrl: a host name that does not resolve passes (the fetch fails on its own)', async () => {
    expect(await checkOutboundUrl('https://gateway.invalid/{data}')).toBeNull();
    expect(await checkOutboundUrl('http://gateway.invalid/{data}')).toMatch(/only https/);
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
        message: expect.stringMatching(/redirect to .* not followed/),
      });
      expect(innerHits).toBe(0);
      expect(await p.ccipReadFetch(tx, '0x', ['http://10.0.0.1/{data}', `${inner}/{data}`])).toBe('0x99');
    } finally {
      p.destroy();
    }
  });
});
