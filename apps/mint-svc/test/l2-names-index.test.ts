/**
 * The names index of an L2 (base-sepolia): the L2MintController's mints, its registry's transfers and expiries,
 * GET /api/v1/names?network=base-sepolia and the name.minted / name.transferred events.
 */
import request from 'supertest';
import { ZeroAddress } from 'ethers';
import { namehash } from '@nrp/ens';
import {
  accountAt,
  deployL2Parent,
  L2_CHAIN_ID,
  type L2Chain,
  type L2ParentContracts,
  l2RegistryAbi,
  mintArgs,
  mintOnL2,
  startL2Chain,
  until,
} from '@nrp/testkit';
import { EVENT_OUTBOX_TABLE } from '../src/data/schema';
import { listDirect, type MintService, startMintService } from './helpers';

const PARENT = 'l2idx.eth';

describe('the names index of an L2 (base-sepolia)', () => {
  let env: MintService;
  let l2: L2Chain;
  let parent: L2ParentContracts;
  let minter: string; // account 5
  let other: string; // account 6

  beforeAll(async () => {
    l2 = await startL2Chain();
    try {
      env = await startMintService(async (chain) => {
        parent = await deployL2Parent(l2, PARENT, accountAt(chain, 9).address);
        return {
          BASE_SEPOLIA_RPC_URL: l2.anvil.rpcUrl,
          BASE_SEPOLIA_L2_MINT_CONTROLLERS: parent.controller,
          INDEX_CONFIRMATIONS: '0',
          INDEX_INTERVAL_MS: '50',
          INDEX_MAX_LAG_BLOCKS: '5',
          // Events are written to the outbox (a relay target is configured) and stay there (no relay runs).
          OFFCHAIN_URL: 'http://127.0.0.1:9',
          EVENTS_INGEST_TOKEN: 'l2-names-index-test-token-0123456789abcdef',
          EVENTS_RELAY_INTERVAL_MS: '0',
        };
      });
    } catch (err) {
      await l2.stop();
      throw err;
    }
    minter = accountAt(env.chain, 5).address;
    other = accountAt(env.chain, 6).address;
    const parentOwner = accountAt(env.chain, 1).address;
    await env.chain.ens.registerEthName('l2idx', parentOwner);
    await listDirect(env, PARENT, { paymentReceiver: parentOwner }, null, 'base-sepolia');
  });
  afterAll(async () => {
    await env?.close();
    await l2?.stop();
  });

  const names = (query: Record<string, string>) =>
    request(env.app)
      .get('/api/v1/names')
      .query({ network: 'base-sepolia', ...query });

  async function untilOwned(owner: string, expected: string[], what: string) {
    await until(
      async () => {
        const res = await names({ owner });
        return (
          res.status === 200 &&
          JSON.stringify(res.body.items.map((i: { name: string }) => i.name)) === JSON.stringify(expected)
        );
      },
      what,
      30_000,
    );
  }

  const outbox = async (type: string) =>
    (await env.db.db.selectFrom(EVENT_OUTBOX_TABLE).select(['data']).where('type', '=', type).execute()).map(
      (r) => r.data as Record<string, unknown>,
    );

  it('indexes a mint on the L2, follows its ERC-721 transfer, and emits the events with the L2 chain id', async () => {
    const res = await request(env.app)
      .post('/api/v1/mint')
      .send({ parentName: PARENT, label: 'alpha', minterAddress: minter, network: 'base-sepolia' })
      .expect(200);
    const value = BigInt(res.body.content.price) + BigInt(res.body.content.fee);
    await mintOnL2(l2, l2.account(5), parent.controller, mintArgs(res.body), value);
    await untilOwned(minter, ['alpha.l2idx.eth'], 'the L2 mint is indexed');
    const [item] = (await names({ owner: minter }).expect(200)).body.items;
    expect(item).toMatchObject({
      name: 'alpha.l2idx.eth',
      parentName: PARENT,
      owner: minter,
      wrapped: false,
      expiry: res.body.content.expiry,
    });
    // The L1 of the same kind has no such name.
    expect(
      (await request(env.app).get('/api/v1/names').query({ network: 'sepolia', owner: minter })).body.items,
    ).toEqual([]);

    const tokenId = BigInt(namehash('alpha.l2idx.eth'));
    await l2.send(l2.account(5), parent.registry, l2RegistryAbi, 'transferFrom', [minter, other, tokenId]);
    await untilOwned(other, ['alpha.l2idx.eth'], 'the ERC-721 transfer is followed');
    expect((await names({ owner: minter }).expect(200)).body.items).toEqual([]);

    const minted = (await outbox('name.minted')).filter((e) => e.name === 'alpha.l2idx.eth');
    expect(minted).toEqual([
      expect.objectContaining({
        network: 'base-sepolia',
        chainId: L2_CHAIN_ID,
        owner: minter,
        wrapped: false,
      }),
    ]);
    const transferred = (await outbox('name.transferred')).filter((e) => e.name === 'alpha.l2idx.eth');
    expect(transferred).toEqual([
      expect.objectContaining({ network: 'base-sepolia', chainId: L2_CHAIN_ID, from: minter, to: other }),
    ]);
  });

  it("the parent's revoke on the L2 leaves the name to the zero address", async () => {
    const res = await request(env.app)
      .post('/api/v1/mint')
      .send({ parentName: PARENT, label: 'gone', minterAddress: minter, network: 'base-sepolia' })
      .expect(200);
    const value = BigInt(res.body.content.price) + BigInt(res.body.content.fee);
    await mintOnL2(l2, l2.account(5), parent.controller, mintArgs(res.body), value);
    await untilOwned(minter, ['gone.l2idx.eth'], 'the second mint is indexed');
    await l2.send(l2.account(0), parent.registry, l2RegistryAbi, 'revoke', [namehash('gone.l2idx.eth')]);
    await untilOwned(ZeroAddress, ['gone.l2idx.eth'], 'the revoke is followed');
    expect((await names({ owner: minter }).expect(200)).body.items).toEqual([]);
  });

  it('/ready reports the L2 index and the L2 controller', async () => {
    const ready = await request(env.app).get('/ready').expect(200);
    expect(JSON.stringify(ready.body)).toContain('base-sepolia-index');
    expect(JSON.stringify(ready.body)).toContain(`base-sepolia-controller-${parent.controller}`);
  });
});
