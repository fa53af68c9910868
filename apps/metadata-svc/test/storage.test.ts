import { sql } from 'kysely';
import request from 'supertest';
import type { Wallet } from 'ethers';
import { DEPENDENCY_RETRY_AFTER_SECONDS } from '@nrp/server';
import { startS3Server, startTcpProxy, type EnsChain, type TestS3Server } from '@nrp/testkit';
import { newBlobKey } from '../src/uploads/blobs';
import { stableImageUrl } from '../src/uploads/stable-url';
import { sweepOrphans } from '../src/uploads/orphans';
import {
  imageRows,
  png,
  signedFields,
  startEnsChain,
  startMetadataService,
  storedKeys,
  upload,
  walletOf,
  BASE_URL,
  type MetadataService,
} from './support';

let chain: EnsChain;
let s3: TestS3Server;
let h: MetadataService;
let alice: Wallet;
let image: Buffer;
const path = (name: string) => `/profile/sepolia/${name}/avatar`;

beforeAll(async () => {
  chain = await startEnsChain({ chainId: 11155111 });
  s3 = await startS3Server();
  alice = walletOf(chain, 1);
  image = await png();
  h = await startMetadataService(chain, {
    S3_BUCKET: s3.bucket,
    S3_ENDPOINT: s3.endpoint,
    S3_REGION: s3.region,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
  });
  for (const label of ['s3', 'dbfail', 'crash', 'down']) {
    await chain.ens.registerEthName(label, alice.address);
    await chain.ens.setText(
      `${label}.eth`,
      'avatar',
      stableImageUrl(BASE_URL, 'sepolia', `${label}.eth`, 'avatar'),
    );
  }
}, 120_000);

afterAll(async () => {
  await h?.close();
  await s3?.stop();
  await chain?.stop();
});

describe('S3 storage (s3rver) and consistency', () => {
  it('stores and serves images through S3', async () => {
    const app = h.app;
    await upload(app, path('s3.eth'), 'avatar', image, await signedFields(app, alice)).expect(200);
    const [row] = (await imageRows(h.db)).filter((r) => r.name === 's3.eth');
    expect(await storedKeys(h.context.blobs)).toContain(row?.blob_key);
    const served = await request(app).get(path('s3.eth')).expect(200);
    expect(Buffer.compare(served.body as Buffer, image)).toBe(0);
    expect((await h.context.blobs.get(row?.blob_key ?? ''))?.contentType).toBe('image/png');
  });

  it('a database failure after the bytes were written removes the bytes again (a real failing trigger)', async () => {
    const app = h.app;
    const before = await storedKeys(h.context.blobs);
    await sql`create function refuse_images() returns trigger language plpgsql as $$ begin raise exception 'refused by test trigger'; end $$`.execute(
      h.db.db,
    );
    await sql`create trigger refuse_images before insert on images for each row execute function refuse_images()`.execute(
      h.db.db,
    );
    try {
      const res = await upload(
        app,
        path('dbfail.eth'),
        'avatar',
        image,
        await signedFields(app, alice),
      ).expect(500);
      expect(res.body.code).toBe('INTERNAL_ERROR');
      expect(JSON.stringify(res.body)).not.toContain('refused by test trigger');
    } finally {
      await sql`drop trigger refuse_images on images`.execute(h.db.db);
      await sql`drop function refuse_images()`.execute(h.db.db);
    }
    expect(await storedKeys(h.context.blobs)).toEqual(before);
    expect((await imageRows(h.db)).filter((r) => r.name === 'dbfail.eth')).toHaveLength(0);
    await request(app).get(path('dbfail.eth')).expect(404);
    await upload(app, path('dbfail.eth'), 'avatar', image, await signedFields(app, alice)).expect(200);
  });

  it('bytes left by a crash before the row are never visible and removed by the next sweep', async () => {
    const ctx = h.context;
    // The state a crash between the two writes leaves: bytes under a fresh key, no row.
    const orphan = newBlobKey('sepolia', new Date());
    await ctx.blobs.put(orphan, image, 'image/png');
    // A key from an upload still in flight (younger than ORPHAN_GRACE_MS) must be spared.
    const inFlight = newBlobKey('sepolia', new Date(Date.now() + 3_600_000));
    await ctx.blobs.put(inFlight, image, 'image/png');
    await request(h.app).get(path('crash.eth')).expect(404);
    const referenced = (await imageRows(h.db)).map((r) => r.blob_key);

    expect(await sweepOrphans(ctx)).toBe(1);
    const keys = await storedKeys(ctx.blobs);
    expect(keys).not.toContain(orphan);
    expect(keys).toContain(inFlight);
    for (const key of referenced) expect(keys).toContain(key);
    await ctx.blobs.delete(inFlight);
  });

  it('the sweep pages through the store: orphans on every page go, referenced and young keys stay', async () => {
    const ctx = h.context;
    const old = new Date(Date.now() - 1000);
    const orphans = Array.from({ length: 7 }, () => newBlobKey('sepolia', old));
    for (const key of orphans) await ctx.blobs.put(key, image, 'image/png');
    const young = newBlobKey('sepolia', new Date(Date.now() + 3_600_000));
    await ctx.blobs.put(young, image, 'image/png');
    const referenced = (await imageRows(h.db)).map((r) => r.blob_key);
    expect(referenced.length).toBeGreaterThan(0);
    const before = await storedKeys(ctx.blobs);
    expect(before.length).toBeGreaterThan(2 * 3);

    // Paged: never the whole listing at once.
    const fullList = jest.spyOn(ctx.blobs, 'list');
    const pages = jest.spyOn(ctx.blobs, 'listPages');
    try {
      expect(await sweepOrphans(ctx, { pageSize: 2 })).toBe(orphans.length);
      expect(fullList).not.toHaveBeenCalled();
      expect(pages).toHaveBeenCalledWith('img/', 2);
    } finally {
      fullList.mockRestore();
      pages.mockRestore();
    }
    const keys = await storedKeys(ctx.blobs);
    for (const key of orphans) expect(keys).not.toContain(key);
    expect(keys).toContain(young);
    for (const key of referenced) expect(keys).toContain(key);
    expect(keys).toEqual(before.filter((k) => !orphans.includes(k)));
    await ctx.blobs.delete(young);
  });

  it('storage down: 503 and no row', async () => {
    const app = h.app;
    const fields = await signedFields(app, alice);
    await s3.stop();
    const res = await upload(app, path('down.eth'), 'avatar', image, fields).expect(503);
    expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
    expect((await imageRows(h.db)).filter((r) => r.name === 'down.eth')).toHaveLength(0);
    expect((await request(app).get('/ready').expect(503)).body.checks.storage).toBeTruthy();
  });
});

