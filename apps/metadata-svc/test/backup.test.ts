/**
 * The restore drill (`npm run backup` / `npm run restore`, scripts/service-backup.ts): uploaded images (confirmed and
 * pending) and nonces, backed up while uploads go on, the schema and the blobs destroyed, restored into a fresh
 * schema and blob directory, and compared row by row, blob by blob and answer by answer with the original.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Wallet } from 'ethers';
import { sql } from 'kysely';
import request from 'supertest';
import { createDatabase } from '@nrp/db';
import { createLocalBlobStore, type BlobStore } from '@nrp/storage';
import {
  missingCommands,
  NO_SHARED_POSTGRES,
  requireParts,
  sharedPostgresUrl,
} from '@nrp/testkit/src/requirements';
import { createTestDatabase, type TestDatabase } from '@nrp/testkit/src/database';
import { blobContents, schemaRows } from '@nrp/testkit/src/schema-rows';
import type { EnsChain } from '@nrp/testkit';
import { backupService, restoreService } from '../../../scripts/service-backup';
import type { MetadataDb } from '../src/data/schema';
import { stableImageUrl } from '../src/uploads/stable-url';
import {
  BASE_URL,
  png,
  signedFields,
  startEnsChain,
  startMetadataService,
  upload,
  walletOf,
  type MetadataService,
} from './support';

const url = sharedPostgresUrl();
const runs = requireParts('REQUIRE_FAULT_TESTS', 'the metadata-svc restore drill', [
  ...(url ? [] : [NO_SHARED_POSTGRES]),
  ...missingCommands('pg_dump', 'pg_restore'),
]);
/** Names whose avatar uploads go on while the backup is taken. */
const BUSY = ['busy0', 'busy1', 'busy2', 'busy3', 'busy4', 'busy5'];

(runs ? describe : describe.skip)('metadata-svc backup and restore', () => {
  let chain: EnsChain;
  let server: TestDatabase<unknown>;
  let dir: string;
  let alice: Wallet;

  async function startOn(schema: string, blobs: BlobStore): Promise<MetadataService> {
    return startMetadataService(
      chain,
      {},
      { database: createDatabase<MetadataDb>({ url: server.url, schema }), blobs },
    );
  }

  /** An avatar served from its record, the stable image URL a profile points at, and a header waiting. */
  async function answers(app: MetadataService['app']) {
    const avatar = await request(app).get('/sepolia/avatar/drill.eth').expect(200);
    const meta = await request(app).get('/sepolia/avatar/drill.eth/meta').expect(200);
    const profileImage = await request(app).get('/profile/sepolia/drill.eth/avatar').expect(200);
    return {
      avatar: [avatar.headers['content-type'], (avatar.body as Buffer).toString('base64')],
      meta: meta.body as unknown,
      profileImage: [profileImage.headers.etag, (profileImage.body as Buffer).toString('base64')],
    };
  }

  beforeAll(async () => {
    chain = await startEnsChain({ chainId: 11155111 });
    alice = walletOf(chain, 1);
    for (const label of ['drill', ...BUSY]) await chain.ens.registerEthName(label, alice.address);
    await chain.ens.setText(
      'drill.eth',
      'avatar',
      stableImageUrl(BASE_URL, 'sepolia', 'drill.eth', 'avatar'),
    );
    server = await createTestDatabase({ url });
    dir = await mkdtemp(path.join(tmpdir(), 'metadata-backup-'));
  }, 120_000);
  afterAll(async () => {
    await server?.close();
    await chain?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('brings back every row, every blob and the same answers; a backup taken during uploads is one snapshot', async () => {
    const blobDir = path.join(dir, 'blobs');
    const original = await startOn('drill', createLocalBlobStore(blobDir));
    const { app } = original;
    const { blobs } = original.context;
    const send = async (name: string, kind: 'avatar' | 'header', color: string) =>
      upload(
        app,
        `/profile/sepolia/${name}/${kind}`,
        kind,
        await png(48, 48, color),
        await signedFields(app, alice),
      );
    // Confirmed (its record points at the stable URL), pending (no header record) and an unused nonce.
    expect((await send('drill.eth', 'avatar', '#112233')).status).toBe(200);
    expect((await send('drill.eth', 'header', '#445566')).status).toBe(200);
    await request(app)
      .post('/auth/nonce')
      .send({ address: alice.address, scope: 'avatar+header' })
      .expect(200);
    const rowsBefore = await schemaRows(server.db, 'drill');
    expect(rowsBefore.images).toHaveLength(2);
    const blobsBefore = await blobContents(blobs);
    const answersBefore = await answers(app);
    const data = { service: 'metadata-svc' as const, databaseUrl: server.url ?? '' };
    const quiet = path.join(dir, 'quiet');
    await backupService({ ...data, schema: 'drill', blobs }, quiet);

    // Uploads under names of their own (no row is replaced) while a second backup is taken.
    let uploading = true;
    const uploads = (async () => {
      for (const [i, name] of BUSY.entries()) {
        if (!uploading) break;
        expect((await send(`${name}.eth`, 'avatar', `#0000${i}0`)).status).toBe(200);
      }
    })();
    const busy = path.join(dir, 'busy');
    await backupService({ ...data, schema: 'drill', blobs }, busy);
    uploading = false;
    await uploads;
    await original.close();
    await sql`drop schema drill cascade`.execute(server.db);
    await rm(blobDir, { recursive: true, force: true });

    const restoredBlobs = createLocalBlobStore(blobDir);
    await restoreService({ ...data, schema: 'restored', blobs: restoredBlobs }, quiet);
    expect(await schemaRows(server.db, 'restored')).toEqual(rowsBefore);
    expect(await blobContents(restoredBlobs)).toEqual(blobsBefore);
    const restored = await startOn('restored', restoredBlobs);
    try {
      expect(await answers(restored.app)).toEqual(answersBefore);
    } finally {
      await restored.close();
    }

    // The busy backup is one snapshot: exactly the blobs of the rows it holds.
    const busyBlobs = createLocalBlobStore(path.join(dir, 'busy-blobs'));
    await restoreService({ ...data, schema: 'busy', blobs: busyBlobs }, busy);
    const keys = await sql<{
      key: string;
    }>`select blob_key as key from busy.images order by blob_key`.execute(server.db);
    expect(keys.rows.length).toBeGreaterThanOrEqual(2);
    expect(Object.keys(await blobContents(busyBlobs)).sort()).toEqual(keys.rows.map(({ key }) => key));
  }, 120_000);
});
