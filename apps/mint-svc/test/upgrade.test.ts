/**
 * A rolling deploy: the previous release (`releases/previous`) serves and takes writes while the next release (this
 * checkout plus an expand migration of `mint_auth_nonces`) migrates the same database beside it, and while a release
 * whose migration fails midway tries to.
 */
import { Wallet } from 'ethers';
import { NO_SHARED_POSTGRES, requireParts, sharedPostgresUrl } from '@nrp/testkit/src/requirements';
import { schemaRows } from '@nrp/testkit/src/schema-rows';
import {
  readyAnswer,
  expectExpanded,
  startUpgradeRehearsal,
  type UpgradeRehearsal,
} from '@nrp/testkit/src/upgrade';
import { MINT_SIGNER_KEY } from '@nrp/testkit';
import { SIWE_DOMAIN, signIn } from './helpers';

const url = sharedPostgresUrl();
const runs = requireParts(
  'REQUIRE_FAULT_TESTS',
  'the mint-svc upgrade test',
  url ? [] : [NO_SHARED_POSTGRES],
);

(runs ? describe : describe.skip)('mint-svc: an upgrade from the previous release', () => {
  let rehearsal: UpgradeRehearsal;

  const rehearsed = { schema: 'mint', table: 'mint_auth_nonces', migrationTable: 'mint_migrations' };

  beforeAll(async () => {
    rehearsal = await startUpgradeRehearsal(url, 'mint-svc', rehearsed, {
      SIGNER_PRIVATE_KEY: MINT_SIGNER_KEY,
      SIWE_DOMAINS: SIWE_DOMAIN,
      // No chain: the routes used here read and write the database only.
      MAINNET_RPC_URL: 'http://127.0.0.1:9',
      SEPOLIA_RPC_URL: 'http://127.0.0.1:9',
      INDEX_INTERVAL_MS: '0',
      NONCE_SWEEP_INTERVAL_MS: '0',
      RATE_LIMIT_PER_MINUTE: '1000000',
      NONCE_RATE_LIMIT_PER_MINUTE: '1000000',
    });
  });
  afterAll(() => rehearsal?.close());

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

  it('keeps serving through an expand migration, which sees every row; a failed migration changes nothing', async () => {
    const old = await rehearsal.start('previous');
    await readyAnswer(old.url);
    const upgrade = await rehearsal.upgrade(async () => [
      await verifyMinter(old.url, old.url),
      (await names(old.url)).status,
    ]);
    expectExpanded(upgrade, rehearsed);
    const current = upgrade.next;
    // The current release consumes nonces the previous one wrote, and the other way round.
    expect(await verifyMinter(old.url, current.url)).toBe(200);
    expect(await verifyMinter(current.url, old.url)).toBe(200);
    expect((await schemaRows(rehearsal.database.db, 'mint')).mint_verified_minters).toHaveLength(1);

    const failed = await rehearsal.failMigration(async () => [(await names(old.url)).status]);
    expect(failed.refusal.status).toBe(503);
    expect(failed.refusal.checks.migrations).toMatch(
      /^migration "9999_fails_midway" failed: division by zero/,
    );
    expect(failed.failures).toEqual([]);
    expect(failed.after).toEqual(failed.before);
    expect(await verifyMinter(old.url, current.url)).toBe(200);
  }, 120_000);
});