describe('S3 stopped during an upload', () => {
  it('answers 503 with Retry-After, writes no row, and leaves no bytes after the sweep once S3 is back', async () => {
    const store = await startS3Server();
    let armed = false;
    let stopping: Promise<void> | undefined;
    // Between the service and s3rver: the moment the upload's PUT reaches S3, s3rver stops (new connections are
    // refused from then on) and the connection carrying the upload dies.
    const proxy = await startTcpProxy({
      host: '127.0.0.1',
      port: store.port,
      watch: (chunk) => {
        if (!armed || stopping || !chunk.toString('latin1').startsWith(`PUT /${store.bucket}/img/`)) return;
        stopping = store.kill();
        proxy.dropConnections();
      },
    });
    const local = await startMetadataService(chain, {
      S3_BUCKET: store.bucket,
      S3_ENDPOINT: `http://127.0.0.1:${proxy.port}`,
      S3_REGION: store.region,
      S3_ACCESS_KEY_ID: store.accessKeyId,
      S3_SECRET_ACCESS_KEY: store.secretAccessKey,
    });
    try {
      const app = local.app;
      const ctx = local.context;
      const before = await storedKeys(ctx.blobs);
      const fields = await signedFields(app, alice);
      armed = true;
      const res = await upload(app, path('midway.eth'), 'avatar', image, fields).expect(503);
      expect(stopping).toBeDefined();
      expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
      expect(res.headers['retry-after']).toBe(String(DEPENDENCY_RETRY_AFTER_SECONDS));
      expect(res.body.code).toBe('SERVICE_UNAVAILABLE');
      expect((await imageRows(local.db)).filter((r) => r.name === 'midway.eth')).toHaveLength(0);

      // S3 back: whatever reached it before it stopped is swept, and the same service stores uploads again.
      await stopping;
      await store.restart();
      await sweepOrphans(ctx);
      expect(await storedKeys(ctx.blobs)).toEqual(before);
      await request(app).get(path('midway.eth')).expect(404);
      await upload(app, path('midway.eth'), 'avatar', image, await signedFields(app, alice)).expect(200);
    } finally {
      await local.close();
      await proxy.stop();
      await store.stop();
    }
  });
});

describe('background worker', () => {
  it('confirms a pending upload on its own and stops on shutdown', async () => {
    const local = await startMetadataService(chain, { PENDING_CHECK_INTERVAL_MS: '50' });
    try {
      await chain.ens.registerEthName('worker', alice.address);
      const app = local.app;
      const res = await upload(
        app,
        path('worker.eth'),
        'avatar',
        image,
        await signedFields(app, alice),
      ).expect(200);
      expect(res.body.pending).toBe(true);
      await chain.ens.setText(
        'worker.eth',
        'avatar',
        stableImageUrl(BASE_URL, 'sepolia', 'worker.eth', 'avatar'),
      );
      let status: string | undefined;
      for (let i = 0; i < 200 && status !== 'confirmed'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        status = (await imageRows(local.db)).find((r) => r.name === 'worker.eth')?.status;
      }
      expect(status).toBe('confirmed');
    } finally {
      await local.close();
    }
  });
});
