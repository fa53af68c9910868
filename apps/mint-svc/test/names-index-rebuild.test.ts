/**
 * The names index rebuilt from the chain (`npm run names-index:rebuild`, names-index/rebuild.ts) equals the live index,
 * which followed the same chain batch by batch as it grew.
 */
import { ZeroAddress } from 'ethers';
import request from 'supertest';
import { namehash } from '@nrp/ens';
import { accountAt, approveController, mintArgs, sendMint, walletAt } from '@nrp/testkit';
import { releaseLease, takeLease } from '../src/data/names-index';
import { indexSources, settingsOf } from '../src/names-index/indexers';
import { NetworkNameIndex } from '../src/names-index/names-index';
import { rebuildNamesIndex, RebuildRefused } from '../src/names-index/rebuild';
import { listDirect, startMintService, type MintService } from './helpers';

describe('the names index rebuilt from the chain', () => {
  let env: MintService;

  beforeAll(async () => {
    env = await startMintService({ INDEX_CONFIRMATIONS: '0' });
  }, 120_000);
  afterAll(async () => {
    await env?.close();
  });

  async function mint(parentName: string, label: string, minterIndex: number): Promise<void> {
    const minter = accountAt(env.chain, minterIndex).address;
    const signed = await request(env.app)
      .post('/api/v1/mint')
      .send({ isTestnet: true, parentName, label, minterAddress: minter, expiryInYears: 1 })
      .expect(200);
    const { content } = signed.body as { content: { price: string; fee: string } };
    await sendMint(
      env,
      walletAt(env, minterIndex),
      mintArgs(signed.body),
      BigInt(content.price) + BigInt(content.fee),
    );
  }

  /** The index's rows, in one order: names and the changes each went through. */
  async function indexRows(db: MintService['db']['db']) {
    return {
      names: await db.selectFrom('mint_names').selectAll().orderBy('network').orderBy('node').execute(),
      changes: await db
        .selectFrom('mint_name_changes')
        .selectAll()
        .orderBy('network')
        .orderBy('node')
        .orderBy('block_number')
        .orderBy('log_index')
        .execute(),
    };
  }

  it('equals the live index, announces nothing again, and waits for no indexer that holds the lease', async () => {
    const parentOwner = accountAt(env.chain, 1).address;
    await env.chain.ens.registerEthName('rebuilt', parentOwner);
    await env.chain.ens.registerEthName('wraprebuilt', parentOwner);
    await env.chain.ens.wrapName('wraprebuilt.eth', parentOwner);
    await approveController(env, 1, false);
    await approveController(env, 1, true);
    await listDirect(env, 'rebuilt.eth', { paymentReceiver: parentOwner });
    await listDirect(env, 'wraprebuilt.eth', { paymentReceiver: parentOwner });
    // The live index follows the chain as it grows, a run after each step, as the service's indexer does.
    const source = indexSources(env.context).get('sepolia');
    if (!source) throw new Error('sepolia has no mint controller');
    const live = new NetworkNameIndex(
      env.context,
      'sepolia',
      source,
      settingsOf(env.context.config, 'sepolia'),
      'live',
      {
        lag: () => undefined,
        failures: () => undefined,
      },
    );
    const registry = env.chain.ens.contract('ensRegistry');
    const steps = [
      () => mint('rebuilt.eth', 'one', 3),
      () => mint('wraprebuilt.eth', 'two', 3),
      () =>
        env.chain.ens.send(registry, walletAt(env, 3), 'setOwner', [
          namehash('one.rebuilt.eth'),
          accountAt(env.chain, 4).address,
        ]),
      () => mint('rebuilt.eth', 'three', 5),
    ];
    for (const step of steps) {
      await step();
      expect(await live.tick()).toMatchObject({ holder: true });
    }
    await live.release();
    const liveRows = await indexRows(env.db.db);
    expect(liveRows.names.map((row) => row.name).sort()).toEqual([
      'one.rebuilt.eth',
      'three.rebuilt.eth',
      'two.wraprebuilt.eth',
    ]);
    expect(liveRows.changes.length).toBeGreaterThan(liveRows.names.length);

    const outbox = await env.db.db.selectFrom('mint_event_outbox').selectAll().orderBy('id').execute();

    // Held by another indexer: refused, nothing written.
    await takeLease(env.db.db, 'sepolia', 'another-replica', 60_000);
    const refused = rebuildNamesIndex(env.context, () => undefined);
    await expect(refused).rejects.toBeInstanceOf(RebuildRefused);
    await expect(refused).rejects.toThrow(/^the sepolia names index is being written/);
    await releaseLease(env.db.db, 'sepolia', 'another-replica');
    expect(await indexRows(env.db.db)).toEqual(liveRows);

    // A damaged index: a holder lost, a change gone. The rebuild reads none of it.
    await env.db.db
      .updateTable('mint_names')
      .set({ owner: ZeroAddress })
      .where('label', '=', 'one')
      .execute();
    const gone = await env.db.db
      .deleteFrom('mint_name_changes')
      .where('owner', '=', accountAt(env.chain, 4).address)
      .executeTakeFirst();
    expect(gone.numDeletedRows).toBe(1n);
    const lines: string[] = [];
    await rebuildNamesIndex(env.context, (line) => lines.push(line));
    expect(lines).toEqual([expect.stringMatching(/^sepolia: indexed again from block 0 to \d+$/)]);
    expect(await indexRows(env.db.db)).toEqual(liveRows);
    // Not announced twice.
    expect(await env.db.db.selectFrom('mint_event_outbox').selectAll().orderBy('id').execute()).toEqual(
      outbox,
    );
  }, 120_000);
});
