/**
 * The restore drill (`npm run backup` / `npm run restore`, scripts/service-backup.ts): listings, a verified minter and
 * names index rows of a real mint, backed up, the database destroyed, restored into a fresh one, and compared row by
 * row and answer by answer with the original.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import request from 'supertest';
import { missingCommands, requireParts } from '@nrp/testkit/src/requirements';
import { createTestDatabase } from '@nrp/testkit/src/database';
import { schemaRows } from '@nrp/testkit/src/schema-rows';
import { startTestService } from '@nrp/testkit/src/test-service';
import { backupService, restoreService } from '../../../scripts/service-backup';
import { configSchema } from '../src/config';
import type { MintDatabase } from '../src/data/schema';
import { NetworkNameIndex } from '../src/names-index/names-index';
import { l1IndexSource } from '../src/names-index/sources';
import { createService } from '../src/service';
import { accountAt, approveController, mintArgs, sendMint, walletAt } from '@nrp/testkit';
import { listDirect, serviceEnv, signIn, startMintService, type MintService } from './helpers';

const databaseUrl = process.env.DATABASE_URL;
const runs = requireParts('REQUIRE_FAULT_TESTS', 'the mint-svc restore drill', [
  ...(databaseUrl ? [] : ['DATABASE_URL is unset (the drill backs up a PostgreSQL database)']),
  ...missingCommands('pg_dump', 'pg_restore'),
]);

(runs ? describe : describe.skip)('mint-svc backup and restore', () => {
  let env: MintService;
  let dir: string;

  beforeAll(async () => {
    env = await startMintService();
    dir = await mkdtemp(path.join(tmpdir(), 'mint-backup-'));
  }, 120_000);
  afterAll(async () => {
    await env?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A listing, the names an owner holds, and the estimate a verified minter gets. */
  async function answers(app: MintService['app'], holder: string) {
    const names = await request(app)
      .get('/api/v1/names')
      .query({ network: 'sepolia', owner: holder })
      .expect(200);
    const estimate = await request(app)
      .get('/api/v1/mint/estimate')
      .query({
        isTestnet: 'true',
        parentName: 'drill.eth',
        label: 'two',
        minterAddress: holder,
        expiryInYears: '1',
      })
      .expect(200);
    return { names: names.body as unknown, estimate: estimate.body as unknown };
  }

  it('brings back every row, and the same answers, in a fresh database', async () => {
    const parentOwner = accountAt(env.chain, 1).address;
    const minter = accountAt(env.chain, 3);
    await env.chain.ens.registerEthName('drill', parentOwner);
    await approveController(env, 1, false);
    await listDirect(env, 'drill.eth', { paymentReceiver: parentOwner, requireVerifiedMinter: true });
    await request(env.app)
      .post('/api/v1/minters/verify')
      .send({ network: 'sepolia', ...(await signIn(env.app, minter, { scope: 'minter' })) })
      .expect(200);
    const signed = await request(env.app)
      .post('/api/v1/mint')
      .send({
        isTestnet: true,
        parentName: 'drill.eth',
        label: 'one',
        minterAddress: minter.address,
        expiryInYears: 1,
      })
      .expect(200);
    const { content } = signed.body as { content: { price: string; fee: string } };
    await sendMint(env, walletAt(env, 3), mintArgs(signed.body), BigInt(content.price) + BigInt(content.fee));
    // The index runs here, once, to the head (the service's own indexer does not run in tests).
    const index = new NetworkNameIndex(
      env.context,
      'sepolia',
      l1IndexSource({ ...env.context.networks.sepolia, mintController: env.controllerAddress }),
      { intervalMs: 0, maxBackoffMs: 0, startBlock: 0, confirmations: 0, batchBlocks: 1000, leaseMs: 60_000 },
      'drill',
      { lag: () => undefined, failures: () => undefined },
    );
    await index.tick();
    await index.release();

    const rowsBefore = await schemaRows(env.db.db, 'public');
    for (const table of ['mint_listings', 'mint_verified_minters', 'mint_names', 'mint_name_changes']) {
      expect(rowsBefore[table]?.length).toBeGreaterThan(0);
    }
    const answersBefore = await answers(env.app, minter.address);
    expect((answersBefore.names as { items: unknown[] }).items).toHaveLength(1);

    const backup = path.join(dir, 'drill');
    const manifest = await backupService(
      { service: 'mint-svc', databaseUrl: env.db.url ?? '', schema: 'public' },
      backup,
    );
    expect(manifest).toMatchObject({ service: 'mint-svc', schema: 'public', blobs: [] });
    await sql`drop schema public cascade`.execute(env.db.db);

    const fresh = await createTestDatabase<MintDatabase>();
    await restoreService({ service: 'mint-svc', databaseUrl: fresh.url ?? '', schema: 'public' }, backup);
    const restored = await startTestService({
      createService,
      configSchema,
      env: serviceEnv(env.chain, {
        SEPOLIA_MINT_CONTROLLER: env.controllerAddress,
        TREASURY_ADDRESS: env.treasury,
      }),
      overrides: { database: fresh, now: env.clock.now },
      handedIn: [fresh],
    });
    try {
      expect(await schemaRows(fresh.db, 'public')).toEqual(rowsBefore);
      expect(await answers(restored.app, minter.address)).toEqual(answersBefore);
    } finally {
      await restored.close();
    }
  }, 120_000);
});
