/**
 * A rolling deploy: the previous release (`releases/previous`) serves and takes writes while this release migrates the
 * same database beside it, and while a release whose migration fails midway tries to.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
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
import { BASE_URL, DOMAIN } from './support';

const url = sharedPostgresUrl();
const runs = requireParts(
  'REQUIRE_FAULT_TESTS',
  'the metadata-svc upgrade test',
  url ? [] : [NO_SHARED_POSTGRES],
);

(runs ? describe : describe.skip)('metadata-svc: an upgrade from the previous release', () => {
  let database: TestDatabase<unknown>;
  let blobDir: string;
  let previous: ReleaseCode;
  let failing: ReleaseCode;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase({ url });
    blobDir = await mkdtemp(path.join(tmpdir(), 'metadata-upgrade-'));
    previous = await releaseCode(await previousReleaseRef(), 'metadata-svc');
    failing = await workingTreeWithMigration(
      'metadata-svc',
      failingMigration('9999_fails_midway', 'metadata_nonces'),
    );
  });
  afterAll(async () => {
    for (const service of processes) await service.stop();
    await previous?.remove();
    await failing?.remove();
    await database?.close();
    if (blobDir) await rm(blobDir, { recursive: true, force: true });
  });

  async function start(entry: string, cwd?: string): Promise<ServiceProcess> {
    const service = await startServiceProcess(
      entry,
      {
        DATABASE_URL: database.url ?? '',
        BLOB_DIR: blobDir,
        PUBLIC_BASE_URL: BASE_URL,
        SIWE_DOMAINS: DOMAIN,
        // No chain: the routes used here read and write the database only (so /ready reports the nodes down).
        MAINNET_RPC_URL: 'http://127.0.0.1:9',
        SEPOLIA_RPC_URL: 'http://127.0.0.1:9',
        PENDING_CHECK_INTERVAL_MS: '0',
        ORPHAN_SWEEP_INTERVAL_MS: '0',
        NONCE_SWEEP_INTERVAL_MS: '0',
        RATE_LIMIT_PER_MINUTE: '1000000',
        NONCE_RATE_LIMIT_PER_MINUTE: '1000000',
      },
      cwd ? { cwd } : {},
    );
    processes.push(service);
    return service;
  }

  const address = Wallet.createRandom().address;
  const nonce = async (base: string): Promise<[number, string]> => {
    const res = await fetch(`${base}/auth/nonce`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ address, scope: 'avatar+header' }),
    });
    return [res.status, res.status === 200 ? ((await res.json()) as { nonce: string }).nonce : ''];
  };
  /** A read of the database: the uploaded avatar of a name that has none. */
  const avatar = async (base: string) => (await fetch(`${base}/profile/sepolia/nobody.eth/avatar`)).status;
  const databaseUp = (answer: { checks: Record<string, string> }) => answer.checks.database === 'ok';

  it('keeps serving through the migration, which sees every row; a failed migration changes nothing', async () => {
    const old = await start(previous.entry, previous.dir);
    await readyAnswer(old.url, databaseUp);
    const issued: string[] = [];
    const writesAndReads = steadyTraffic(async () => {
      const [status, value] = await nonce(old.url);
      if (status === 200) issued.push(value);
      return [status, await avatar(old.url)];
    });
    await until(() => writesAndReads.steps >= 5, 'writes to the previous release');
    const current = await start(path.resolve(__dirname, '../src/main.ts'));
    await readyAnswer(current.url, databaseUp);
    const stepsAtMigration = writesAndReads.steps;
    await until(() => writesAndReads.steps >= stepsAtMigration + 5, 'writes after the migration');
    expect(await writesAndReads.stop()).toEqual([]);
    expect(await avatar(current.url)).toBe(404);
    // Every nonce the previous release issued, before, during and after the migration, is a row.
    const rows = await schemaRows(database.db, 'metadata');
    const nonces = rows.metadata_nonces?.join('\n') ?? '';
    expect(issued.filter((value) => !nonces.includes(value))).toEqual([]);

    const catalog = await schemaCatalog(database.db, 'metadata');
    const reads = steadyTraffic(async () => [await avatar(old.url)]);
    const broken = await start(failing.entry, failing.dir);
    const refusal = await readyAnswer(broken.url, ({ status }) => status !== 200);
    expect(refusal.status).toBe(503);
    expect(refusal.checks.migrations).toMatch(/^migration "9999_fails_midway" failed: division by zero/);
    await until(() => reads.steps >= 5, 'reads while the failed release stands');
    expect(await reads.stop()).toEqual([]);
    expect(await schemaCatalog(database.db, 'metadata')).toEqual(catalog);
    expect(await schemaRows(database.db, 'metadata')).toEqual(rows);
    expect((await nonce(old.url))[0]).toBe(200);
  }, 120_000);
});
