/**
 * The restore drill (`npm run backup` / `npm run restore`, scripts/service-backup.ts): data of every kind, backed up,
 * the schema destroyed, restored into a fresh schema, and compared row by row and answer by answer with the original.
 */
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AbiCoder, Wallet } from 'ethers';
import { sql } from 'kysely';
import request from 'supertest';
import { resolverInterface } from '@nrp/chain';
import { createDatabase } from '@nrp/db';
import { dnsEncode, namehash } from '@nrp/ens';
import {
  missingCommands,
  NO_SHARED_POSTGRES,
  requireParts,
  sharedPostgresUrl,
} from '@nrp/testkit/src/requirements';
import { createTestDatabase, type TestDatabase } from '@nrp/testkit/src/database';
import { schemaRows } from '@nrp/testkit/src/schema-rows';
import { buildSignInMessage } from '@nrp/testkit/src/sign-in';
import { startTestService } from '@nrp/testkit/src/test-service';
import { BackupRefused, backupService, restoreService } from '../../../scripts/service-backup';
import { issueApiKey } from '../src/keys/api-keys';
import { configSchema } from '../src/config';
import { PGLITE_EXTENSIONS } from '../src/data/database';
import type { OffchainDatabase } from '../src/data/schema';
import { createService } from '../src/service';
import { ALICE, BOB, BTC, IPFS } from './helpers';

const url = sharedPostgresUrl();
const runs = requireParts('REQUIRE_FAULT_TESTS', 'the offchain-svc restore drill', [
  ...(url ? [] : [NO_SHARED_POSTGRES]),
  ...missingCommands('pg_dump', 'pg_restore'),
]);
const NOW = new Date('2026-11-28T12:00:00Z');
const SIGNER_KEY = `0x${'5a'.repeat(32)}`;

