/**
 * A rolling deploy: the previous release (`releases/previous`) serves and takes writes while the next release (this
 * checkout plus an expand migration of `offchain_subnames`) migrates the same database beside it, and while a release
 * whose migration fails midway tries to.
 */
import { hashApiKey } from '@nrp/auth';
import { NO_SHARED_POSTGRES, requireParts, sharedPostgresUrl } from '@nrp/testkit/src/requirements';
import {
  readyAnswer,
  expectExpanded,
  startUpgradeRehearsal,
  type UpgradeRehearsal,
} from '@nrp/testkit/src/upgrade';
import { ALICE } from './helpers';

const url = sharedPostgresUrl();
const runs = requireParts(
  'REQUIRE_FAULT_TESTS',
  'the offchain-svc upgrade test',
  url ? [] : [NO_SHARED_POSTGRES],
);
const KEY = 'upgrade-test-key-0123456789abcdef';

(runs ? describe : describe.skip)('offchain-svc: an upgrade from the previous release', () => {
  let rehearsal: UpgradeRehearsal;

  const rehearsed = { schema: 'public', table: 'offchain_subnames', migrationTable: 'offchain_migrations' };

  beforeAll(async () => {
    rehearsal = await startUpgradeRehearsal(url, 'offchain-svc', rehearsed, {
      BOOTSTRAP_API_KEY_HASH: hashApiKey(KEY),
      BOOTSTRAP_API_KEY_PARENTS: 'offchain.eth',
      WEBHOOK_DELIVERY_INTERVAL_MS: '0',
      RATE_LIMIT_PER_MINUTE: '1000000',
    });
  });
  afterAll(() => rehearsal?.close());

  const create = (base: string, label: string) =>
    fetch(`${base}/api/v1/subnames`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-token': KEY },
      body: JSON.stringify({
        parentName: 'offchain.eth',
        label,
        owner: ALICE,
        texts: [{ key: 'name', value: label }],
      }),
    });
  const subname = (base: string, label: string) => fetch(`${base}/api/v1/subnames/${label}.offchain.eth`);

  it('keeps serving through an expand migration, which sees every row; a failed migration changes nothing', async () => {
    const old = await rehearsal.start('previous');
    await readyAnswer(old.url);
    const written: string[] = [];
    const upgrade = await rehearsal.upgrade(async (i) => {
      const write = await create(old.url, `sub${i}`);
      if (write.status === 201) written.push(`sub${i}`);
      return [write.status, (await subname(old.url, `sub${i}`)).status];
    });
    expectExpanded(upgrade, rehearsed);
    const current = upgrade.next;

    // Every subname the previous release wrote, before, during and after the migration, as it answers it.
    for (const label of written) {
      const [before, after] = await Promise.all([subname(old.url, label), subname(current.url, label)]);
      expect([after.status, await after.json()]).toEqual([before.status, await before.json()]);
    }

    const failed = await rehearsal.failMigration(async () => [
      (await subname(old.url, written[0] ?? '')).status,
    ]);
    expect(failed.refusal.status).toBe(503);
    expect(failed.refusal.checks.migrations).toMatch(
      /^migration "9999_fails_midway" failed: division by zero/,
    );
    expect(failed.failures).toEqual([]);
    expect(failed.after).toEqual(failed.before);
    // The previous release still writes; the current one still answers.
    expect((await create(old.url, 'after')).status).toBe(201);
    expect((await subname(current.url, 'after')).status).toBe(200);
  }, 120_000);
});
