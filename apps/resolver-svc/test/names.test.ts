import request from 'supertest';
import { encodeCursor } from '@nrp/api';
import { accountAt } from '../../mint-svc/test/helpers';
import { startResolverService, type ResolverService } from '../dev/fixture';
import { HOLDER_L2_NAMES, L2_PARENT, closeServer, listen, startNamesEnv, type NamesEnv } from './names-env';

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
