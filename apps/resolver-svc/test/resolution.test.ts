import request from 'supertest';
import { getAddress } from 'ethers';
import { chainByName } from '@nrp/ens';
import { DEFAULT_CHAINS, DEFAULT_TEXT_KEYS, WELL_KNOWN_TEXT_KEYS } from '../src/resolution/records';
import {
  BASE_COIN,
  BTC_ADDRESS,
  BTC_LEGACY,
  IPFS_URI,
  SOL_ADDRESS,
  startResolverService,
  startResolverFixture,
  type ResolverFixture,
  type ResolverService,
} from '../dev/fixture';

interface TextItem {
  key: string;
  exists: boolean;
  value: string;
}
interface AddressItem {
  coin: number;
  chain: string;
  exists: boolean;
  value: string;
}

const text = (body: { texts: TextItem[] }, key: string) => body.texts.find((t) => t.key === key);
const addr = (body: { addresses: AddressItem[] }, chain: string) =>
  body.addresses.find((a) => a.chain === chain);

/** The `i`-th upper/lower case spelling of `word`. */
function caseVariant(word: string, i: number): string {
  return [...word].map((ch, bit) => ((i >> bit) & 1 ? ch.toUpperCase() : ch)).join('');
}

let fx: ResolverFixture;
let svc: ResolverService;

beforeAll(async () => {
  fx = await startResolverFixture();
  svc = await startResolverService({ ...fx.env(), METADATA_PUBLIC_URL: 'https://metadata.example/' });
});
afterAll(async () => {
  await svc?.close();
  await fx?.stop();
});

