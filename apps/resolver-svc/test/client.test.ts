import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  ServiceError,
  createResolverClient,
  resolverResponseSchemas,
  type ResolverClient,
} from '@nrp/client';
import {
  BTC_ADDRESS,
  IPFS_URI,
  startResolverService,
  startResolverFixture,
  type ResolverFixture,
  type ResolverService,
} from '../dev/fixture';

let fx: ResolverFixture;
let svc: ResolverService;
let server: Server;
let client: ResolverClient;

beforeAll(async () => {
  fx = await startResolverFixture();
  svc = await startResolverService(fx.env());
  server = await new Promise<Server>((resolve) => {
    const s = svc.app.listen(0, '127.0.0.1', () => resolve(s));
  });
  client = createResolverClient({
    baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    responseSchemas: resolverResponseSchemas,
  });
});
afterAll(async () => {
  await new Promise((resolve) => server?.close(resolve));
  await svc?.close();
  await fx?.stop();
});

describe('resolver client against resolver-svc on port 0', () => {
  it('getProfile with a selection and the contenthash', async () => {
    const profile = await client.getProfile('Alice.eth', {
      texts: ['name', 'url'],
      addresses: ['btc', 60],
      contenthash: true,
      network: 'sepolia',
    });
    expect(profile).toEqual({
      name: 'alice.eth',
      texts: [
        { key: 'name', exists: true, value: 'Alice' },
        { key: 'url', exists: false, value: '' },
      ],
      addresses: [
        { coin: 0, chain: 'btc', exists: true, value: BTC_ADDRESS },
        { coin: 60, chain: 'eth', exists: true, value: fx.accounts.alice },
      ],
      contenthash: { exists: true, value: IPFS_URI },
      resolver: expect.stringMatching(/^0x[0-9a-fA-F]{40}$/),
    });
  });

  it('getAddresses, getTexts, getChains', async () => {
    const addresses = await client.getAddresses('alice.eth', { coins: [60] });
    expect(addresses.addresses).toEqual([{ coin: 60, chain: 'eth', exists: true, value: fx.accounts.alice }]);
    const byChain = await client.getAddresses('alice.eth', { chains: ['btc'], noCache: true });
    expect(byChain.addresses[0]?.value).toBe(BTC_ADDRESS);
    const texts = await client.getTexts('alice.eth', { keys: ['description'] });
    expect(texts.texts).toEqual([{ key: 'description', exists: true, value: 'Alice in ENS land' }]);
    const chains = await client.getChains();
    expect(chains.chains.find((c) => c.chain === 'sol')?.coin).toBe(501);
  });

  it('getReverseProfile and the bulk calls', async () => {
    const reverse = await client.getReverseProfile(fx.accounts.alice, { texts: ['avatar'] });
    expect(reverse).toMatchObject({ hasReverseRecord: true, name: 'alice.eth', displayName: 'Alice' });
    const none = await client.getReverseProfile(fx.accounts.impostor);
    expect(none.hasReverseRecord).toBe(false);
    const bulk = await client.getProfiles(['alice.eth', 'a.eth'], { texts: ['name'] });
    expect(bulk.results.map((r) => r.type)).toEqual(['success', 'error']);
    const reverseBulk = await client.getReverseProfiles([fx.accounts.alice, fx.accounts.nobody], {
      addresses: ['eth'],
    });
    expect(reverseBulk.results).toEqual([
      expect.objectContaining({ type: 'success', reverse: expect.objectContaining({ name: 'alice.eth' }) }),
      expect.objectContaining({
        type: 'success',
        reverse: expect.objectContaining({ hasReverseRecord: false }),
      }),
    ]);
  });

  it('failures are ServiceErrors with the status, code and problem body', async () => {
    const invalid = await client.getProfile('alice..eth').catch((err: unknown) => err);
    expect(invalid).toBeInstanceOf(ServiceError);
    expect(invalid).toMatchObject({ status: 400, code: 'INVALID_NAME' });

    fx.gateway.setFault('http-500');
    try {
      const upstream = await client
        .getProfile('bob.offchain.eth', { noCache: true })
        .catch((err: unknown) => err);
      expect(upstream).toBeInstanceOf(ServiceError);
      expect(upstream).toMatchObject({
        status: 502,
        code: 'UPSTREAM_ERROR',
        body: { upstream: { code: 'OFFCHAIN_FAULT' } },
      });
    } finally {
      fx.gateway.setFault(null);
    }
  });
});
