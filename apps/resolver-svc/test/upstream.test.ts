import { createServer as createHttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { expectUpstreamProblem, startAnvil, startTcpProxy } from '@nrp/testkit';
import {
  startResolverService,
  startResolverFixture,
  type ResolverFixture,
  type ResolverService,
} from '../dev/fixture';

let fx: ResolverFixture;
let svc: ResolverService;

beforeAll(async () => {
  fx = await startResolverFixture();
  svc = await startResolverService(fx.env({ RPC_TIMEOUT_MS: '1000' }));
});
afterAll(async () => {
  await svc?.close();
  await fx?.stop();
});

describe('RPC node failures answer 502 UPSTREAM_ERROR, never 500, never a hang', () => {
  it('a killed node (SIGKILL by PID)', async () => {
    const anvil = await startAnvil();
    process.kill(anvil.pid, 'SIGKILL');
    await anvil.stop();
    const down = await startResolverService(
      fx.env({ SEPOLIA_RPC_URL: anvil.rpcUrl, CACHE_REDIS_PREFIX: `down${Date.now()}:` }),
    );
    try {
      const refused = await request(down.app).get('/ens/v2/profile/alice.eth');
      const upstream = expectUpstreamProblem(refused);
      // Nothing answered: which dependency failed, in our words; the socket code and address go to the logs.
      expect(upstream).toEqual({ code: 'UNREACHABLE', message: 'RPC node for sepolia unreachable' });
      expect(JSON.stringify(refused.body)).not.toMatch(/ECONNREFUSED|127\.0\.0\.1|:\d{4,5}\b/);
      expectUpstreamProblem(await request(down.app).get(`/ens/v2/reverse/${fx.accounts.alice}/profile`));
      expectUpstreamProblem(await request(down.app).get('/ens/v2/addresses/alice.eth'));
      expectUpstreamProblem(await request(down.app).get('/ens/v2/texts/alice.eth'));
      const bulk = await request(down.app).get('/ens/v2/profile/bulk?names=alice.eth,a.eth').expect(200);
      expect(bulk.body.results).toEqual([
        expect.objectContaining({
          type: 'error',
          input: 'alice.eth',
          status: 502,
          code: 'UPSTREAM_ERROR',
          upstream: expect.any(Object),
        }),
        expect.objectContaining({ type: 'error', input: 'a.eth', status: 400, code: 'INVALID_INPUT' }),
      ]);
      expect(bulk.headers['cache-control']).toBe('no-cache');
      const reverseBulk = await request(down.app)
        .get(`/ens/v2/reverse/bulk?addresses=${fx.accounts.alice}`)
        .expect(200);
      expect(reverseBulk.body.results[0]).toMatchObject({
        type: 'error',
        status: 502,
        code: 'UPSTREAM_ERROR',
      });
      const ready = await request(down.app).get('/ready').expect(503);
      expect(ready.body.checks['rpc:sepolia']).not.toBe('ok');
    } finally {
      await down.close();
    }
  });

  it('an RPC host name that does not resolve: 502 naming the RPC node, never the host or getaddrinfo', async () => {
    const unknown = await startResolverService(
      fx.env({ SEPOLIA_RPC_URL: 'http://rpc-host.invalid:8545', CACHE_REDIS_PREFIX: `dns${Date.now()}:` }),
    );
    try {
      const res = await request(unknown.app).get('/ens/v2/profile/alice.eth');
      expect(expectUpstreamProblem(res)).toEqual({
        code: 'UNREACHABLE',
        message: 'RPC node for sepolia unreachable',
      });
      expect(res.body.detail).toMatch(/RPC node for sepolia unreachable$/);
      expect(JSON.stringify(res.body)).not.toMatch(/rpc-host|getaddrinfo|ENOTFOUND|EAI_AGAIN/);
    } finally {
      await unknown.close();
    }
  });

  it('a node that accepts and never answers times out', async () => {
    const hole = await startTcpProxy();
    const slow = await startResolverService(
      fx.env({ SEPOLIA_RPC_URL: hole.url, RPC_TIMEOUT_MS: '300', CACHE_REDIS_PREFIX: `slow${Date.now()}:` }),
    );
    try {
      const started = Date.now();
      const upstream = expectUpstreamProblem(await request(slow.app).get('/ens/v2/profile/alice.eth'));
      expect(upstream.code).toBe('TIMEOUT');
      // One timeout, not one per retry or per call of the resolution (slack for a loaded machine).
      expect(Date.now() - started).toBeLessThan(300 + 1500);
    } finally {
      await slow.close();
      await hole.stop();
    }
  });

  it('a node that answers a JSON-RPC error: its message and code are passed on', async () => {
    const rpc = async (method: string, params: unknown[]) =>
      fetch(fx.chain.anvil.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      });
    // A block gas limit below any call's intrinsic gas: anvil answers every eth_call with an error.
    await rpc('anvil_setBlockGasLimit', ['0x5000']);
    await rpc('evm_mine', []);
    try {
      const upstream = expectUpstreamProblem(
        await request(svc.app).get('/ens/v2/profile/alice.eth?noCache=true'),
      );
      expect(upstream.code).toBe(-32000);
      expect(upstream.message).toMatch(/gas/i);
    } finally {
      await rpc('anvil_setBlockGasLimit', ['0x1c9c380']);
      await rpc('evm_mine', []);
    }
    await request(svc.app).get('/ens/v2/profile/alice.eth').expect(200);
  });

  it('the network parameter picks the network: mainnet has its own (here unreachable) RPC', async () => {
    const anvil = await startAnvil({ chainId: 1 });
    await anvil.stop();
    const both = await startResolverService(
      fx.env({ MAINNET_RPC_URL: anvil.rpcUrl, CACHE_REDIS_PREFIX: `net${Date.now()}:` }),
    );
    try {
      expectUpstreamProblem(await request(both.app).get('/ens/v2/profile/alice.eth?network=mainnet'));
      await request(both.app).get('/ens/v2/profile/alice.eth?network=sepolia').expect(200);
    } finally {
      await both.close();
    }
  });
});