describe('GET /ens/v2/profile/{name}', () => {
  it('lists the 12 default texts and 8 default chains, decoded, with exists flags; no contenthash by default', async () => {
    const res = await request(svc.app).get('/ens/v2/profile/alice.eth').expect(200);
    expect(res.body.name).toBe('alice.eth');
    expect(res.body.texts.map((t: TextItem) => t.key)).toEqual(DEFAULT_TEXT_KEYS);
    expect(res.body.addresses.map((a: AddressItem) => a.chain)).toEqual(DEFAULT_CHAINS);
    expect(text(res.body, 'avatar')).toEqual({
      key: 'avatar',
      exists: true,
      value: 'https://example.com/alice.png',
    });
    expect(text(res.body, 'com.twitter')?.value).toBe('alice');
    expect(text(res.body, 'url')).toEqual({ key: 'url', exists: false, value: '' });
    expect(addr(res.body, 'eth')).toEqual({ coin: 60, chain: 'eth', exists: true, value: fx.accounts.alice });
    expect(addr(res.body, 'btc')).toEqual({ coin: 0, chain: 'btc', exists: true, value: BTC_ADDRESS });
    expect(addr(res.body, 'sol')).toEqual({ coin: 501, chain: 'sol', exists: true, value: SOL_ADDRESS });
    // stored lowercase, answered EIP-55 checksummed
    expect(addr(res.body, 'base')).toEqual({
      coin: BASE_COIN,
      chain: 'base',
      exists: true,
      value: fx.accounts.alice,
    });
    expect(addr(res.body, 'op')).toEqual({
      coin: chainByName('op')?.coinType,
      chain: 'op',
      exists: false,
      value: '',
    });
    expect(res.body.contenthash).toBeUndefined();
    expect(res.body.resolver).toBe(getAddress(fx.chain.contracts.publicResolver));
    expect(res.headers['cache-control']).toMatch(/^public, max-age=(29\d|300)$/);
  });

  it('decodes the contenthash to its URI with contenthash=true', async () => {
    const res = await request(svc.app).get('/ens/v2/profile/alice.eth?contenthash=true').expect(200);
    expect(res.body.contenthash).toEqual({ exists: true, value: IPFS_URI });
  });

  it('answers exactly the selected texts and addresses (chain names and coin types), in order', async () => {
    const res = await request(svc.app)
      .get('/ens/v2/profile/alice.eth?texts=com.twitter,avatar,nope&addresses=btc,60,501,BASE')
      .expect(200);
    expect(res.body.texts).toEqual([
      { key: 'com.twitter', exists: true, value: 'alice' },
      { key: 'avatar', exists: true, value: 'https://example.com/alice.png' },
      { key: 'nope', exists: false, value: '' },
    ]);
    expect(res.body.addresses.map((a: AddressItem) => [a.coin, a.exists])).toEqual([
      [0, true],
      [60, true],
      [501, true],
      [BASE_COIN, true],
    ]);
  });

  it('normalises the input name (ENSIP-15)', async () => {
    const res = await request(svc.app).get('/ens/v2/profile/ALICE.eth?texts=name').expect(200);
    expect(res.body.name).toBe('alice.eth');
    expect(res.body.texts).toEqual([{ key: 'name', exists: true, value: 'Alice' }]);
  });

  it('a name without resolver, an unknown name and a subname under a non-wildcard resolver: all records unset', async () => {
    for (const name of ['noresolver.eth', 'neverregistered.eth', 'sub.alice.eth']) {
      const res = await request(svc.app).get(`/ens/v2/profile/${name}?contenthash=true`).expect(200);
      expect(res.body.name).toBe(name);
      expect(res.body.resolver).toBeUndefined();
      expect(res.body.texts.every((t: TextItem) => !t.exists && t.value === '')).toBe(true);
      expect(res.body.addresses.every((a: AddressItem) => !a.exists && a.value === '')).toBe(true);
      expect(res.body.contenthash).toEqual({ exists: false, value: '' });
    }
  });

  it('resolves offchain through CCIP-Read with the resolver on the parent (ENSIP-10 wildcard)', async () => {
    const res = await request(svc.app).get('/ens/v2/profile/bob.offchain.eth?contenthash=true').expect(200);
    expect(res.body.resolver).toBe(getAddress(fx.offchainResolver));
    expect(text(res.body, 'description')).toEqual({
      key: 'description',
      exists: true,
      value: 'Bob, offchain',
    });
    expect(addr(res.body, 'eth')?.value).toBe(fx.accounts.bob);
    expect(addr(res.body, 'btc')?.value).toBe(BTC_LEGACY);
    expect(addr(res.body, 'sol')?.exists).toBe(false);
    expect(res.body.contenthash).toEqual({ exists: true, value: IPFS_URI });
  });

  it.each([
    ['a.eth', 'INVALID_INPUT', 'params.name'],
    [`${'a'.repeat(253)}.eth`, 'INVALID_INPUT', 'params.name'],
    ['alice..eth', 'INVALID_NAME', 'params.name'],
    ['ali\u0000ce.eth', 'INVALID_NAME', 'params.name'],
  ])('rejects the name %j with %s', async (name, code, path) => {
    const res = await request(svc.app)
      .get(`/ens/v2/profile/${encodeURIComponent(name)}`)
      .expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.code).toBe(code);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
  });

  it.each([
    ['noCache=maybe', 'query.noCache'],
    ['contenthash=yes', 'query.contenthash'],
    ['network=goerli', 'query.network'],
    ['addresses=eth,dogechain', 'query.addresses.1'],
    ['addresses=4294967296', 'query.addresses.0'],
    ['addresses=', 'query.addresses'],
    [`addresses=${Array.from({ length: 51 }, (_, i) => i).join(',')}`, 'query.addresses'],
    [`texts=${Array.from({ length: 51 }, (_, i) => `k${i}`).join(',')}`, 'query.texts'],
    [`texts=${'k'.repeat(257)}`, 'query.texts.0'],
  ])('rejects the query %s naming %s', async (query, path) => {
    const res = await request(svc.app).get(`/ens/v2/profile/alice.eth?${query}`).expect(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });
});

