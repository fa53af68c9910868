import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { encodeCursor } from '@nrp/api';
import { devChainEnv } from '@nrp/testkit';
import { until } from '@nrp/testkit/src/until';
// The real mint and offchain services, started in-process through their own test helpers.
import {
  accountAt,
  approveController,
  listDirect,
  mintArgs,
  sendMint,
  startMintTestEnv,
  walletAt,
  type MintTestEnv,
} from '../../mint-svc/test/helpers';
import { startTestService as startOffchainService, type TestService } from '../../offchain-svc/test/helpers';
import { SOURCE_PAGE_SIZE } from '../src/address-names';
import { startResolverService, type ResolverService } from '../dev/fixture';

async function listen(handler: RequestListener) {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe('GET /ens/v2/names/{address}: minted and offchain names of an address, merged', () => {
  let mint: MintTestEnv;
  let offchain: TestService;
  let servers: Server[] = [];
  let mintUrl: string;
  let offchainUrl: string;
  let resolver: ResolverService;
  let holder: string; // account 3: bob.idx.eth (minted, primary) and bob.offchain.eth
  let key: string;

  const resolverEnv = (overrides: Record<string, string> = {}) => ({
    LOG_LEVEL: 'silent',
    DEFAULT_NETWORK: 'sepolia',
    ...devChainEnv(mint.chain.contracts, mint.chain.anvil.rpcUrl),
    MAINNET_RPC_URL: 'http://127.0.0.1:9',
    RATE_LIMIT_PER_MINUTE: '1000000',
    NO_CACHE_RATE_LIMIT_PER_MINUTE: '1000000',
    MINT_URL: mintUrl,
    OFFCHAIN_URL: offchainUrl,
    NAMES_UPSTREAM_TIMEOUT_MS: '2000',
    ...overrides,
  });

  const createOffchain = (label: string, owner: string) =>
    request(offchain.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', key)
      .send({ parentName: 'offchain.eth', label, owner })
      .expect(201);

  beforeAll(async () => {
    mint = await startMintTestEnv({ INDEX_CONFIRMATIONS: '0', INDEX_INTERVAL_MS: '50' });
    offchain = await startOffchainService();
    const mintServer = await listen(mint.app);
    const offchainServer = await listen(offchain.app);
    servers = [mintServer.server, offchainServer.server];
    mintUrl = mintServer.url;
    offchainUrl = offchainServer.url;
    key = await offchain.keyFor('offchain.eth');

    holder = accountAt(mint.chain, 3).address;
    const parentOwner = accountAt(mint.chain, 1).address;
    await mint.chain.ens.registerEthName('idx', parentOwner);
    await approveController(mint, 1, false);
    await listDirect(mint, 'idx.eth', { paymentReceiver: parentOwner });
    const signed = await request(mint.app)
      .post('/api/v1/mint')
      .send({ isTestnet: true, parentName: 'idx.eth', label: 'bob', minterAddress: holder, expiryInYears: 1 })
      .expect(200);
    const total = BigInt(signed.body.content.price) + BigInt(signed.body.content.fee);
    await sendMint(mint, walletAt(mint, 3), mintArgs(signed.body), total);
    await mint.chain.ens.setAddr('bob.idx.eth', holder);
    await mint.chain.ens.setReverseName(accountAt(mint.chain, 3).privateKey, 'bob.idx.eth');
    await createOffchain('bob', holder);
    await until(
      async () =>
        (await request(mint.app).get('/api/v1/names').query({ network: 'sepolia', owner: holder })).body.items
          ?.length === 1,
      'bob.idx.eth indexed',
      30_000,
    );
    resolver = await startResolverService(resolverEnv());
  }, 240_000);
  afterAll(async () => {
    await resolver?.close();
    await Promise.all(servers.map((s) => new Promise((resolve) => s.close(resolve))));
    await offchain?.close();
    await mint?.stop();
  });

  it('lists the minted and the offchain names of the holder, marking the primary name', async () => {
    const res = await request(resolver.app).get(`/ens/v2/names/${holder}`).expect(200);
    expect(res.body).toEqual({
      address: holder,
      primaryName: 'bob.idx.eth',
      names: [
        {
          name: 'bob.idx.eth',
          source: 'minted',
          parentName: 'idx.eth',
          expiry: null,
          isPrimary: true,
        },
        { name: 'bob.offchain.eth', source: 'offchain', parentName: 'offchain.eth', isPrimary: false },
      ],
      nextCursor: null,
      partial: false,
      failedSources: [],
    });
    // The lower-case address is the same holder.
    const lower = await request(resolver.app).get(`/ens/v2/names/${holder.toLowerCase()}`).expect(200);
    expect(lower.body.names).toHaveLength(2);
  });

  it('an address with no names answers an empty page', async () => {
    const nobody = accountAt(mint.chain, 8).address;
    const res = await request(resolver.app).get(`/ens/v2/names/${nobody}`).expect(200);
    expect(res.body).toMatchObject({
      address: nobody,
      primaryName: null,
      names: [],
      nextCursor: null,
      partial: false,
    });
  });

  it('caches complete answers; noCache=true asks the sources again', async () => {
    const owner = accountAt(mint.chain, 7).address;
    await createOffchain('cached-1', owner);
    const first = await request(resolver.app).get(`/ens/v2/names/${owner}`).expect(200);
    expect(first.body.names.map((n: { name: string }) => n.name)).toEqual(['cached-1.offchain.eth']);
    expect(first.headers['cache-control']).toMatch(/max-age=\d+/);
    await createOffchain('cached-2', owner);
    const cached = await request(resolver.app).get(`/ens/v2/names/${owner}`).expect(200);
    expect(cached.body.names).toHaveLength(1);
    const fresh = await request(resolver.app).get(`/ens/v2/names/${owner}?noCache=true`).expect(200);
    expect(fresh.body.names.map((n: { name: string }) => n.name)).toEqual([
      'cached-1.offchain.eth',
      'cached-2.offchain.eth',
    ]);
  });

  it('pages through a source with more names than a page, with the opaque cursor', async () => {
    const owner = accountAt(mint.chain, 6).address;
    for (let i = 0; i <= SOURCE_PAGE_SIZE; i += 1)
      await createOffchain(`many-${String(i).padStart(3, '0')}`, owner);
    const first = await request(resolver.app).get(`/ens/v2/names/${owner}`).expect(200);
    expect(first.body.names).toHaveLength(SOURCE_PAGE_SIZE);
    expect(typeof first.body.nextCursor).toBe('string');
    const second = await request(resolver.app)
      .get(`/ens/v2/names/${owner}`)
      .query({ cursor: first.body.nextCursor })
      .expect(200);
    expect(second.body.names.map((n: { name: string }) => n.name)).toEqual([
      `many-${String(SOURCE_PAGE_SIZE).padStart(3, '0')}.offchain.eth`,
    ]);
    expect(second.body.nextCursor).toBeNull();
  });

  describe('one source down is reported in the answer, never a 5xx', () => {
    it('mint-svc unreachable: offchain names, partial, failedSources minted, the next page asks it again', async () => {
      const down = await startResolverService(resolverEnv({ MINT_URL: 'http://127.0.0.1:9' }));
      try {
        const res = await request(down.app).get(`/ens/v2/names/${holder}`).expect(200);
        expect(res.body).toMatchObject({
          partial: true,
          failedSources: ['minted'],
          names: [{ name: 'bob.offchain.eth', source: 'offchain' }],
        });
        expect(res.headers['cache-control']).toBe('no-cache');
        const retry = await request(down.app)
          .get(`/ens/v2/names/${holder}`)
          .query({ cursor: res.body.nextCursor })
          .expect(200);
        expect(retry.body).toMatchObject({ partial: true, failedSources: ['minted'], names: [] });
      } finally {
        await down.close();
      }
    });

    it('offchain-svc answering garbage: minted names, partial, failedSources offchain', async () => {
      const garbage = await listen((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>not json</html>');
      });
      const down = await startResolverService(resolverEnv({ OFFCHAIN_URL: garbage.url }));
      try {
        const res = await request(down.app).get(`/ens/v2/names/${holder}`).expect(200);
        expect(res.body).toMatchObject({
          partial: true,
          failedSources: ['offchain'],
          names: [{ name: 'bob.idx.eth', source: 'minted', isPrimary: true }],
        });
      } finally {
        await down.close();
        await new Promise((resolve) => garbage.server.close(resolve));
      }
    });
  });

  describe('bad input is 400 problem+json', () => {
    const cases: Array<[string, string]> = [
      ['an address that is not one', '/ens/v2/names/0x1234'],
      ['an unknown network', `/ens/v2/names/{holder}?network=base`],
      ['a cursor that is not base64url', `/ens/v2/names/{holder}?cursor=%25%25`],
      ['a cursor that is not ours', `/ens/v2/names/{holder}?cursor=${encodeCursor({ name: 'bob.idx.eth' })}`],
      ['an unknown parameter', `/ens/v2/names/{holder}?size=101`],
    ];
    it.each(cases)('%s', async (_what, path) => {
      const res = await request(resolver.app).get(path.replace('{holder}', holder)).expect(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body.status).toBe(400);
    });
  });
});