describe('CCIP-Read gateway failures answer 502 UPSTREAM_ERROR and are not cached', () => {
  afterEach(() => fx.gateway.setFault(null));

  it.each([
    ['http-500', { code: 'OFFCHAIN_FAULT', message: expect.stringContaining('test gateway fault') }],
    ['garbage', { code: 'ResolverError', message: expect.stringMatching(/reverted/) }],
    ['bad-signature', { code: 'ResolverError', message: expect.stringMatching(/UntrustedSigner/) }],
    ['hang', { code: 'TIMEOUT', message: expect.stringMatching(/did not answer/) }],
  ] as const)('gateway fault %s', async (fault, expected) => {
    fx.gateway.setFault(fault);
    const upstream = expectUpstreamProblem(
      await request(svc.app).get('/ens/v2/profile/bob.offchain.eth?texts=name&noCache=true'),
    );
    expect(upstream).toEqual(expected);
    expectUpstreamProblem(
      await request(svc.app).get(`/ens/v2/reverse/${fx.accounts.bob}/profile?noCache=true`),
    );
    fx.gateway.setFault(null);
    const ok = await request(svc.app).get('/ens/v2/profile/bob.offchain.eth?texts=name').expect(200);
    expect(ok.body.texts).toEqual([{ key: 'name', exists: true, value: 'Bob' }]);
  });
});

describe('ENSIP-21 batch gateway failures answer 502 UPSTREAM_ERROR carrying the inner failure', () => {
  afterEach(() => fx.gateway.setFault(null));
  const path = '/ens/v2/profile/bob.legacy.eth?texts=name,description&addresses=eth&noCache=true';

  it('the batch runs in the service: one request per record, answered', async () => {
    const res = await request(svc.app).get(path).expect(200);
    expect(res.body.texts[0]).toEqual({ key: 'name', exists: true, value: 'Bob (batched)' });
  });

  it('a failing inner request', async () => {
    fx.gateway.setFault('http-500');
    const upstream = expectUpstreamProblem(await request(svc.app).get(path));
    expect(upstream).toEqual({ code: 'HttpError', message: expect.stringMatching(/gateway HTTP 500/) });
  });

  it('an inner URL the CCIP-Read URL policy refuses', async () => {
    const strict = await startResolverService(
      fx.env({ CCIP_READ_ALLOWED_ORIGINS: '', CACHE_REDIS_PREFIX: `strict${Date.now()}:` }),
    );
    try {
      const upstream = expectUpstreamProblem(await request(strict.app).get(path));
      expect(upstream.message).toMatch(/refused.*only https/);
    } finally {
      await strict.close();
    }
  });

  it('a remote batch gateway that answers garbage, or never answers', async () => {
    const hole = await startTcpProxy();
    const garbage = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data":"0x00"}');
    });
    await new Promise<void>((resolve) => garbage.listen(0, '127.0.0.1', resolve));
    const garbageUrl = `http://127.0.0.1:${(garbage.address() as AddressInfo).port}`;
    try {
      for (const gatewayUrl of [garbageUrl, hole.url]) {
        const remote = await startResolverService(
          fx.env({
            RPC_TIMEOUT_MS: '1000',
            BATCH_GATEWAY_URLS: `${gatewayUrl}/batch`,
            CCIP_READ_ALLOWED_ORIGINS: `http://127.0.0.1:${fx.gateway.port},${gatewayUrl}`,
            CACHE_REDIS_PREFIX: `remote${Date.now()}:`,
          }),
        );
        try {
          expectUpstreamProblem(await request(remote.app).get(path));
        } finally {
          await remote.close();
        }
      }
    } finally {
      await hole.stop();
      await new Promise((resolve) => garbage.close(resolve));
    }
  });
});
