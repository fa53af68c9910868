import request from 'supertest';
import { encodeCursor } from '@nrp/api';
import { startResolverService, type ResolverService } from '../dev/fixture';
import {
  ALPHA_DESCRIPTION,
  HOLDER_L2_NAMES,
  L2_PARENT,
  closeServer,
  listen,
  startNamesEnv,
  type NamesEnv,
} from './names-env';
import { accountAt } from '@nrp/testkit';

/** NAMES_PAGE_SIZE_PER_SOURCE's default. */
const DEFAULT_PAGE_SIZE = 50;

describe('GET /ens/v2/names/{address}: minted and offchain names of an address, merged', () => {
  let env: NamesEnv;
  let resolver: ResolverService;
  let holder: string;

  beforeAll(async () => {
    env = await startNamesEnv();
    holder = env.holder;
    resolver = await startResolverService(env.resolverEnv());
  }, 240_000);
  afterAll(async () => {
    await resolver?.close();
    await env?.close();
  });

  it('lists the L1 minted, the L2 minted and the offchain names of the holder, marking the primary name', async () => {
    const res = await request(resolver.app).get(`/ens/v2/names/${holder}`).expect(200);
    expect(res.body).toEqual({
      address: holder,
      primaryName: 'bob.idx.eth',
      names: [
        {
          name: 'bob.idx.eth',
          source: 'minted',
          parentName: 'idx.eth',
          network: 'sepolia',
          expiry: null,
          isPrimary: true,
        },
        ...HOLDER_L2_NAMES.map((name) => ({
          name,
          source: 'minted',
          parentName: L2_PARENT,
          network: 'base-sepolia',
          expiry: env.l2Expiries[name],
          isPrimary: false,
        })),
        { name: 'bob.offchain.eth', source: 'offchain', parentName: 'offchain.eth', isPrimary: false },
      ],
      nextCursor: null,
      partial: false,
      failedSources: [],
    });
    // The lower-case address is the same holder.
    const lower = await request(resolver.app).get(`/ens/v2/names/${holder.toLowerCase()}`).expect(200);
    expect(lower.body.names).toHaveLength(4);
  });

  it('an address with no names answers an empty page', async () => {
    const nobody = accountAt(env.mint.chain, 8).address;
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
    const owner = accountAt(env.mint.chain, 7).address;
    await env.createOffchain('cached-1', owner);
    const first = await request(resolver.app).get(`/ens/v2/names/${owner}`).expect(200);
    expect(first.body.names.map((n: { name: string }) => n.name)).toEqual(['cached-1.offchain.eth']);
    expect(first.headers['cache-control']).toMatch(/max-age=\d+/);
    await env.createOffchain('cached-2', owner);
    const cached = await request(resolver.app).get(`/ens/v2/names/${owner}`).expect(200);
    expect(cached.body.names).toHaveLength(1);
    const fresh = await request(resolver.app).get(`/ens/v2/names/${owner}?noCache=true`).expect(200);
    expect(fresh.body.names.map((n: { name: string }) => n.name)).toEqual([
      'cached-1.offchain.eth',
      'cached-2.offchain.eth',
    ]);
  });

  it('pages through a source with more names than a page, with the opaque cursor', async () => {
    const owner = accountAt(env.mint.chain, 6).address;
    for (let i = 0; i <= DEFAULT_PAGE_SIZE; i += 1)
      await env.createOffchain(`many-${String(i).padStart(3, '0')}`, owner);
    const first = await request(resolver.app).get(`/ens/v2/names/${owner}`).expect(200);
    expect(first.body.names).toHaveLength(DEFAULT_PAGE_SIZE);
    expect(typeof first.body.nextCursor).toBe('string');
    const second = await request(resolver.app)
      .get(`/ens/v2/names/${owner}`)
      .query({ cursor: first.body.nextCursor })
      .expect(200);
    expect(second.body.names.map((n: { name: string }) => n.name)).toEqual([
      `many-${String(DEFAULT_PAGE_SIZE).padStart(3, '0')}.offchain.eth`,
    ]);
    expect(second.body.nextCursor).toBeNull();
  });

  describe('one source down is reported in the answer, never a 5xx', () => {
    it('mint-svc unreachable: offchain names, partial, failedSources minted and mintedL2, the next page asks them again', async () => {
      const down = await startResolverService(env.resolverEnv({ MINT_URL: 'http://127.0.0.1:9' }));
      try {
        const res = await request(down.app).get(`/ens/v2/names/${holder}`).expect(200);
        expect(res.body).toMatchObject({
          partial: true,
          failedSources: ['minted', 'mintedL2'],
          names: [{ name: 'bob.offchain.eth', source: 'offchain' }],
        });
        expect(res.headers['cache-control']).toBe('no-cache');
        const retry = await request(down.app)
          .get(`/ens/v2/names/${holder}`)
          .query({ cursor: res.body.nextCursor })
          .expect(200);
        expect(retry.body).toMatchObject({ partial: true, failedSources: ['minted', 'mintedL2'], names: [] });
      } finally {
        await down.close();
      }
    });

    it('offchain-svc answering garbage: minted names, partial, failedSources offchain', async () => {
      const garbage = await listen((_req, res) => {
        res.writeHead(200, { 'content-type': 'text/html' });
        res.end('<html>not json</html>');
      });
      const down = await startResolverService(env.resolverEnv({ OFFCHAIN_URL: garbage.url }));
      try {
        const res = await request(down.app).get(`/ens/v2/names/${holder}`).expect(200);
        expect(res.body).toMatchObject({
          partial: true,
          failedSources: ['offchain'],
          names: [
            { name: 'bob.idx.eth', source: 'minted', network: 'sepolia', isPrimary: true },
            ...HOLDER_L2_NAMES.map((name) => ({ name, source: 'minted', network: 'base-sepolia' })),
          ],
        });
      } finally {
        await down.close();
        await closeServer(garbage.server);
      }
    });
  });

  describe('the names on the L2 settling on the network (base-sepolia for sepolia)', () => {
    const names = (res: { body: { names: Array<{ name: string; network?: string }> } }) =>
      res.body.names.map((n) => `${n.name}@${n.network ?? 'offchain'}`);

    it('pages across the three sources with a page of 1 name per source', async () => {
      const small = await startResolverService(env.resolverEnv({ NAMES_PAGE_SIZE_PER_SOURCE: '1' }));
      try {
        const first = await request(small.app).get(`/ens/v2/names/${holder}`).expect(200);
        expect(names(first)).toEqual([
          'bob.idx.eth@sepolia',
          'alpha.l2n.eth@base-sepolia',
          'bob.offchain.eth@offchain',
        ]);
        expect(first.body).toMatchObject({ primaryName: 'bob.idx.eth', partial: false, failedSources: [] });
        expect(typeof first.body.nextCursor).toBe('string');
        const second = await request(small.app)
          .get(`/ens/v2/names/${holder}`)
          .query({ cursor: first.body.nextCursor })
          .expect(200);
        expect(names(second)).toEqual(['beta.l2n.eth@base-sepolia']);
        expect(second.body).toMatchObject({ nextCursor: null, partial: false });
      } finally {
        await small.close();
      }
    });

    describe('through a proxy of mint-svc that records the networks asked', () => {
      // One mint-svc serves both indexes from one database: its L2 index alone failing cannot be produced for real,
      // so the proxy answers 503 for network=base-sepolia while `failL2` is set and forwards everything else.
      let proxy: Awaited<ReturnType<typeof listen>>;
      let viaProxy: ResolverService;
      let failL2 = false;
      const networksAsked: string[] = [];

      beforeAll(async () => {
        proxy = await listen((req, res) => {
          const network = new URL(req.url ?? '/', env.mintUrl).searchParams.get('network') ?? '';
          networksAsked.push(network);
          if (failL2 && network === 'base-sepolia') {
            res.writeHead(503, { 'content-type': 'application/problem+json' });
            res.end(JSON.stringify({ status: 503, title: 'Service Unavailable', code: 'NOT_READY' }));
            return;
          }
          void fetch(`${env.mintUrl}${req.url ?? '/'}`).then(async (upstream) => {
            res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? '' });
            res.end(Buffer.from(await upstream.arrayBuffer()));
          });
        });
        viaProxy = await startResolverService(env.resolverEnv({ MINT_URL: proxy.url }));
      });
      afterAll(async () => {
        await viaProxy?.close();
        if (proxy) await closeServer(proxy.server);
      });
      beforeEach(() => {
        networksAsked.length = 0;
        failL2 = false;
      });

      it('the L2 index failing: the L1 and offchain names, partial, failedSources mintedL2, the cursor asks it again', async () => {
        failL2 = true;
        const res = await request(viaProxy.app)
          .get(`/ens/v2/names/${holder}`)
          .query({ noCache: true })
          .expect(200);
        expect(names(res)).toEqual(['bob.idx.eth@sepolia', 'bob.offchain.eth@offchain']);
        expect(res.body).toMatchObject({
          primaryName: 'bob.idx.eth',
          partial: true,
          failedSources: ['mintedL2'],
        });
        expect(res.headers['cache-control']).toBe('no-cache');
        expect([...networksAsked].sort()).toEqual(['base-sepolia', 'sepolia']);
        failL2 = false;
        networksAsked.length = 0;
        const retry = await request(viaProxy.app)
          .get(`/ens/v2/names/${holder}`)
          .query({ cursor: res.body.nextCursor })
          .expect(200);
        expect(names(retry)).toEqual(HOLDER_L2_NAMES.map((n) => `${n}@base-sepolia`));
        expect(retry.body).toMatchObject({ nextCursor: null, partial: false, failedSources: [] });
        expect(networksAsked).toEqual(['base-sepolia']);
      });

      it('network=mainnet asks mainnet and base, never base-sepolia: no base-sepolia names', async () => {
        const res = await request(viaProxy.app)
          .get(`/ens/v2/names/${holder}`)
          .query({ network: 'mainnet' })
          .expect(200);
        expect(names(res)).toEqual(['bob.offchain.eth@offchain']);
        // The mainnet RPC of this test is down, so only the reverse lookup fails; both mint-svc indexes answered.
        expect(res.body).toMatchObject({ primaryName: null, failedSources: ['primaryName'] });
        expect([...networksAsked].sort()).toEqual(['base', 'mainnet']);
      });
    });
  });

  it('a name under a parent on ProvenL2Resolver: its profile is the records its holder set on the L2, proven', async () => {
    const res = await request(resolver.app)
      .get(`/ens/v2/profile/${HOLDER_L2_NAMES[0]}?texts=description,url&addresses=60`)
      .expect(200);
    expect(res.body.texts).toEqual([
      { key: 'description', exists: true, value: ALPHA_DESCRIPTION },
      { key: 'url', exists: false, value: '' },
    ]);
    expect(res.body.addresses).toEqual([{ coin: 60, chain: 'eth', exists: true, value: holder }]);
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
