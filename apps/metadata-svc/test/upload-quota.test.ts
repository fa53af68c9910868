/**
 * Pending uploads are bounded per uploader and per name: the quota is filled for real and every upload past it is
 * refused with problem+json and Retry-After, writing neither a row nor bytes; concurrent uploads cannot pass it
 * together; the name's owner is never locked out by strangers.
 */
import request from 'supertest';
import type { Wallet } from 'ethers';
import type { EnsChain } from '@nrp/testkit';
import { stableImageUrl } from '../src/uploads/stable-url';
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

const PER_UPLOADER = 3;
const PER_NAME = 2;

let chain: EnsChain;
let h: MetadataService;
let app: MetadataService['app'];
let owner: Wallet;
let image: Buffer;

const path = (name: string, kind = 'avatar') => `/profile/sepolia/${name}/${kind}`;

beforeAll(async () => {
  chain = await startEnsChain({ chainId: 11155111 });
  h = await startMetadataService(chain, {
    PENDING_UPLOADS_PER_UPLOADER: String(PER_UPLOADER),
    PENDING_UPLOADS_PER_NAME: String(PER_NAME),
  });
  app = h.app;
  owner = walletOf(chain, 1);
  image = await png();
  for (const label of ['q1', 'q2', 'q3', 'q4', 'crowded', 'race'])
    await chain.ens.registerEthName(label, owner.address);
}, 120_000);

afterAll(async () => {
  await h?.close();
  await chain?.stop();
});

async function snapshot() {
  const rows = await imageRows(h.db);
  return { rows: rows.map((r) => r.id).sort(), keys: (await storedKeys(h.context.blobs)).sort() };
}

/** A signed upload of `name`'s `kind` by `wallet`, expected to answer `status`. */
async function uploadAs(wallet: Wallet, name: string, status: number, kind = 'avatar') {
  const fields = await signedFields(app, wallet, { scope: kind });
  return upload(app, path(name, kind), kind, image, fields).expect(status);
}

describe('pending upload limits', () => {
  it(`refuses a pending upload past ${PER_UPLOADER} of one address (429) and writes nothing`, async () => {
    const uploader = walletOf(chain, 2);
    for (const name of ['q1.eth', 'q2.eth', 'q3.eth']) {
      const res = await uploadAs(uploader, name, 200);
      expect(res.body.pending).toBe(true);
    }
    const before = await snapshot();
    const refused = await uploadAs(uploader, 'q4.eth', 429);
    expect(refused.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(refused.body).toMatchObject({ code: 'PENDING_UPLOAD_LIMIT', status: 429 });
    const retryAfter = Number(refused.headers['retry-after']);
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(h.config.PENDING_WINDOW_MS / 1000);
    // Headers count too: they are pending uploads of the same address.
    await uploadAs(uploader, 'q4.eth', 429, 'header');
    expect(await snapshot()).toEqual(before);

    // Replacing one of its own pending uploads is not a new one.
    await uploadAs(uploader, 'q2.eth', 200);
    expect((await imageRows(h.db)).filter((r) => r.uploader === uploader.address.toLowerCase())).toHaveLength(
      3,
    );

    // When the window has passed the slots are free again.
    h.advance(h.config.PENDING_WINDOW_MS);
    await uploadAs(uploader, 'q4.eth', 200);
  });

  it(`refuses a third stranger on one name (409) and writes nothing, but never its owner`, async () => {
    const strangers = [walletOf(chain, 3), walletOf(chain, 4), walletOf(chain, 5)];
    await uploadAs(strangers[0] as Wallet, 'crowded.eth', 200);
    await uploadAs(strangers[1] as Wallet, 'crowded.eth', 200);
    const before = await snapshot();
    const refused = await uploadAs(strangers[2] as Wallet, 'crowded.eth', 409);
    expect(refused.body).toMatchObject({ code: 'NAME_PENDING_LIMIT', status: 409 });
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(await snapshot()).toEqual(before);
    // The other kind of the name has its own slots.
    await uploadAs(strangers[2] as Wallet, 'crowded.eth', 200, 'header');

    // The owner's pending upload is accepted, and confirmed once the record is set.
    await uploadAs(owner, 'crowded.eth', 200);
    await chain.ens.setText(
      'crowded.eth',
      'avatar',
      stableImageUrl(BASE_URL, 'sepolia', 'crowded.eth', 'avatar'),
    );
    await request(app)
      .post(`${path('crowded.eth')}/confirm`)
      .expect(200);
    await request(app).get(path('crowded.eth')).expect(200);
  });

  it('holds under concurrency: of parallel uploads by one address to different names, only the quota is stored', async () => {
    const uploader = walletOf(chain, 6);
    const fields = await Promise.all(
      ['race.eth', 'q1.eth', 'q2.eth', 'q3.eth', 'q4.eth', 'crowded.eth'].map(async (name) => ({
        name,
        fields: await signedFields(app, uploader, { scope: 'header' }),
      })),
    );
    const answers = await Promise.all(
      fields.map(({ name, fields: f }) => upload(app, path(name, 'header'), 'header', image, f)),
    );
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429]);
    const mine = (await imageRows(h.db)).filter((r) => r.uploader === uploader.address.toLowerCase());
    expect(mine).toHaveLength(PER_UPLOADER);
    const keys = await storedKeys(h.context.blobs);
    // Every stored key belongs to a row: the refused uploads left no bytes behind.
    const referenced = new Set((await imageRows(h.db)).map((r) => r.blob_key));
    expect(keys.filter((k) => !referenced.has(k))).toEqual([]);
  });
});
