/**
 * The gateway behind our SignedOffchainResolver and the universal resolver, as production runs it: a whole
 * profile is ONE gateway request (ENSIP-22), and batch gateways carrying many users' lookups from one address are
 * not refused by a per-IP limit (the gateway has one global ceiling instead).
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Wallet } from 'ethers';
import request from 'supertest';
import {
  ChainProvider,
  decodeAddrResult,
  decodeTextResult,
  encodeAddrCall,
  encodeContenthashCall,
  encodeTextCall,
  resolverInterface,
  universalResolve,
} from '@nrp/chain';
import { dnsEncode } from '@nrp/ens';
import { localNetworkConfig, startEnsChain, type EnsChain } from '@nrp/testkit';
import { ALICE, startOffchainService, type OffchainService } from './helpers';

const SIGNER = new Wallet('0x' + '6b'.repeat(32));
const NAME = 'alice.offchain.eth';

describe('the gateway behind the universal resolver', () => {
  let chain: EnsChain;
  let svc: OffchainService;
  let server: Server;
  let provider: ChainProvider;
  let gatewayRequests = 0;

  beforeAll(async () => {
    chain = await startEnsChain();
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const resolver = await chain.ens.deployOffchainResolver(`${base}/api/v1/gateway/{sender}/{data}.json`, [
      SIGNER.address,
    ]);
    await chain.ens.registerEthName('offchain', chain.accounts[0]?.address ?? '', { resolver });
    // A per-IP limit of 10 a minute: the 100 lookups below come from one address and must still pass.
    svc = await startOffchainService({ GATEWAY_SIGNER_KEY: SIGNER.privateKey, RATE_LIMIT_PER_MINUTE: '10' });
    server.on('request', (req, res) => {
      if (req.url?.startsWith('/api/v1/gateway')) gatewayRequests++;
      svc.app(req, res);
    });
    const apiKey = await svc.keyFor('offchain.eth');
    await request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', apiKey)
      .send({
        parentName: 'offchain.eth',
        label: 'alice',
        owner: ALICE,
        texts: [
          { key: 'avatar', value: 'https://example.com/alice.png' },
          { key: 'description', value: 'offchain' },
        ],
        addresses: [{ coin: 60, value: ALICE }],
      })
      .expect(201);
    provider = new ChainProvider(
      // 100 profiles at once queue on one anvil and one embedded database: allow for it (nothing here is timed)
      localNetworkConfig(chain, { ccipReadAllowedOrigins: [base], rpcTimeoutMs: 60_000 }),
    );
  });

  afterAll(async () => {
    provider?.destroy();
    await new Promise((resolve) => server?.close(resolve));
    await svc?.close();
    await chain?.stop();
  });

  const profile = () =>
    universalResolve(provider, chain.contracts.universalResolver, NAME, [
      encodeTextCall(NAME, 'avatar'),
      encodeTextCall(NAME, 'description'),
      encodeTextCall(NAME, 'url'),
      encodeAddrCall(NAME, 60),
      encodeAddrCall(NAME, 0),
      encodeContenthashCall(NAME),
    ]);

  it('answers a whole profile with one gateway request', async () => {
    const before = gatewayRequests;
    const { results } = await profile();
    expect(gatewayRequests - before).toBe(1);
    expect(decodeTextResult(results[0] ?? null)).toBe('https://example.com/alice.png');
    expect(decodeTextResult(results[1] ?? null)).toBe('offchain');
    expect(decodeAddrResult(results[3] ?? null)).toBe(ALICE.toLowerCase());
  });

  it('serves 100 profiles in a burst from one address without a 429', async () => {
    const before = gatewayRequests;
    const answers = await Promise.all(Array.from({ length: 100 }, () => profile()));
    expect(gatewayRequests - before).toBe(100);
    expect(answers.every((a) => decodeTextResult(a.results[1] ?? null) === 'offchain')).toBe(true);
    // the per-IP limit still guards the other routes
    const statuses = [];
    for (let i = 0; i < 12; i++) statuses.push((await request(svc.app).get('/api/v1/subnames/x.eth')).status);
    expect(statuses).toContain(429);
  }, 120_000);

  it('has one global ceiling (GATEWAY_RATE_LIMIT_PER_MINUTE) for all clients together', async () => {
    const capped = await startOffchainService({
      GATEWAY_SIGNER_KEY: SIGNER.privateKey,
      GATEWAY_RATE_LIMIT_PER_MINUTE: '3',
      TRUST_PROXY: 'true',
    });
    try {
      const statuses = [];
      for (const [i, ip] of ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4'].entries()) {
        // A lookup of its own each, so none is answered from the cache.
        const name = `n${i}.offchain.eth`;
        const data = resolverInterface.encodeFunctionData('resolve', [
          dnsEncode(name),
          encodeTextCall(name, 'avatar'),
        ]);
        const res = await request(capped.app)
          .get(`/api/v1/gateway/${SIGNER.address}/${data}.json`)
          .set('x-forwarded-for', ip);
        statuses.push(res.status);
        if (res.status === 429) {
          expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
          expect(res.headers['retry-after']).toBeDefined();
        }
      }
      // three answered, the fourth refused, whatever its address
      expect(statuses).toEqual([200, 200, 200, 429]);
    } finally {
      await capped.close();
    }
  });
});