describe('GET /ens/v2/addresses/{name}', () => {
  it('answers the 8 default chains without a filter', async () => {
    const res = await request(svc.app).get('/ens/v2/addresses/alice.eth').expect(200);
    expect(Object.keys(res.body)).toEqual(['name', 'addresses']);
    expect(res.body.addresses.map((a: AddressItem) => a.chain)).toEqual(DEFAULT_CHAINS);
  });

  it('filters by coin types and by chain names', async () => {
    const byCoin = await request(svc.app).get('/ens/v2/addresses/alice.eth?coins=0,60').expect(200);
    expect(byCoin.body.addresses).toEqual([
      { coin: 0, chain: 'btc', exists: true, value: BTC_ADDRESS },
      { coin: 60, chain: 'eth', exists: true, value: fx.accounts.alice },
    ]);
    const byChain = await request(svc.app).get('/ens/v2/addresses/alice.eth?chains=sol,base,arb').expect(200);
    expect(byChain.body.addresses.map((a: AddressItem) => [a.chain, a.value])).toEqual([
      ['sol', SOL_ADDRESS],
      ['base', fx.accounts.alice],
      ['arb', ''],
    ]);
  });

  it('names an unlisted coin type by its address-encoder name, or leaves it empty', async () => {
    const res = await request(svc.app).get('/ens/v2/addresses/alice.eth?coins=128,999999').expect(200);
    expect(res.body.addresses).toEqual([
      { coin: 128, chain: 'xmr', exists: false, value: '' },
      { coin: 999999, chain: '', exists: false, value: '' },
    ]);
  });

  it.each([
    ['coins=60&chains=eth', 'query.chains'],
    ['chains=eth,nochain', 'query.chains.1'],
    ['coins=abc', 'query.coins.0'],
    ['coins=-1', 'query.coins.0'],
    // 51 distinct spellings of one chain (names are case-insensitive)
    [`chains=${Array.from({ length: 51 }, (_, i) => caseVariant('ethereum', i)).join(',')}`, 'query.chains'],
    ['noCache=2', 'query.noCache'],
  ])('rejects %s naming %s', async (query, path) => {
    const res = await request(svc.app).get(`/ens/v2/addresses/alice.eth?${query}`).expect(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });
});

describe('a resolver without the record functions', () => {
  it.each([
    '/ens/v2/addresses/bare.eth?chains=btc',
    '/ens/v2/texts/bare.eth?keys=description',
    '/ens/v2/addresses/bare.eth?chains=eth,btc',
    '/ens/v2/profile/bare.eth?texts=description&addresses=eth',
  ])('%s: the records are unset, not an upstream failure (ResolverError(0x))', async (path) => {
    const res = await request(svc.app).get(`${path}&noCache=true`).expect(200);
    const records = [...(res.body.texts ?? []), ...(res.body.addresses ?? [])] as Array<{ exists: boolean }>;
    expect(records.length).toBeGreaterThan(0);
    expect(records.every((r) => !r.exists)).toBe(true);
  });
});

describe('GET /ens/v2/texts/{name}', () => {
  it('answers the selected keys', async () => {
    const res = await request(svc.app).get('/ens/v2/texts/alice.eth?keys=description,email').expect(200);
    expect(res.body).toEqual({
      name: 'alice.eth',
      texts: [
        { key: 'description', exists: true, value: 'Alice in ENS land' },
        { key: 'email', exists: false, value: '' },
      ],
    });
  });

  it('answers every well-known key without keys', async () => {
    const res = await request(svc.app).get('/ens/v2/texts/alice.eth').expect(200);
    expect(res.body.texts.map((t: TextItem) => t.key)).toEqual(WELL_KNOWN_TEXT_KEYS);
    expect(res.body.texts.filter((t: TextItem) => t.exists).map((t: TextItem) => t.key)).toEqual([
      'avatar',
      'name',
      'description',
      'com.twitter',
    ]);
  });

  it.each([
    ['keys=', 'query.keys'],
    [`keys=${'x'.repeat(300)}`, 'query.keys.0'],
    ['keys=a%01b', 'query.keys.0'],
  ])('rejects %s naming %s', async (query, path) => {
    const res = await request(svc.app).get(`/ens/v2/texts/alice.eth?${query}`).expect(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });
});

describe('GET /ens/v2/reverse/{address}/profile', () => {
  it('answers the verified primary name with its profile (contenthash by default)', async () => {
    const res = await request(svc.app)
      .get(`/ens/v2/reverse/${fx.accounts.alice.toLowerCase()}/profile`)
      .expect(200);
    expect(res.body).toMatchObject({
      address: fx.accounts.alice,
      hasReverseRecord: true,
      name: 'alice.eth',
      avatar: 'https://example.com/alice.png',
      avatarUrl: 'https://metadata.example/sepolia/avatar/alice.eth',
      displayName: 'Alice',
      description: 'Alice in ENS land',
    });
    expect(res.body.profile.name).toBe('alice.eth');
    expect(res.body.profile.texts.map((t: TextItem) => t.key)).toEqual(DEFAULT_TEXT_KEYS);
    expect(res.body.profile.contenthash).toEqual({ exists: true, value: IPFS_URI });
    expect(res.headers['cache-control']).toMatch(/^public, max-age=\d+$/);
  });

  it('keeps the summary fields when the selection leaves their keys out, lists only the selected ones', async () => {
    const res = await request(svc.app)
      .get(`/ens/v2/reverse/${fx.accounts.alice}/profile?texts=com.twitter&addresses=eth&contenthash=false`)
      .expect(200);
    expect(res.body.displayName).toBe('Alice');
    expect(res.body.profile.texts).toEqual([{ key: 'com.twitter', exists: true, value: 'alice' }]);
    expect(res.body.profile.addresses).toEqual([
      { coin: 60, chain: 'eth', exists: true, value: fx.accounts.alice },
    ]);
    expect(res.body.profile.contenthash).toBeUndefined();
  });

  it('does not count a reverse record whose name does not resolve back to the address', async () => {
    const res = await request(svc.app).get(`/ens/v2/reverse/${fx.accounts.impostor}/profile`).expect(200);
    expect(res.body).toEqual({
      address: fx.accounts.impostor,
      coinType: 60,
      hasReverseRecord: false,
      name: null,
      avatar: null,
      avatarUrl: null,
      displayName: null,
      description: null,
      profile: null,
    });
  });

  it('gives no avatarUrl without METADATA_PUBLIC_URL (the raw avatar stays)', async () => {
    const plain = await startResolverService(fx.env());
    try {
      const res = await request(plain.app).get(`/ens/v2/reverse/${fx.accounts.alice}/profile`).expect(200);
      expect(res.body).toMatchObject({ avatar: 'https://example.com/alice.png', avatarUrl: null });
    } finally {
      await plain.close();
    }
  });

  it('answers hasReverseRecord false for an address without reverse record', async () => {
    const res = await request(svc.app).get(`/ens/v2/reverse/${fx.accounts.nobody}/profile`).expect(200);
    expect(res.body.hasReverseRecord).toBe(false);
    expect(res.body.profile).toBeNull();
  });

  it('verifies an offchain primary name through CCIP-Read', async () => {
    const res = await request(svc.app).get(`/ens/v2/reverse/${fx.accounts.bob}/profile`).expect(200);
    expect(res.body).toMatchObject({ hasReverseRecord: true, name: 'bob.offchain.eth', displayName: 'Bob' });
    expect(res.body.profile.resolver).toBe(getAddress(fx.offchainResolver));
  });

  it('ENSIP-19: the primary name of a coin type, by coinType or by chain name', async () => {
    const { alice, nobody } = fx.accounts;
    for (const query of [`chain=base`, `coinType=${BASE_COIN}`]) {
      const res = await request(svc.app).get(`/ens/v2/reverse/${alice}/profile?${query}`).expect(200);
      expect(res.body).toMatchObject({ coinType: BASE_COIN, hasReverseRecord: true, name: 'alice.eth' });
    }
    const eth = await request(svc.app).get(`/ens/v2/reverse/${alice}/profile?coinType=60`).expect(200);
    expect(eth.body).toMatchObject({ coinType: 60, name: 'alice.eth' });
    // nobody has a Base primary name only; asking for Ethereum first must not hide it (coin type in the cache key)
    const none = await request(svc.app).get(`/ens/v2/reverse/${nobody}/profile`).expect(200);
    expect(none.body).toMatchObject({ coinType: 60, hasReverseRecord: false, name: null });
    const base = await request(svc.app).get(`/ens/v2/reverse/${nobody}/profile?chain=base`).expect(200);
    expect(base.body).toMatchObject({ coinType: BASE_COIN, hasReverseRecord: true, name: 'nobody.eth' });
    // the forward check reads the address of that coin type: alice.eth has no Optimism address
    const op = await request(svc.app).get(`/ens/v2/reverse/${alice}/profile?chain=op`).expect(200);
    expect(op.body).toMatchObject({ coinType: chainByName('op')?.coinType, hasReverseRecord: false });
  });

  it.each([
    ['coinType=60&chain=base', 'query.chain'],
    ['coinType=abc', 'query.coinType'],
    ['coinType=-1', 'query.coinType'],
    ['coinType=4294967296', 'query.coinType'],
    ['coinType=1e3', 'query.coinType'],
    ['chain=moon', 'query.chain'],
  ])('rejects %s with 400 problem+json', async (query, path) => {
    const res = await request(svc.app)
      .get(`/ens/v2/reverse/${fx.accounts.alice}/profile?${query}`)
      .expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
  });

  it.each([
    ['0x123', 'params.address'],
    ['0xZZ9Fd6e51aad88F6F4ce6aB8827279cffFb92266', 'params.address'],
  ])('rejects the address %s', async (address, path) => {
    const res = await request(svc.app).get(`/ens/v2/reverse/${address}/profile`).expect(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual([path]);
  });

  it.each([
    ['contenthash=nah', 'query.contenthash'],
    ['addresses=moon', 'query.addresses.0'],
    ['noCache=yes', 'query.noCache'],
  ])('rejects %s', async (query, path) => {
    const res = await request(svc.app)
      .get(`/ens/v2/reverse/${fx.accounts.alice}/profile?${query}`)
      .expect(400);
    expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
  });
});

describe('bulk endpoints', () => {
  it('GET /ens/v2/profile/bulk: one entry per distinct input, failures do not fail the others', async () => {
    const res = await request(svc.app)
      .get(
        '/ens/v2/profile/bulk?names=alice.eth,ALICE.eth,alice.eth,a.eth,bad..eth,bob.offchain.eth&texts=name',
      )
      .expect(200);
    const results = res.body.results as Array<Record<string, unknown>>;
    expect(results.map((r) => [r.input, r.type])).toEqual([
      ['alice.eth', 'success'],
      ['ALICE.eth', 'success'],
      ['a.eth', 'error'],
      ['bad..eth', 'error'],
      ['bob.offchain.eth', 'success'],
    ]);
    expect(results[1]).toMatchObject({
      profile: { name: 'alice.eth', texts: [{ key: 'name', value: 'Alice' }] },
    });
    expect(results[2]).toMatchObject({
      status: 400,
      code: 'INVALID_INPUT',
      detail: expect.stringMatching(/^query\.names\.2: /),
    });
    expect(results[3]).toMatchObject({
      status: 400,
      code: 'INVALID_NAME',
      detail: expect.stringMatching(/^query\.names\.3: /),
    });
    expect(results[4]).toMatchObject({ profile: { texts: [{ key: 'name', value: 'Bob' }] } });
  });

  it('GET /ens/v2/reverse/bulk: one entry per distinct input', async () => {
    const { alice, impostor } = fx.accounts;
    const res = await request(svc.app)
      .get(`/ens/v2/reverse/bulk?addresses=${alice},${impostor},${alice},0x12&records=eth`)
      .expect(200);
    const results = res.body.results as Array<Record<string, unknown>>;
    expect(results.map((r) => [r.input, r.type])).toEqual([
      [alice, 'success'],
      [impostor, 'success'],
      ['0x12', 'error'],
    ]);
    expect(results[0]).toMatchObject({
      reverse: { name: 'alice.eth', profile: { addresses: [{ coin: 60 }] } },
    });
    expect(results[1]).toMatchObject({ reverse: { hasReverseRecord: false } });
    expect(results[2]).toMatchObject({
      status: 400,
      code: 'INVALID_INPUT',
      detail: expect.stringMatching(/^query\.addresses\.2: /),
    });
  });

  it('GET /ens/v2/reverse/bulk: by chain, and coinType with chain is a 400', async () => {
    const { alice, nobody } = fx.accounts;
    const res = await request(svc.app)
      .get(`/ens/v2/reverse/bulk?addresses=${alice},${nobody}&chain=base&records=base`)
      .expect(200);
    expect(res.body.results).toMatchObject([
      { type: 'success', reverse: { coinType: BASE_COIN, name: 'alice.eth' } },
      { type: 'success', reverse: { coinType: BASE_COIN, name: 'nobody.eth' } },
    ]);
    const both = await request(svc.app)
      .get(`/ens/v2/reverse/bulk?addresses=${alice}&chain=base&coinType=60`)
      .expect(400);
    expect(both.body.errors.map((e: { path: string }) => e.path)).toEqual(['query.chain']);
  });

  it.each([
    ['/ens/v2/profile/bulk', 'names'],
    ['/ens/v2/reverse/bulk', 'addresses'],
  ])('%s rejects more than 20 items and a missing list', async (path, param) => {
    const many = Array.from({ length: 21 }, (_, i) => `name${i}.eth`).join(',');
    const tooMany = await request(svc.app).get(`${path}?${param}=${many}`).expect(400);
    expect(tooMany.body.errors.map((e: { path: string }) => e.path)).toEqual([`query.${param}`]);
    const missing = await request(svc.app).get(path).expect(400);
    expect(missing.body.errors.map((e: { path: string }) => e.path)).toEqual([`query.${param}`]);
  });
});

describe('GET /ens/v2/chains', () => {
  it('lists the chain names and coin types', async () => {
    const res = await request(svc.app).get('/ens/v2/chains').expect(200);
    expect(res.body.chains).toEqual(
      expect.arrayContaining([
        { chain: 'eth', coin: 60, label: 'Ethereum', chainId: 1, isEvm: true, aliases: ['ethereum'] },
        { chain: 'btc', coin: 0, label: 'Bitcoin', chainId: null, isEvm: false, aliases: ['bitcoin'] },
        expect.objectContaining({ chain: 'base', coin: BASE_COIN, chainId: 8453 }),
      ]),
    );
    expect(res.headers['cache-control']).toBe('public, max-age=86400');
  });
});
