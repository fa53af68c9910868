/**
 * A rolling deploy: the previous release (`releases/previous`) serves and takes writes while the next release (this
 * checkout plus an expand migration of `metadata_nonces`) migrates the same database beside it, and while a release
 * whose migration fails midway tries to.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Wallet } from 'ethers';
import { NO_SHARED_POSTGRES, requireParts, sharedPostgresUrl } from '@nrp/testkit/src/requirements';
import { schemaRows } from '@nrp/testkit/src/schema-rows';
import {
  readyAnswer,
  expectExpanded,
  startUpgradeRehearsal,
  type ReadyAnswer,
  type UpgradeRehearsal,
} from '@nrp/testkit/src/upgrade';
import { BASE_URL, DOMAIN } from './support';

const url = sharedPostgresUrl();
const runs = requireParts(
  'REQUIRE_FAULT_TESTS',
  'the metadata-svc upgrade test',
  url ? [] : [NO_SHARED_POSTGRES],
);

(runs ? describe : describe.skip)('metadata-svc: an upgrade from the previous release', () => {
  let rehearsal: UpgradeRehearsal;
  const databaseUp = ({ checks }: ReadyAnswer) => checks.database === 'ok';
  const blobDir = mkdtempSync(path.join(tmpdir(), 'metadata-upgrade-'));

  const rehearsed = {
    schema: 'metadata',
    table: 'metadata_nonces',
    migrationTable: 'metadata_migrations',
    ready: databaseUp,
  };

  beforeAll(async () => {
    rehearsal = await startUpgradeRehearsal(url, 'metadata-svc', rehearsed, {
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
    });
  });
  afterAll(async () => {
    await rehearsal?.close();
    rmSync(blobDir, { recursive: true, force: true });
  });

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

  it('keeps serving through an expand migration, which sees every row; a failed migration changes nothing', async () => {
    const old = await rehearsal.start('previous');
    await readyAnswer(old.url, databaseUp);
    const issued: string[] = [];
    const upgrade = await rehearsal.upgrade(async () => {
      const [status, value] = await nonce(old.url);
      if (status === 200) issued.push(value);
      return [status, await avatar(old.url)];
    });
    expectExpanded(upgrade, rehearsed);
    const current = upgrade.next;
    expect(await avatar(current.url)).toBe(404);
    // Every nonce the previous release issued, before, during and after the migration, is a row.
    const nonces = (await schemaRows(rehearsal.database.db, 'metadata')).metadata_nonces?.join('\n') ?? '';
    expect(issued.filter((value) => !nonces.includes(value))).toEqual([]);

    const failed = await rehearsal.failMigration(async () => [await avatar(old.url)]);
    expect(failed.refusal.status).toBe(503);
    expect(failed.refusal.checks.migrations).toMatch(
      /^migration "9999_fails_midway" failed: division by zero/,
    );
    expect(failed.failures).toEqual([]);
    expect(failed.after).toEqual(failed.before);
    expect((await nonce(old.url))[0]).toBe(200);
  }, 120_000);
});
