/**
 * A rolling deploy: the previous release (`releases/previous`) serves and takes writes while this release migrates the
 * same database beside it, and while a release whose migration fails midway tries to.
 */
import path from 'node:path';
import { Wallet } from 'ethers';
import { createTestDatabase, type TestDatabase } from '@nrp/testkit/src/database';
import {
  releaseCode,
  previousReleaseRef,
  workingTreeWithMigration,
  type ReleaseCode,
} from '@nrp/testkit/src/release-code';
import { NO_SHARED_POSTGRES, requireParts, sharedPostgresUrl } from '@nrp/testkit/src/requirements';
import { schemaRows } from '@nrp/testkit/src/schema-rows';
import { startServiceProcess, type ServiceProcess } from '@nrp/testkit/src/service-process';
import { failingMigration, readyAnswer, schemaCatalog, steadyTraffic } from '@nrp/testkit/src/upgrade';
import { until } from '@nrp/testkit/src/until';
import { SIGNER_KEY, SIWE_DOMAIN, signIn } from './helpers';

const url = sharedPostgresUrl();
const runs = requireParts(
  'REQUIRE_FAULT_TESTS',
  'the mint-svc upgrade test',
  url ? [] : [NO_SHARED_POSTGRES],
);

(runs ? describe : describe.skip)('mint-svc: an upgrade from the previous release', () => {
  let database: TestDatabase<unknown>;
  let previous: ReleaseCode;
  let failing: ReleaseCode;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase({ url });
    previous = await releaseCode(await previousReleaseRef(), 'mint-svc');
    failing = await workingTreeWithMigration(
      'mint-svc',
      failingMigration('9999_fails_midway', 'mint_auth_nonces'),
    );
  });
  afterAll(async () => {
    for (const service of processes) await service.stop();
    await previous?.remove();
    await failing?.remove();
    await database?.close();
  });

  async function start(entry: string, cwd?: string): Promise<ServiceProcess> {
    const service = await startServiceProcess(
      entry,
      {
        DATABASE_URL: database.url ?? '',
        SIGNER_PRIVATE_KEY: SIGNER_KEY,
        SIWE_DOMAINS: SIWE_DOMAIN,
        // No chain: the routes used here read the database only.
        MAINNET_RPC_URL: 'http://127.0.0.1:9',
        SEPOLIA_RPC_URL: 'http://127.0.0.1:9',
        INDEX_INTERVAL_MS: '0',
        NONCE_SWEEP_INTERVAL_MS: '0',
        RATE_LIMIT_PER_MINUTE: '1000000',
        NONCE_RATE_LIMIT_PER_MINUTE: '1000000',
      },
      cwd ? { cwd } : {},
    );
    processes.push(service);
    return service;
  }

  const minter = Wallet.createRandom();
  const names = (base: string) => fetch(`${base}/api/v1/names?network=sepolia&owner=${minter.address}`);
  /** A sign-in whose nonce `issuer` wrote, verified by `verifier`: the verifier reads the issuer's row. */
  async function verifyMinter(issuer: string, verifier: string): Promise<number> {
    const body = await signIn(issuer, minter, { scope: 'minter' });
    const res = await fetch(`${verifier}/api/v1/minters/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ network: 'sepolia', ...body }),
    });
    return res.status;
  }

  it('keeps serving through the migration, which sees every row; a failed migration changes nothing', async () => {
    const old = await start(previous.entry, previous.dir);
    await readyAnswer(old.url);
    const writesAndReads = steadyTraffic(async () => [
      await verifyMinter(old.url, old.url),
      (await names(old.url)).status,
    ]);
    await until(() => writesAndReads.steps >= 5, 'writes to the previous release');
    const current = await start(path.resolve(__dirname, '../src/main.ts'));
    await readyAnswer(current.url);
    const stepsAtMigration = writesAndReads.steps;
    await until(() => writesAndReads.steps >= stepsAtMigration + 5, 'writes after the migration');
    expect(await writesAndReads.stop()).toEqual([]);
    // The current release consumes nonces the previous one wrote, and finds the verification it wrote.
    expect(await verifyMinter(old.url, current.url)).toBe(200);
    expect(await verifyMinter(current.url, old.url)).toBe(200);
    const rows = await schemaRows(database.db, 'mint');
    expect(rows.mint_verified_minters).toHaveLength(1);

    const catalog = await schemaCatalog(database.db, 'mint');
    const reads = steadyTraffic(async () => [(await names(old.url)).status]);
    const broken = await start(failing.entry, failing.dir);
    const refusal = await readyAnswer(broken.url, ({ status }) => status !== 200);
    expect(refusal.status).toBe(503);
    expect(refusal.checks.migrations).toMatch(/^migration "9999_fails_midway" failed: division by zero/);
    await until(() => reads.steps >= 5, 'reads while the failed release stands');
    expect(await reads.stop()).toEqual([]);
    expect(await schemaCatalog(database.db, 'mint')).toEqual(catalog);
    expect(await schemaRows(database.db, 'mint')).toEqual(rows);
    expect(await verifyMinter(old.url, current.url)).toBe(200);
  }, 120_000);
});
