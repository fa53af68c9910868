import request from 'supertest';
import { Contract, type TransactionReceipt } from 'ethers';
import { encodeCursor } from '@nrp/api';
import { namehash } from '@nrp/ens';
import { nameWrapperInterface } from '@nrp/chain';
import { until } from '@nrp/testkit/src/until';
import { takeLease } from '../src/data/names-index';
import { EVENT_OUTBOX_TABLE } from '../src/data/schema';
import {
  accountAt,
  approveController,
  listDirect,
  mintArgs,
  sendMint,
  startMintTestEnv,
  walletAt,
  type MintTestEnv,
} from './helpers';

describe('the names index: mints, transfers, reorganisations, GET /api/v1/names', () => {
  let env: MintTestEnv;
  let holder: string; // account 3
  let other: string; // account 4

  beforeAll(async () => {
    env = await startMintTestEnv({
      INDEX_CONFIRMATIONS: '0',
      INDEX_INTERVAL_MS: '50',
      INDEX_BATCH_BLOCKS: '5',
      // A read that met the revert fails and backs off: keep the wait short so the test sees the next run.
      INDEX_MAX_BACKOFF_MS: '500',
      // Events are written to the outbox (a relay target is configured) and stay there (no relay runs).
      OFFCHAIN_URL: 'http://127.0.0.1:9',
      EVENTS_INGEST_TOKEN: 'names-index-test-token-0123456789abcdef',
      EVENTS_RELAY_INTERVAL_MS: '0',
    });
    holder = accountAt(env.chain, 3).address;
    other = accountAt(env.chain, 4).address;
    const parentOwner = accountAt(env.chain, 1).address;
    await env.chain.ens.registerEthName('idx', parentOwner);
    await approveController(env, 1, false);
    await listDirect(env, 'idx.eth', { paymentReceiver: parentOwner });
    await env.chain.ens.registerEthName('wrapidx', parentOwner);
    await env.chain.ens.wrapName('wrapidx.eth', parentOwner);
    await approveController(env, 1, true);
    await listDirect(env, 'wrapidx.eth', { paymentReceiver: parentOwner });
  }, 180_000);
  afterAll(async () => {
    await env?.stop();
  });

  async function mintName(parentName: string, label: string, minterIndex = 3): Promise<TransactionReceipt> {
    const minter = accountAt(env.chain, minterIndex).address;
    const res = await request(env.app)
      .post('/api/v1/mint')
      .send({ isTestnet: true, parentName, label, minterAddress: minter, expiryInYears: 1 })
      .expect(200);
    const total = BigInt(res.body.content.price) + BigInt(res.body.content.fee);
    return (await sendMint(env, walletAt(env, minterIndex), mintArgs(res.body), total)) as TransactionReceipt;
  }

  const names = (query: Record<string, string>) =>
    request(env.app)
      .get('/api/v1/names')
      .query({ network: 'sepolia', ...query });

  async function untilNames(query: Record<string, string>, expected: string[], what: string) {
    await until(
      async () => {
        const res = await names(query);
        return (
          res.status === 200 &&
          JSON.stringify(res.body.items.map((i: { name: string }) => i.name)) === JSON.stringify(expected)
        );
      },
      what,
      30_000,
    );
  }

  async function outboxEvents(type: string): Promise<Array<{ data: Record<string, unknown> }>> {
    const rows = await env.db.db
      .selectFrom(EVENT_OUTBOX_TABLE)
      .select(['type', 'data'])
      .where('type', '=', type)
      .execute();
    return rows.map((r) => ({ data: r.data as Record<string, unknown> }));
  }

  it('indexes an unwrapped mint and follows the registry transfer of its holder, with name.minted and name.transferred', async () => {
    const receipt = await mintName('idx.eth', 'bob');
    await untilNames({ owner: holder }, ['bob.idx.eth'], 'bob.idx.eth indexed for its holder');
    const listed = await names({ owner: holder }).expect(200);
    const block = await env.provider.getBlock(receipt.blockNumber);
    expect(listed.body).toEqual({
      items: [
        {
          name: 'bob.idx.eth',
          parentName: 'idx.eth',
          owner: holder,
          wrapped: false,
          expiry: null,
          mintedAt: new Date((block?.timestamp ?? 0) * 1000).toISOString(),
          txHash: receipt.hash,
        },
      ],
      nextCursor: null,
    });

    const registry = env.chain.ens.contract('ensRegistry');
    await env.chain.ens.send(registry, walletAt(env, 3), 'setOwner', [namehash('bob.idx.eth'), other]);
    await untilNames({ owner: other }, ['bob.idx.eth'], 'bob.idx.eth moved to its new holder');
    expect((await names({ owner: holder }).expect(200)).body.items).toEqual([]);

    const minted = (await outboxEvents('name.minted')).filter((e) => e.data.name === 'bob.idx.eth');
    expect(minted).toHaveLength(1);
    expect(minted[0]?.data).toMatchObject({ owner: holder, parentName: 'idx.eth', txHash: receipt.hash });
    const transferred = (await outboxEvents('name.transferred')).filter((e) => e.data.name === 'bob.idx.eth');
    expect(transferred.map((e) => [e.data.from, e.data.to])).toEqual([[holder, other]]);
  });

  it('indexes a wrapped mint with its expiry and follows a NameWrapper transfer', async () => {
    await mintName('wrapidx.eth', 'carol');
    await untilNames({ parentName: 'wrapidx.eth' }, ['carol.wrapidx.eth'], 'carol.wrapidx.eth indexed');
    const [item] = (await names({ parentName: 'wrapidx.eth' }).expect(200)).body.items;
    const wrapper = new Contract(env.chain.contracts.nameWrapper, nameWrapperInterface, env.provider);
    const [, , expiry] = (await wrapper
      .getFunction('getData')
      .staticCall(BigInt(namehash('carol.wrapidx.eth')))) as [string, bigint, bigint];
    expect(item).toMatchObject({ owner: holder, wrapped: true, expiry: Number(expiry) });

    // The parent (no fuses burnt) hands the wrapped name to another holder: NameWrapper TransferSingle/NameWrapped.
    const parentWrapper = new Contract(
      env.chain.contracts.nameWrapper,
      ['function setSubnodeOwner(bytes32,string,address,uint32,uint64) returns (bytes32)'],
      env.provider,
    );
    await env.chain.ens.send(parentWrapper, walletAt(env, 1), 'setSubnodeOwner', [
      namehash('wrapidx.eth'),
      'carol',
      other,
      0,
      expiry,
    ]);
    await untilNames({ owner: other, parentName: 'wrapidx.eth' }, ['carol.wrapidx.eth'], 'carol moved');
    const transferred = (await outboxEvents('name.transferred')).filter(
      (e) => e.data.name === 'carol.wrapidx.eth',
    );
    expect(transferred.map((e) => [e.data.from, e.data.to, e.data.wrapped])).toEqual([[holder, other, true]]);
  });

  it('pages with an opaque keyset cursor and filters by label', async () => {
    for (const label of ['page-a', 'page-b', 'page-c']) await mintName('idx.eth', label, 5);
    const minter = accountAt(env.chain, 5).address;
    await untilNames({ owner: minter }, ['page-a.idx.eth', 'page-b.idx.eth', 'page-c.idx.eth'], 'pages');
    const first = await names({ owner: minter, size: '2' }).expect(200);
    expect(first.body.items.map((i: { name: string }) => i.name)).toEqual([
      'page-a.idx.eth',
      'page-b.idx.eth',
    ]);
    expect(typeof first.body.nextCursor).toBe('string');
    const second = await names({ owner: minter, size: '2', cursor: first.body.nextCursor }).expect(200);
    expect(second.body).toMatchObject({ items: [{ name: 'page-c.idx.eth' }], nextCursor: null });
    const search = await names({ labelSearch: 'GE-B' }).expect(200);
    expect(search.body.items.map((i: { name: string }) => i.name)).toEqual(['page-b.idx.eth']);
  });

  it('follows a reorganisation: a mint reverted away leaves the index, the new chain is indexed', async () => {
    const snapshot = (await env.provider.send('evm_snapshot', [])) as string;
    await mintName('idx.eth', 'gone', 6);
    const minter = accountAt(env.chain, 6).address;
    await untilNames({ owner: minter }, ['gone.idx.eth'], 'gone.idx.eth indexed before the revert');
    expect(await env.provider.send('evm_revert', [snapshot])).toBe(true);
    walletAt(env, 6).reset();
    await untilNames({ owner: minter }, [], 'gone.idx.eth leaves the index once its block is gone');
    // The new chain grows past the reverted height, so the indexer must notice the block hashes changed.
    await env.provider.send('anvil_mine', ['0x3']);
    await mintName('idx.eth', 'kept', 6);
    await untilNames({ owner: minter }, ['kept.idx.eth'], 'the index follows the new chain');
    expect((await outboxEvents('name.minted')).filter((e) => e.data.name === 'kept.idx.eth')).toHaveLength(1);
  });

  it('one indexer per network: the lease is held by the running service', async () => {
    expect(await takeLease(env.db.db, 'sepolia', 'another-replica', 30_000)).toBe(false);
    const ready = await request(env.app).get('/ready').expect(200);
    expect(ready.body.checks['sepolia-index']).toMatch(/^ok, \d+ blocks behind$/);
    const metrics = await request(env.app).get('/metrics').expect(200);
    expect(metrics.text).toMatch(/name_index_lag_blocks\{[^}]*network="sepolia"[^}]*\} \d+/);
  });

  describe('bad input is 400 problem+json', () => {
    const cases: Array<[string, Record<string, string>]> = [
      ['an owner that is not an address', { owner: '0x1234' }],
      ['an unknown network', { network: 'base' }],
      ['a cursor that is not base64url', { cursor: 'not a cursor!' }],
      ['a cursor that is not ours', { cursor: encodeCursor({ page: 2 }) }],
      ['a cursor that is not JSON', { cursor: 'AAAA' }],
      ['a page size over 100', { size: '101' }],
      ['a page size of 0', { size: '0' }],
      ['a parent name that does not normalise', { parentName: 'A B.eth' }],
      ['an unknown parameter', { page: '2' }],
    ];
    it.each(cases)('%s', async (_what, query) => {
      const res = await names(query).expect(400);
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.body.status).toBe(400);
    });
    it('a missing network', async () => {
      await request(env.app).get('/api/v1/names').query({ owner: holder }).expect(400);
    });
  });
});
