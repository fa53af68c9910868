import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { Wallet } from 'ethers';
import { namehash, tokenIdFromNamehash } from '@nrp/ens';
import { expectProblem, type EnsChain } from '@nrp/testkit';
import { AVATAR_SOURCE_PREFIX, AVATAR_TRANSFORM_PREFIX } from '../src/avatars/variants';
import { processPending } from '../src/uploads/worker';
import { stableImageUrl } from '../src/uploads/stable-url';
import {
  imageRows,
  png,
  signedFields,
  startEnsChain,
  startMetadataService,
  upload,
  walletOf,
  BASE_URL,
  type MetadataService,
} from './support';

let chain: EnsChain;
let h: MetadataService;
let alice: Wallet;
let bob: Wallet;
let app: MetadataService['app'];
let image: Buffer;
/** Serves `image` at any path: an avatar record pointing outside this service. */
let remote: Server;

const url = (name: string, kind: 'avatar' | 'header' = 'avatar') =>
  stableImageUrl(BASE_URL, 'sepolia', name, kind);
const path = (name: string, kind: 'avatar' | 'header' = 'avatar') => `/profile/sepolia/${name}/${kind}`;
const confirm = (name: string, kind: 'avatar' | 'header' = 'avatar') =>
  request(app).post(`${path(name, kind)}/confirm`);

beforeAll(async () => {
  chain = await startEnsChain({ chainId: 11155111 });
  image = await png();
  remote = createServer((_req, res) => res.writeHead(200, { 'content-type': 'image/png' }).end(image));
  await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
  // Events are written to the outbox (and left there: the relay is off), so the snapshots see them.
  h = await startMetadataService(chain, {
    OFFCHAIN_URL: 'http://127.0.0.1:9',
    EVENTS_INGEST_TOKEN: 'x'.repeat(32),
    EVENTS_RELAY_INTERVAL_MS: '0',
    IMAGE_FETCH_ALLOWED_ORIGINS: remoteOrigin(),
  });
  app = h.app;
  alice = walletOf(chain, 1);
  bob = walletOf(chain, 2);
  for (const label of ['none', 'unset', 'stranger']) await chain.ens.registerEthName(label, alice.address);
  // A wrapped name (so the token routes find it), owned by alice.
  await chain.ens.registerEthName('reads', bob.address);
  await chain.ens.wrapName('reads.eth', alice.address);
  await chain.ens.setResolver('reads.eth', chain.contracts.publicResolver);
}, 120_000);

afterAll(async () => {
  await h?.close();
  remote?.closeAllConnections();
  await new Promise((resolve) => remote?.close(resolve));
  await chain?.stop();
});

function remoteOrigin(): string {
  return `http://127.0.0.1:${(remote.address() as AddressInfo).port}`;
}

