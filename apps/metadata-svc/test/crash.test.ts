import request from 'supertest';
import type { Wallet } from 'ethers';
import { Client } from 'pg';
import { createS3BlobStore, type BlobStore } from '@nrp/storage';
import {
  createTestDatabase,
  NO_SHARED_POSTGRES,
  requireParts,
  sharedPostgresUrl,
  startS3Server,
  startServiceProcess,
  startTcpProxy,
  type EnsChain,
  type ServiceProcess,
  type TcpProxy,
  type TestDatabase,
  type TestS3Server,
} from '@nrp/testkit';
import type { MetadataDb } from '../src/data/schema';
import { stableImageUrl } from '../src/uploads/stable-url';
import { png, processEnv, s3Env, signedFields, startEnsChain, upload, walletOf, BASE_URL } from './support';

// The service runs as its own process (so SIGKILL is a real crash) on a PostgreSQL both it and its restart reach.
const databaseUrl = sharedPostgresUrl();
const runs = requireParts(
  'REQUIRE_REPLICA_TESTS',
  'the metadata-svc crash test',
  databaseUrl ? [] : [NO_SHARED_POSTGRES],
);
const crashIt = runs ? it : it.skip;
const ENTRY = 'apps/metadata-svc/src/main.ts';

let chain: EnsChain;
let s3: TestS3Server;
let s3Proxy: TcpProxy;
let db: TestDatabase<MetadataDb>;
let blobs: BlobStore;
let alice: Wallet;
const started: ServiceProcess[] = [];
const path = '/profile/sepolia/crash.eth/avatar';

beforeAll(async () => {
  if (!runs || !databaseUrl) return;
  chain = await startEnsChain({ chainId: 11155111 });
  s3 = await startS3Server();
  // The service reaches S3 through a proxy that can keep S3's answers back: the bytes are stored, the service
  // never hears so, and dies waiting — exactly between writing the bytes and writing the row.
  const { hostname, port } = new URL(s3.endpoint);
  s3Proxy = await startTcpProxy({ host: hostname, port: Number(port) });
  db = await createTestDatabase<MetadataDb>({ url: databaseUrl });
  blobs = createS3BlobStore({
    bucket: s3.bucket,
    endpoint: s3.endpoint,
    region: s3.region,
    accessKeyId: s3.accessKeyId,
    secretAccessKey: s3.secretAccessKey,
  });
  alice = walletOf(chain, 1);
  await chain.ens.registerEthName('crash', alice.address);
  await chain.ens.setText('crash.eth', 'avatar', stableImageUrl(BASE_URL, 'sepolia', 'crash.eth', 'avatar'));
}, 120_000);

afterAll(async () => {
  for (const svc of started) await svc.kill();
  await s3Proxy?.stop();
  await s3?.stop();
  await db?.close();
  await chain?.stop();
});

async function startService(env: Record<string, string>): Promise<ServiceProcess> {
  if (!db.url) throw new Error('the crash test needs a PostgreSQL database');
  const svc = await startServiceProcess(
    ENTRY,
    processEnv(chain, db.url, { ...s3Env(s3, s3Proxy.url), ...env }),
  );
  started.push(svc);
  return svc;
}

async function rowsFor(name: string): Promise<number> {
  const client = new Client({ connectionString: db.url });
  await client.connect();
  try {
    const res = await client.query('SELECT count(*)::int AS n FROM metadata.images WHERE name = $1', [name]);
    return Number(res.rows[0].n);
  } finally {
    await client.end();
  }
}

describe('metadata-svc killed with -9 between writing the bytes and writing the row', () => {
  crashIt(
    'the bytes stay without a row, are never served, and the sweep of the restarted service removes them',
    async () => {
      const first = await startService({});
      const fields = await signedFields(first.url, alice);
      s3Proxy.setMode('hold-responses');
      const inFlight = upload(first.url, path, 'avatar', await png(), fields).then(
        () => 'answered',
        () => 'connection lost',
      );
      // S3 answered the PUT of the bytes (held back from the service): kill the service before it hears of it.
      await s3Proxy.waitForHeld(/^HTTP\/1\.1 200/m);
      await first.kill();
      expect(await inFlight).toBe('connection lost');
      s3Proxy.setMode('forward');

      const orphans = await blobs.list('img/');
      expect(orphans).toHaveLength(1);
      expect(await rowsFor('crash.eth')).toBe(0);

      const second = await startService({ ORPHAN_SWEEP_INTERVAL_MS: '300', ORPHAN_GRACE_MS: '1000' });
      const deadline = Date.now() + 20_000;
      let polls = 0;
      while ((await blobs.list('img/')).length > 0) {
        const res = await request(second.url).get(path);
        expect(res.status).toBe(404);
        expect(res.body.code).toBe('IMAGE_NOT_FOUND');
        polls++;
        if (Date.now() > deadline) throw new Error(`the orphan ${orphans[0]} was not swept within 20 s`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(polls).toBeGreaterThan(0);
      await request(second.url).get(path).expect(404);

      // The restarted service works, and the sweep spares bytes a row points at.
      await upload(second.url, path, 'avatar', await png(), await signedFields(second.url, alice)).expect(
        200,
      );
      await new Promise((resolve) => setTimeout(resolve, 1500));
      expect(await blobs.list('img/')).toHaveLength(1);
      await request(second.url).get(path).expect(200);
      expect(await rowsFor('crash.eth')).toBe(1);
    },
    90_000,
  );
});
