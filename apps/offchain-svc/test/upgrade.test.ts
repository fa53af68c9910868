/**
 * A rolling deploy: the previous release (`releases/previous`) serves and takes writes while this release migrates the
 * same database beside it, and while a release whose migration fails midway tries to.
 */
import path from 'node:path';
import { hashApiKey } from '@nrp/auth';
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
import { ALICE } from './helpers';

const url = sharedPostgresUrl();
const runs = requireParts(
  'REQUIRE_FAULT_TESTS',
  'the offchain-svc upgrade test',
  url ? [] : [NO_SHARED_POSTGRES],
);
const KEY = 'upgrade-test-key-0123456789abcdef';

(runs ? describe : describe.skip)('offchain-svc: an upgrade from the previous release', () => {
  let database: TestDatabase<unknown>;
  let previous: ReleaseCode;
  let failing: ReleaseCode;
  const processes: ServiceProcess[] = [];

  beforeAll(async () => {
    database = await createTestDatabase({ url });
    previous = await releaseCode(await previousReleaseRef(), 'offchain-svc');
    failing = await workingTreeWithMigration(
      'offchain-svc',
      failingMigration('9999_fails_midway', 'offchain_subnames'),
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
        BOOTSTRAP_API_KEY_HASH: hashApiKey(KEY),
        BOOTSTRAP_API_KEY_PARENTS: 'offchain.eth',
        WEBHOOK_DELIVERY_INTERVAL_MS: '0',
        RATE_LIMIT_PER_MINUTE: '1000000',
      },
      cwd ? { cwd } : {},
    );
    processes.push(service);
    return service;
  }

  const subname = (base: string, label: string) => fetch(`${base}/api/v1/subnames/${label}.offchain.eth`);

  it('keeps serving through the migration, which sees every row; a failed migration changes nothing', async () => {
    const old = await start(previous.entry, previous.dir);
    await readyAnswer(old.url);
    const written: string[] = [];
    const writesAndReads = steadyTraffic(async (i) => {
      const label = `sub${i}`;
      const write = await fetch(`${old.url}/api/v1/subnames`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-auth-token': KEY },
        body: JSON.stringify({
          parentName: 'offchain.eth',
          label,
          owner: ALICE,
          texts: [{ key: 'name', value: label }],
        }),
      });
      if (write.status === 201) written.push(label);
      return [write.status, (await subname(old.url, label)).status];
    });
    await until(() => writesAndReads.steps >= 5, 'writes to the previous release');
    const current = await start(path.resolve(__dirname, '../src/main.ts'));
    await readyAnswer(current.url);
    const stepsAtMigration = writesAndReads.steps;
    await until(() => writesAndReads.steps >= stepsAtMigration + 5, 'writes after the migration');
    expect(await writesAndReads.stop()).toEqual([]);

    // Every subname the previous release wrote, before, during and after the migration, as it answers it.
    for (const label of written) {
      const [before, after] = await Promise.all([subname(old.url, label), subname(current.url, label)]);
      expect([after.status, await after.json()]).toEqual([before.status, await before.json()]);
    }

    const rows = await schemaRows(database.db, 'public');
    const catalog = await schemaCatalog(database.db, 'public');
    const reads = steadyTraffic(async (i) => [
      (await subname(old.url, written[i % written.length] ?? '')).status,
    ]);
    const broken = await start(failing.entry, failing.dir);
    const refusal = await readyAnswer(broken.url, ({ status }) => status !== 200);
    expect(refusal.status).toBe(503);
    expect(refusal.checks.migrations).toMatch(/^migration "9999_fails_midway" failed: division by zero/);
    await until(() => reads.steps >= 5, 'reads while the failed release stands');
    expect(await reads.stop()).toEqual([]);
    expect(await schemaCatalog(database.db, 'public')).toEqual(catalog);
    expect(await schemaRows(database.db, 'public')).toEqual(rows);
    // The previous release still writes; the current one still answers.
    expect(
      (
        await fetch(`${old.url}/api/v1/subnames`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-auth-token': KEY },
          body: JSON.stringify({ parentName: 'offchain.eth', label: 'after', owner: ALICE }),
        })
      ).status,
    ).toBe(201);
    expect((await subname(current.url, 'after')).status).toBe(200);
  }, 120_000);
});
