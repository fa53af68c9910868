import request from 'supertest';
import { sql } from 'kysely';
import { Contract, type TransactionReceipt } from 'ethers';
import { encodeCursor } from '@nrp/api';
import { namehash } from '@nrp/ens';
import { nameWrapperInterface } from '@nrp/chain';
import {
  accountAt,
  approveController,
  mintArgs,
  type RpcProxy,
  type SeenRpcCall,
  sendMint,
  startRpcProxy,
  walletAt,
} from '@nrp/testkit';
import { until } from '@nrp/testkit/src/until';
import { latestCheckpoints, takeLease } from '../src/data/names-index';
import { EVENT_OUTBOX_TABLE } from '../src/data/schema';
import { NetworkNameIndex, retryDelayMs, type NameIndexSettings } from '../src/names-index/names-index';
import { l1IndexSource } from '../src/names-index/sources';
import { listDirect, type MintService, startMintService } from './helpers';

describe('the names index: mints, transfers, reorganisations, GET /api/v1/names', () => {
  let env: MintService;
  // The service reaches anvil through this proxy, which can answer garbage or drop calls.
  let rpc: RpcProxy | undefined;
  let holder: string; // account 3
  let other: string; // account 4
  const settings = { intervalMs: 50, maxBackoffMs: 500 };

  beforeAll(async () => {
    env = await startMintService(async (chain) => {
      rpc = await startRpcProxy(chain.anvil.rpcUrl);
      return {
        SEPOLIA_RPC_URL: rpc.url,
        INDEX_CONFIRMATIONS: '0',
        INDEX_INTERVAL_MS: String(settings.intervalMs),
        INDEX_BATCH_BLOCKS: '5',
        // A read that met a revert or garbage fails and backs off: keep the wait short so the tests see the next run.
        INDEX_MAX_BACKOFF_MS: String(settings.maxBackoffMs),
        INDEX_MAX_LAG_BLOCKS: '5',
        // Events are written to the outbox (a relay target is configured) and stay there (no relay runs).
        OFFCHAIN_URL: 'http://127.0.0.1:9',
        EVENTS_INGEST_TOKEN: 'names-index-test-token-0123456789abcdef',
        EVENTS_RELAY_INTERVAL_MS: '0',
      };
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
    await env?.close();
    await rpc?.stop();
  });

  type SignedMint = { content: Record<string, unknown>; signature: string };

  async function signMint(parentName: string, label: string, minterIndex: number): Promise<SignedMint> {
    const minter = accountAt(env.chain, minterIndex).address;
    const res = await request(env.app)
      .post('/api/v1/mint')
      .send({ isTestnet: true, parentName, label, minterAddress: minter, expiryInYears: 1 })
      .expect(200);
    return res.body as SignedMint;
  }

  async function sendSigned(signed: SignedMint, minterIndex: number): Promise<TransactionReceipt> {
    const total = BigInt(String(signed.content.price)) + BigInt(String(signed.content.fee));
    return (await sendMint(env, walletAt(env, minterIndex), mintArgs(signed), total)) as TransactionReceipt;
  }

  async function mintName(parentName: string, label: string, minterIndex = 3): Promise<TransactionReceipt> {
    return sendSigned(await signMint(parentName, label, minterIndex), minterIndex);
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

  it('follows a NameWrapper TransferBatch: two wrapped names handed over in one safeBatchTransferFrom', async () => {
    const batch = ['batch-a.wrapidx.eth', 'batch-b.wrapidx.eth'];
    await mintName('wrapidx.eth', 'batch-a');
    await mintName('wrapidx.eth', 'batch-b');
    await untilNames({ owner: holder, labelSearch: 'batch-' }, batch, 'both wrapped names indexed');
    const wrapper = new Contract(
      env.chain.contracts.nameWrapper,
      ['function safeBatchTransferFrom(address,address,uint256[],uint256[],bytes)'],
      env.provider,
    );
    const ids = batch.map((name) => BigInt(namehash(name)));
    const receipt = await env.chain.ens.send(wrapper, walletAt(env, 3), 'safeBatchTransferFrom', [
      holder,
      other,
      ids,
      [1n, 1n],
      '0x',
    ]);
    // One TransferBatch log carries both tokens (no TransferSingle).
    const events = receipt.logs.map((log) => nameWrapperInterface.parseLog(log)?.name);
    expect(events).toEqual(['TransferBatch']);

    await untilNames({ owner: other, labelSearch: 'batch-' }, batch, 'both names moved to the new holder');
    expect((await names({ owner: holder, labelSearch: 'batch-' }).expect(200)).body.items).toEqual([]);
    const moved = (await names({ owner: other, labelSearch: 'batch-' }).expect(200)).body.items;
    expect(moved.map((i: { wrapped: boolean }) => i.wrapped)).toEqual([true, true]);
    const transferred = (await outboxEvents('name.transferred')).filter((e) =>
      batch.includes(String(e.data.name)),
    );
    expect(transferred.map((e) => [e.data.name, e.data.from, e.data.to, e.data.txHash]).sort()).toEqual(
      batch.map((name) => [name, holder, other, receipt.hash]),
    );
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

  it('a revert followed at once by a longer chain: the fork is found by block hash and the new chain indexed', async () => {
    // The service's indexer stands aside (the test holds its lease), so the test decides when the index looks.
    const MANUAL = 'reorg-test-indexer';
    const lease = env.db.db.updateTable('mint_index_leases').where('network', '=', 'sepolia');
    await lease.set({ holder: MANUAL, expires_at: sql<Date>`now() + interval '1 hour'` }).execute();
    const indexSettings: NameIndexSettings = {
      ...settings,
      startBlock: 0,
      confirmations: 0,
      batchBlocks: 5,
      leaseMs: 3_600_000,
    };
    const index = new NetworkNameIndex(
      env.context,
      'sepolia',
      l1IndexSource({ ...env.context.networks.sepolia, mintController: env.controllerAddress }),
      indexSettings,
      MANUAL,
      { lag: () => undefined, failures: () => undefined },
    );
    const minter = accountAt(env.chain, 7).address;
    // The test's provider may answer a head it read up to 250 ms ago; these reads must be of the chain now.
    const head = async () => Number(await env.provider.send('eth_blockNumber', []));
    try {
      expect(await index.tick()).toMatchObject({ holder: true });
      const forkedAway = await signMint('idx.eth', 'forked-away', 7);
      const onNewChain = await signMint('idx.eth', 'on-new-chain', 7);
      const forkHeight = await head();
      const snapshot = (await env.provider.send('evm_snapshot', [])) as string;
      await sendSigned(forkedAway, 7);
      await env.provider.send('anvil_mine', ['0x2']);
      const oldTip = await head();
      expect(await index.tick()).toMatchObject({ holder: true, cursor: oldTip });
      expect((await names({ owner: minter }).expect(200)).body.items).toHaveLength(1);

      // At once, well inside the moment a provider may keep an answer: the chain reverts and a longer one grows.
      expect(await env.provider.send('evm_revert', [snapshot])).toBe(true);
      walletAt(env, 7).reset();
      await sendSigned(onNewChain, 7);
      await env.provider.send('anvil_mine', ['0x3']);
      const newTip = await head();
      expect(newTip).toBeGreaterThan(oldTip);
      const followed = await index.tick();
      expect(followed).toMatchObject({ holder: true, cursor: newTip });
      expect(typeof followed === 'object' && followed.rolledBackTo).toBeLessThanOrEqual(forkHeight);

      const listed = (await names({ owner: minter }).expect(200)).body.items;
      expect(listed.map((i: { name: string }) => i.name)).toEqual(['on-new-chain.idx.eth']);
      const [checkpoint] = await latestCheckpoints(env.db.db, 'sepolia', 1);
      expect(checkpoint).toEqual({
        blockNumber: newTip,
        blockHash: (await env.provider.getBlock(newTip))?.hash,
      });
    } finally {
      // The service takes the lease back at its next run.
      await env.db.db.deleteFrom('mint_index_leases').where('holder', '=', MANUAL).execute();
    }
    await mintName('idx.eth', 'after-reorg', 7);
    await untilNames(
      { owner: minter },
      ['after-reorg.idx.eth', 'on-new-chain.idx.eth'],
      'the service indexes again after the test gave the lease back',
    );
    const minted = (await outboxEvents('name.minted')).map((e) => e.data.name);
    expect(minted.filter((n) => n === 'on-new-chain.idx.eth')).toHaveLength(1);
  });

  it('a node answering garbage, then gone: retries wait longer each time, /ready and metrics show the lag, no half block is written', async () => {
    const proxy = rpc;
    if (!proxy) throw new Error('no RPC proxy');
    const registry = env.chain.contracts.ensRegistry.toLowerCase();
    const isRegistryLogs = (call: SeenRpcCall) =>
      call.method === 'eth_getLogs' &&
      String((call.params[0] as { address?: unknown } | undefined)?.address).toLowerCase() === registry;
    const [before] = await latestCheckpoints(env.db.db, 'sepolia', 1);
    const from = proxy.seen.length;
    const attempts = () => proxy.seen.slice(from).filter(isRegistryLogs);
    const halfOwner = accountAt(env.chain, 2).address;
    const metric = async (name: string) => {
      const text = (await request(env.app).get('/metrics').expect(200)).text;
      return Number(new RegExp(`^${name}\\{[^}]*network="sepolia"[^}]*\\} (\\d+)$`, 'm').exec(text)?.[1]);
    };
    // The registry's logs come back as garbage while the controller's come back right: the mint alone would be
    // half of its blocks (its transfer is in the registry's logs).
    proxy.setFault((call) => (isRegistryLogs(call) ? { result: [{ address: 'garbage' }] } : undefined));
    try {
      await mintName('idx.eth', 'half', 2);
      const registryContract = env.chain.ens.contract('ensRegistry');
      await env.chain.ens.send(registryContract, walletAt(env, 2), 'setOwner', [
        namehash('half.idx.eth'),
        other,
      ]);
      await env.provider.send('anvil_mine', ['0x8']);
      await until(async () => attempts().length >= 5, 'five runs that met the garbage', 30_000);

      // Each wait is at least the interval doubled per failure in a row (capped); upper bounds are the machine's.
      const times = attempts().map((c) => c.at);
      for (let k = 1; k < times.length; k += 1) {
        expect((times[k] ?? 0) - (times[k - 1] ?? 0)).toBeGreaterThanOrEqual(retryDelayMs(settings, k) - 2);
      }
      const ready = await request(env.app).get('/ready').expect(503);
      expect(ready.body.checks['sepolia-index']).toMatch(
        /^the names index is \d+ blocks behind \(INDEX_MAX_LAG_BLOCKS 5\); \d+ failed runs in a row \(next in \d+ ms\)$/,
      );
      expect(await metric('name_index_lag_blocks')).toBeGreaterThanOrEqual(9);
      expect(await metric('name_index_failures')).toBeGreaterThanOrEqual(5);

      // The node stops answering at all (every connection dropped).
      proxy.setFault(() => 'drop');
      const failed = await metric('name_index_failures');
      await until(
        async () => (await metric('name_index_failures')) > failed,
        'a run that met no node',
        30_000,
      );
      const gone = await request(env.app).get('/ready').expect(503);
      expect(gone.body.checks['sepolia-index']).not.toMatch(/^ok/);

      // Nothing of the blocks was written: no name, no event, the cursor where it was.
      expect((await names({ labelSearch: 'half' }).expect(200)).body.items).toEqual([]);
      expect((await outboxEvents('name.minted')).filter((e) => e.data.name === 'half.idx.eth')).toEqual([]);
      expect((await latestCheckpoints(env.db.db, 'sepolia', 1))[0]).toEqual(before);
    } finally {
      proxy.setFault(undefined);
    }
    await untilNames(
      { labelSearch: 'half' },
      ['half.idx.eth'],
      'the blocks indexed once the node answers again',
    );
    expect((await names({ labelSearch: 'half' }).expect(200)).body.items[0]).toMatchObject({ owner: other });
    expect((await outboxEvents('name.minted')).filter((e) => e.data.name === 'half.idx.eth')).toHaveLength(1);
    const transferred = (await outboxEvents('name.transferred')).filter(
      (e) => e.data.name === 'half.idx.eth',
    );
    expect(transferred.map((e) => [e.data.from, e.data.to])).toEqual([[halfOwner, other]]);
    // The run that catches up resets the count when it ends (on a loaded machine, a while after the name shows).
    await until(async () => (await metric('name_index_failures')) === 0, 'no failed run in a row', 30_000);
    expect((await request(env.app).get('/ready').expect(200)).body.checks['sepolia-index']).toMatch(
      /^ok, \d+ blocks behind$/,
    );
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
      ['an unknown network', { network: 'optimism' }],
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