describe('POST /profile/{network}/{subname}/{kind}/confirm', () => {
  it('404 PENDING_UPLOAD_NOT_FOUND when nothing is pending', async () => {
    expectProblem(await confirm('none.eth'), 404, 'PENDING_UPLOAD_NOT_FOUND');
  });

  it('409 RECORD_NOT_SET while the record is not the stable URL, and the upload stays pending', async () => {
    await upload(app, path('unset.eth'), 'avatar', image, await signedFields(app, alice)).expect(200);
    await chain.ens.setText('unset.eth', 'avatar', 'https://elsewhere.example/a.png');
    const problem = expectProblem(await confirm('unset.eth'), 409, 'RECORD_NOT_SET');
    expect(problem.detail).toContain(url('unset.eth'));
    expect((await imageRows(h.db)).filter((r) => r.name === 'unset.eth').map((r) => r.status)).toEqual([
      'pending',
    ]);
  });

  it("403 NOT_SUBNAME_OWNER when the record is set but no pending upload is the owner's", async () => {
    await upload(app, path('stranger.eth'), 'avatar', image, await signedFields(app, bob)).expect(200);
    await chain.ens.setText('stranger.eth', 'avatar', url('stranger.eth'));
    expectProblem(await confirm('stranger.eth'), 403, 'NOT_SUBNAME_OWNER');
    await request(app).get(path('stranger.eth')).expect(404);
  });

  it('400 for a bad name or an unknown network', async () => {
    expectProblem(await request(app).post('/profile/sepolia/a..b/avatar/confirm'), 400, 'INVALID_NAME');
    expectProblem(await request(app).post('/profile/goerli/none.eth/avatar/confirm'), 400, 'INVALID_INPUT');
  });

  it('429 RATE_LIMITED past CONFIRM_RATE_LIMIT_PER_MINUTE per client and kind', async () => {
    const limited = await startMetadataService(chain, { CONFIRM_RATE_LIMIT_PER_MINUTE: '1' });
    try {
      const post = (kind: string) => request(limited.app).post(`/profile/sepolia/none.eth/${kind}/confirm`);
      expectProblem(await post('avatar'), 404, 'PENDING_UPLOAD_NOT_FOUND');
      expectProblem(await post('avatar'), 429, 'RATE_LIMITED');
      expectProblem(await post('header'), 404, 'PENDING_UPLOAD_NOT_FOUND');
    } finally {
      await limited.close();
    }
  });
});