(runs ? describe : describe.skip)('offchain-svc backup and restore', () => {
  let server: TestDatabase<unknown>;
  let dir: string;

  /** The service on `schema` of the drill's database, its clock stopped at NOW. */
  async function startOn(schema: string) {
    const database = createDatabase<OffchainDatabase>({
      url: server.url,
      schema,
      pgliteExtensions: PGLITE_EXTENSIONS,
    });
    const service = await startTestService({
      createService,
      configSchema,
      env: { GATEWAY_SIGNER_KEY: SIGNER_KEY, WEBHOOK_DELIVERY_INTERVAL_MS: '0' },
      overrides: { database, now: () => NOW },
      handedIn: [database],
    });
    return { ...service, database };
  }

  /** What a client sees: a CCIP-Read answer, a profile, and a key's webhooks and their deliveries. */
  async function answers(app: Parameters<typeof request>[0], key: string) {
    const name = 'alice.offchain.eth';
    const call = resolverInterface.encodeFunctionData('resolve', [
      dnsEncode(name),
      resolverInterface.encodeFunctionData('text', [namehash(name), 'com.twitter']),
    ]);
    const sender = '0x' + '42'.repeat(20);
    const gateway = await request(app).get(`/api/v1/gateway/${sender}/${call}.json`).expect(200);
    const profile = await request(app).get(`/api/v1/subnames/${name}`).expect(200);
    const webhooks = await request(app).get('/api/v1/webhooks').set('x-auth-token', key).expect(200);
    const hook = (webhooks.body as { items: Array<{ id: string }> }).items[0]?.id ?? '';
    const deliveries = await request(app)
      .get(`/api/v1/webhooks/${hook}/deliveries`)
      .set('x-auth-token', key)
      .expect(200);
    // The answer's expiry (and so its signature) follows the wall clock: the drill compares what it answers.
    const [answer] = AbiCoder.defaultAbiCoder().decode(
      ['bytes', 'uint64', 'bytes'],
      (gateway.body as { data: string }).data,
    );
    return {
      gateway: resolverInterface.decodeFunctionResult('text', String(answer)).toArray(),
      profile: profile.body,
      webhooks: webhooks.body,
      deliveries: deliveries.body,
    };
  }

  beforeAll(async () => {
    server = await createTestDatabase({ url });
    dir = await mkdtemp(path.join(tmpdir(), 'offchain-backup-'));
  });
  afterAll(async () => {
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('brings back every row, and the same answers, in a fresh schema', async () => {
    const original = await startOn('drill');
    const { key } = await issueApiKey(original.database, ['offchain.eth']);
    const subname = (label: string, owner: string) =>
      request(original.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', key)
        .send({
          parentName: 'offchain.eth',
          label,
          owner,
          texts: [{ key: 'com.twitter', value: `@${label}` }],
          addresses: [
            { coin: 60, value: owner },
            { coin: 0, value: BTC },
          ],
          metadata: [{ key: 'tier', value: 'gold' }],
          contenthash: IPFS,
        })
        .expect(201);
    await subname('alice', ALICE);
    await request(original.app)
      .post('/api/v1/webhooks')
      .set('x-auth-token', key)
      .send({ url: 'https://hooks.example.com/nrp', events: ['subname.created'] })
      .expect(201);
    // Created after the webhook: its event and a pending delivery are rows too.
    await subname('bob', BOB);
    const wallet = Wallet.createRandom();
    const { nonce } = (
      await request(original.app).post('/api/v1/auth/nonce').send({ address: wallet.address }).expect(200)
    ).body as { nonce: string };
    const siweMessage = buildSignInMessage({
      domain: 'localhost:3003',
      address: wallet.address,
      statement: 'Sign in',
      uri: 'http://localhost:3000',
      chainId: 11155111,
      nonce,
      issuedAt: NOW,
    });
    await request(original.app)
      .post('/api/v1/auth/session')
      .send({ siweMessage, siweSignature: await wallet.signMessage(siweMessage), address: wallet.address })
      .expect(201);

    const rowsBefore = await schemaRows(original.context.db, 'drill');
    for (const table of [
      'offchain_subnames',
      'offchain_api_keys',
      'offchain_webhooks',
      'offchain_sessions',
    ]) {
      expect(rowsBefore[table]?.length).toBeGreaterThan(0);
    }
    const answersBefore = await answers(original.app, key);
    expect((answersBefore.deliveries as { items: unknown[] }).items).toHaveLength(1);

    const backup = path.join(dir, 'drill');
    const manifest = await backupService(
      { service: 'offchain-svc', databaseUrl: server.url ?? '', schema: 'drill' },
      backup,
    );
    expect(manifest).toMatchObject({ service: 'offchain-svc', schema: 'drill', blobs: [] });
    expect(manifest.migrations.at(-1)).toBe('0006_one_unique_name');
    await original.close();
    await sql`drop schema drill cascade`.execute(server.db);

    await restoreService(
      { service: 'offchain-svc', databaseUrl: server.url ?? '', schema: 'restored' },
      backup,
    );
    const restored = await startOn('restored');
    try {
      expect(await schemaRows(restored.context.db, 'restored')).toEqual(rowsBefore);
      expect(await answers(restored.app, key)).toEqual(answersBefore);
    } finally {
      await restored.close();
    }
  });

  it('refuses a backup of another service, of a newer schema, and a schema that is not empty unless replacing', async () => {
    const backup = path.join(dir, 'drill');
    const data = { service: 'offchain-svc' as const, databaseUrl: server.url ?? '', schema: 'restored' };
    await expect(restoreService({ ...data, service: 'mint-svc', schema: 'other' }, backup)).rejects.toThrow(
      /is a backup of offchain-svc \(schema drill, migration 0006_one_unique_name, 0 blobs, made .*\), not of mint-svc/,
    );
    const newer = path.join(dir, 'newer');
    await cp(backup, newer, { recursive: true });
    const manifest = JSON.parse(await readFile(path.join(newer, 'manifest.json'), 'utf8')) as {
      migrations: string[];
    };
    manifest.migrations.push('0099_from_a_later_release');
    await writeFile(path.join(newer, 'manifest.json'), JSON.stringify(manifest));
    await expect(restoreService({ ...data, schema: 'other' }, newer)).rejects.toThrow(
      /a newer schema than this code knows \(migrations 0099_from_a_later_release\)/,
    );

    const rows = await schemaRows(server.db, 'restored');
    await sql`delete from restored.offchain_subnames where label = 'bob'`.execute(server.db);
    const refusal = restoreService(data, backup);
    await expect(refusal).rejects.toBeInstanceOf(BackupRefused);
    await expect(refusal).rejects.toThrow(
      /^schema restored is not empty \(\d+ tables, indexes and sequences\): restore --replace drops them first$/,
    );
    await restoreService(data, backup, { replace: true });
    expect(await schemaRows(server.db, 'restored')).toEqual(rows);
  });
});