describe('reads do not write', () => {
  /** Every row of every table of the service (its migrations' too), and every key of its blob store. */
  async function snapshot() {
    const db = h.db.db.withTables<{ metadata_migrations: { name: string; timestamp: string } }>();
    return {
      rows: {
        images: await db.selectFrom('images').selectAll().orderBy('id').execute(),
        metadata_nonces: await db.selectFrom('metadata_nonces').selectAll().execute(),
        metadata_event_outbox: await db.selectFrom('metadata_event_outbox').selectAll().execute(),
        metadata_migrations: await db.selectFrom('metadata_migrations').selectAll().execute(),
      },
      keys: (await h.context.blobs.list('')).sort(),
    };
  }

  const tokenId = tokenIdFromNamehash(namehash('reads.eth'));
  /** A request of each GET route for reads.eth, and the status it answers with this fixture (once it is started). */
  const readsOfFixture = (): Record<string, { path: string; status: number }> => ({
    '/:network/avatar/:name': { path: '/sepolia/avatar/reads.eth', status: 200 },
    '/:network/avatar/:name/meta': { path: '/sepolia/avatar/reads.eth/meta', status: 200 },
    // The header record is set, but its upload is pending: AVATAR_UNAVAILABLE, not confirmed by the read.
    '/:network/header/:name': { path: '/sepolia/header/reads.eth', status: 404 },
    '/:network/header/:name/meta': { path: '/sepolia/header/reads.eth/meta', status: 200 },
    '/profile/:network/:subname/avatar': { path: path('reads.eth'), status: 200 },
    '/profile/:network/:subname/header': { path: path('reads.eth', 'header'), status: 404 },
    '/metadata/network/:chainId/token/:tokenId': {
      path: `/metadata/network/11155111/token/${tokenId}`,
      status: 200,
    },
    '/metadata/network/:chainId/token/:tokenId/image.png': {
      path: `/metadata/network/11155111/token/${tokenId}/image.png`,
      status: 200,
    },
    '/:network/:contractAddress/:tokenId': {
      path: `/sepolia/${chain.contracts.nameWrapper}/${tokenId}`,
      status: 200,
    },
    '/:network/:contractAddress/:tokenId/image': {
      path: `/sepolia/${chain.contracts.nameWrapper}/${tokenId}/image`,
      status: 200,
    },
  });

  it('every GET route leaves the database and the blob store as they were, pending uploads included', async () => {
    // avatar: alice's upload confirmed, bob's still pending; header: alice's pending although its record is set.
    await upload(app, path('reads.eth'), 'avatar', image, await signedFields(app, bob)).expect(200);
    await upload(app, path('reads.eth'), 'avatar', image, await signedFields(app, alice)).expect(200);
    await chain.ens.setText('reads.eth', 'avatar', url('reads.eth'));
    await confirm('reads.eth').expect(200);
    const header = await png(128, 64, '#00aa00');
    await upload(app, path('reads.eth', 'header'), 'header', header, await signedFields(app, alice)).expect(
      200,
    );
    await chain.ens.setText('reads.eth', 'header', url('reads.eth', 'header'));
    const statuses = (await imageRows(h.db))
      .filter((r) => r.name === 'reads.eth')
      .map((r) => `${r.kind} ${r.status}`)
      .sort();
    expect(statuses).toEqual(['avatar confirmed', 'avatar pending', 'header pending']);
    expect(await h.db.db.selectFrom('metadata_event_outbox').select('type').execute()).not.toEqual([]);

    const reads = readsOfFixture();
    const getRoutes = h.routes.filter((r) => r.method === 'get').map((r) => r.path);
    expect([...getRoutes].sort()).toEqual(Object.keys(reads).sort());
    const before = await snapshot();
    for (const route of getRoutes) {
      const read = reads[route];
      if (!read) throw new Error(`no request for ${route}`);
      const res = await request(app).get(read.path);
      expect([route, res.status]).toEqual([route, read.status]);
    }
    expect(await snapshot()).toEqual(before);

    // Past the pending window too: expired uploads are the worker's to discard, not a read's.
    h.advance(h.config.PENDING_WINDOW_MS + 1);
    for (const route of getRoutes) await request(app).get(reads[route]?.path ?? route);
    expect(await snapshot()).toEqual(before);

    // The snapshot sees writes: the worker's pass discards the expired uploads (reads.eth's two, and those of
    // unset.eth and stranger.eth above): rows, events and bytes.
    expect(await processPending(h.context)).toEqual({ discarded: 4, confirmed: 0 });
    const after = await snapshot();
    expect(after.rows.images).not.toEqual(before.rows.images);
    expect(after.rows.metadata_event_outbox).not.toEqual(before.rows.metadata_event_outbox);
    expect(after.keys).not.toEqual(before.keys);
  });

  it('an avatar from elsewhere and its variants fill only the derived-image cache, which any answer can do without', async () => {
    await chain.ens.registerEthName('elsewhere', alice.address);
    await chain.ens.setText('elsewhere.eth', 'avatar', `${remoteOrigin()}/elsewhere.png`);
    const reads = ['/sepolia/avatar/elsewhere.eth', '/sepolia/avatar/elsewhere.eth?width=64&format=webp'];
    const before = await snapshot();
    const answers = [];
    for (const read of reads) {
      const res = await request(app).get(read).expect(200);
      answers.push([res.headers['content-type'], res.headers.etag]);
    }
    const after = await snapshot();
    expect(after.rows).toEqual(before.rows);
    // What the reads added: the fetched source under its content hash, and the one transform of it.
    const added = after.keys.filter((key) => !before.keys.includes(key));
    expect(added).toEqual([
      expect.stringMatching(new RegExp(`^${AVATAR_SOURCE_PREFIX}[0-9a-f]{64}$`)),
      expect.stringMatching(new RegExp(`^${AVATAR_TRANSFORM_PREFIX}[0-9a-f]{64}/`)),
    ]);
    expect(before.keys.filter((key) => !after.keys.includes(key))).toEqual([]);

    // A cache: with its entries gone (and a fresh service, so no process memory), the same reads answer the same.
    for (const key of added) await h.context.blobs.delete(key);
    const fresh = await startMetadataService(
      chain,
      { IMAGE_FETCH_ALLOWED_ORIGINS: remoteOrigin() },
      { blobs: h.context.blobs },
    );
    try {
      for (const [i, read] of reads.entries()) {
        const res = await request(fresh.app).get(read).expect(200);
        expect([res.headers['content-type'], res.headers.etag]).toEqual(answers[i]);
      }
    } finally {
      await fresh.close();
    }
  });
});
