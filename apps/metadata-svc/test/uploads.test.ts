import { randomBytes } from 'node:crypto';
import request from 'supertest';
import sharp from 'sharp';
import type { Wallet } from 'ethers';
import { namehash } from '@nrp/ens';
import {
  deploySmartAccount,
  deploySmartAccountFactory,
  signSignInMessage,
  smartAccountOf,
  smartAccountSignature,
  viemAcceptsSignIn,
  type EnsChain,
} from '@nrp/testkit';
import { processPending } from '../src/uploads/worker';
import { stableImageUrl } from '../src/uploads/stable-url';
import {
  buildMessage,
  imageRows,
  issueSignInNonce,
  jpeg,
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
let h: MetadataService;
let alice: Wallet;
let bob: Wallet;
let app: MetadataService['app'];
let image: Buffer;

const url = (name: string, kind = 'avatar') => stableImageUrl(BASE_URL, 'sepolia', name, kind as 'avatar');
const path = (name: string, kind = 'avatar') => `/profile/sepolia/${name}/${kind}`;

beforeAll(async () => {
  chain = await startEnsChain({ chainId: 11155111 });
  h = await startMetadataService(chain);
  app = h.app;
  alice = walletOf(chain, 1);
  bob = walletOf(chain, 2);
  image = await png();
  for (const label of [
    'signin',
    'confirmed',
    'pending',
    'discard',
    'getcheck',
    'del',
    'files',
    'svg',
    'hdr',
    'bighdr',
    'crowd',
    'counted',
  ]) {
    await chain.ens.registerEthName(label, alice.address);
  }
  await chain.ens.setText('confirmed.eth', 'avatar', url('confirmed.eth'));
  await chain.ens.setText('del.eth', 'avatar', url('del.eth'));
  await chain.ens.setText('files.eth', 'avatar', url('files.eth'));
  await chain.ens.setText('svg.eth', 'avatar', url('svg.eth'));
  await chain.ens.setText('hdr.eth', 'header', url('hdr.eth', 'header'));
  await chain.ens.setText('bighdr.eth', 'header', url('bighdr.eth', 'header'));
  // A wrapped name: the registry owner is the NameWrapper, the token owner is alice.
  await chain.ens.registerEthName('wrapped', bob.address);
  await chain.ens.wrapName('wrapped.eth', alice.address);
  await chain.ens.setResolver('wrapped.eth', chain.contracts.publicResolver);
  await chain.ens.setText('wrapped.eth', 'avatar', url('wrapped.eth'));
}, 120_000);

afterAll(async () => {
  await h?.close();
  await chain?.stop();
});

async function rowsFor(name: string) {
  return (await imageRows(h.db)).filter((r) => r.name === name);
}

describe('sign-in', () => {
  it.each(['siwe', 'viem'] as const)('accepts a message built by %s', async (builder) => {
    const fields = await signedFields(app, alice, { builder, scope: 'avatar' });
    const res = await upload(app, path('signin.eth'), 'avatar', image, fields).expect(200);
    expect(res.body).toMatchObject({ subname: 'signin.eth', network: 'sepolia', pending: true });
  });

  it('refuses a replayed nonce', async () => {
    const fields = await signedFields(app, alice);
    await upload(app, path('signin.eth'), 'avatar', image, fields).expect(200);
    const res = await upload(app, path('signin.eth'), 'avatar', image, fields).expect(401);
    expect(res.body.code).toBe('INVALID_NONCE');
  });

  it('refuses an expired nonce', async () => {
    const nonce = await issueSignInNonce(app, alice.address);
    h.advance(5 * 60_000 + 1000);
    const message = buildMessage(alice.address, nonce, {
      issuedAt: new Date(Date.now() + 5 * 60_000 + 1000),
    });
    const fields = {
      siweMessage: message,
      siweSignature: await signSignInMessage(alice, message),
      address: alice.address,
    };
    const res = await upload(app, path('signin.eth'), 'avatar', image, fields).expect(401);
    expect(res.body.code).toBe('EXPIRED_NONCE');
  });

  it('refuses the nonce of another address', async () => {
    const nonce = await issueSignInNonce(app, bob.address);
    const message = buildMessage(alice.address, nonce);
    const fields = {
      siweMessage: message,
      siweSignature: await signSignInMessage(alice, message),
      address: alice.address,
    };
    const res = await upload(app, path('signin.eth'), 'avatar', image, fields).expect(401);
    expect(res.body.code).toBe('INVALID_NONCE');
  });

  it('refuses a nonce of another scope', async () => {
    const fields = await signedFields(app, alice, { scope: 'header' });
    const res = await upload(app, path('signin.eth'), 'avatar', image, fields).expect(401);
    expect(res.body.code).toBe('NONCE_SCOPE_MISMATCH');
  });

  it("refuses a chain id that is not the path network's", async () => {
    const fields = await signedFields(app, alice, { chainId: 1 });
    const res = await upload(app, path('signin.eth'), 'avatar', image, fields).expect(401);
    expect(res.body.code).toBe('CHAIN_MISMATCH');
  });

  it('refuses a foreign domain', async () => {
    const fields = await signedFields(app, alice, { domain: 'evil.example' });
    const res = await upload(app, path('signin.eth'), 'avatar', image, fields).expect(401);
    expect(res.body.code).toBe('DOMAIN_MISMATCH');
  });

  it("refuses an address field that is not the message's", async () => {
    const fields = await signedFields(app, alice);
    const res = await upload(app, path('signin.eth'), 'avatar', image, {
      ...fields,
      address: bob.address,
    }).expect(401);
    expect(res.body.code).toBe('ADDRESS_MISMATCH');
  });

  it('refuses a signature by another key', async () => {
    const fields = await signedFields(app, alice, { signWith: bob });
    const res = await upload(app, path('signin.eth'), 'avatar', image, fields).expect(401);
    expect(res.body.code).toBe('INVALID_SIGNATURE');
  });

  it('refuses a message issued in the future', async () => {
    const fields = await signedFields(app, alice, { issuedAt: new Date(Date.now() + 10 * 60_000) });
    const res = await upload(app, path('signin.eth'), 'avatar', image, fields).expect(401);
    expect(res.body.code).toBe('MESSAGE_EXPIRED');
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
  });

  it('lets an ERC-1271 contract wallet sign in', async () => {
    const walletAddress = await chain.ens.deployErc1271Wallet(alice.address);
    await chain.ens.registerEthName('contractwallet', walletAddress, { resolver: null });
    const fields = await signedFields(app, alice, { address: walletAddress, raw: true });
    const res = await upload(app, path('contractwallet.eth'), 'avatar', image, fields).expect(200);
    expect(res.body).toMatchObject({ subname: 'contractwallet.eth', pending: true });
    expect((await rowsFor('contractwallet.eth'))[0]?.uploader).toBe(walletAddress.toLowerCase());
  });

  it('lets an ERC-6492 smart account sign in before and after it is deployed; a bad one is a 401', async () => {
    const factory = await deploySmartAccountFactory(chain.ens.deployer);
    const account = await smartAccountOf(chain.ens.deployer, factory, walletOf(chain, 3));
    await chain.ens.registerEthName('smartaccount', account.address, { resolver: null });
    /** A message of the account signed by `sign`, with viem's verdict on it. */
    const signed = async (sign: (message: string) => string) => {
      const message = buildMessage(account.address, await issueSignInNonce(app, account.address));
      const siweSignature = sign(message);
      const fields = { siweMessage: message, siweSignature, address: account.address };
      return {
        fields,
        viem: await viemAcceptsSignIn(chain.anvil.rpcUrl, account.address, message, siweSignature),
      };
    };
    const sendAs = async (sign: (message: string) => string, status: number) => {
      const { fields, viem } = await signed(sign);
      const res = await upload(app, path('smartaccount.eth'), 'avatar', image, fields).expect(status);
      expect(viem).toBe(status === 200);
      return res;
    };

    // Not deployed: only the ERC-6492 wrapper (the factory call around the owner's signature) can prove it.
    expect(await chain.ens.provider.getCode(account.address)).toBe('0x');
    await sendAs((m) => smartAccountSignature(account, m, true), 200);
    const unwrapped = await sendAs((m) => smartAccountSignature(account, m, false), 401);
    expect(unwrapped.body.code).toBe('INVALID_SIGNATURE');
    const stranger = { ...account, owner: bob };
    const forged = await sendAs((m) => smartAccountSignature(stranger, m, true), 401);
    expect(forged.body.code).toBe('INVALID_SIGNATURE');
    // The check deployed nothing (a deployless eth_call).
    expect(await chain.ens.provider.getCode(account.address)).toBe('0x');

    await deploySmartAccount(chain.ens.deployer, account);
    await sendAs((m) => smartAccountSignature(account, m, true), 200);
    await sendAs((m) => smartAccountSignature(account, m, false), 200);
    const forgedDeployed = await sendAs((m) => smartAccountSignature(stranger, m, true), 401);
    expect(forgedDeployed.body.code).toBe('INVALID_SIGNATURE');
  });

  it('issues nonces of at least 16 alphanumeric characters with expiresAt in ms, and validates the request', async () => {
    const res = await request(app).post('/auth/nonce').send({ address: alice.address }).expect(200);
    expect(res.body.nonce).toMatch(/^[A-Za-z0-9]{16,}$/);
    expect(res.body.expiresAt).toBeGreaterThan(Date.now() + 4 * 60_000);
    expect((await request(app).post('/auth/nonce').send({ address: 'nope' }).expect(400)).body.code).toBe(
      'INVALID_INPUT',
    );
    await request(app).post('/auth/nonce').send({ address: alice.address, scope: 'everything' }).expect(400);
  });
});

describe('upload validation', () => {
  /** Every refused upload leaves nothing behind and does not use up the nonce. */
  async function refused(
    file: Buffer | undefined,
    status: number,
    code: string,
    filename = 'image.png',
    kind = 'avatar',
  ): Promise<void> {
    const before = await storedKeys(h.context.blobs);
    const fields = await signedFields(app, alice);
    const res = await upload(app, path('files.eth', kind), kind, file, fields, filename).expect(status);
    expect(res.body.code).toBe(code);
    expect(await storedKeys(h.context.blobs)).toEqual(before);
    // The same signed fields still work: the nonce was not consumed by the refused upload.
    await upload(app, path('files.eth', kind), kind, image, fields).expect(200);
  }

  it('413 for a file over the avatar limit (2 MB)', async () => {
    const big = Buffer.concat([image, Buffer.alloc(2 * 1024 * 1024)]);
    await refused(big, 413, 'FILE_TOO_LARGE');
  });

  it('413 before reading when the declared size is over the limit; headers allow 5 MB', async () => {
    await refused(Buffer.concat([image, Buffer.alloc(3 * 1024 * 1024)]), 413, 'FILE_TOO_LARGE');
    // 3 MB is over the avatar limit but fine for a header
    const fields = await signedFields(app, alice, { scope: 'header' });
    const big = await png(1100, 1100, '#808080');
    const header = Buffer.concat([big, Buffer.alloc(3 * 1024 * 1024 - big.length)]);
    await upload(app, path('files.eth', 'header'), 'header', header, fields).expect(200);
    await refused(
      Buffer.concat([image, Buffer.alloc(5 * 1024 * 1024)]),
      413,
      'FILE_TOO_LARGE',
      'h.png',
      'header',
    );
  });

  it('a 4.5 MB header is kept when what is served of it fits 4 MiB, and refused 413 at upload when it would not', async () => {
    // 4.5 MB of which re-encoding keeps what is drawn (a camera's file: a big EXIF preview, maker notes):
    // well under the 4 MiB of an answer, served whole.
    const drawn = await jpeg(1200, 400);
    const photo = Buffer.concat([drawn, Buffer.alloc(4.5 * 1024 * 1024 - drawn.length)]);
    expect(photo.length).toBeLessThan(h.config.HEADER_MAX_BYTES);
    const fields = await signedFields(app, alice, { scope: 'header' });
    await upload(app, path('bighdr.eth', 'header'), 'header', photo, fields).expect(200);
    const served = await request(app).get(path('bighdr.eth', 'header')).expect(200);
    expect(served.headers['content-type']).toBe('image/jpeg');
    expect(Number(served.headers['content-length'])).toBeLessThanOrEqual(4 * 1024 * 1024);
    // Lossless noise stays over 4 MiB re-encoded: refused at upload (it answered 200 and was then served as a 500).
    const lossless = await sharp(randomBytes(1250 * 1250 * 3), {
      raw: { width: 1250, height: 1250, channels: 3 },
    })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(lossless.length).toBeGreaterThan(4.4 * 1024 * 1024);
    expect(lossless.length).toBeLessThan(h.config.HEADER_MAX_BYTES);
    const before = await storedKeys(h.context.blobs);
    const again = await signedFields(app, alice, { scope: 'header' });
    const res = await upload(app, path('bighdr.eth', 'header'), 'header', lossless, again).expect(413);
    expect(res.body).toMatchObject({ code: 'IMAGE_TOO_LARGE', detail: expect.stringMatching(/4 MiB/) });
    expect(await storedKeys(h.context.blobs)).toEqual(before);
    expect((await request(app).get(path('bighdr.eth', 'header')).expect(200)).body).toEqual(served.body);
  });

  it('413 for a decompression bomb (pixel limit)', async () => {
    const bomb = await sharp8k();
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024);
    await refused(bomb, 413, 'IMAGE_TOO_LARGE');
  });

  it('415 for an HTML file renamed .png', async () => {
    await refused(
      Buffer.from('<!doctype html><html><body><script>alert(1)</script></body></html>'),
      415,
      'INVALID_FILE_FORMAT',
    );
  });

  it('415 for a PDF', async () => {
    await refused(Buffer.from('%PDF-1.7\n1 0 obj\n'), 415, 'INVALID_FILE_FORMAT', 'x.jpg');
  });

  it('400 for an empty file, a missing file and missing fields', async () => {
    await refused(Buffer.alloc(0), 400, 'EMPTY_FILE');
    await refused(undefined, 400, 'MISSING_FILE');
    const fields = await signedFields(app, alice);
    const res = await upload(app, path('files.eth'), 'avatar', image, {
      siweMessage: fields.siweMessage,
    }).expect(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(
      expect.arrayContaining(['body.siweSignature', 'body.address']),
    );
  });

  it("400 in our words for a multipart body cut off or over the form's limits, never the parser's own", async () => {
    const before = await storedKeys(h.context.blobs);
    const cut = await request(app)
      .post(path('files.eth'))
      .set('content-type', 'multipart/form-data; boundary=xyz')
      .send('--xyz\r\nContent-Disposition: form-data; name="address"\r\n\r\n0x12');
    expect(cut.status).toBe(400);
    expect(cut.body).toMatchObject({ code: 'INVALID_MULTIPART', detail: expect.stringMatching(/cut off/) });
    expect(cut.body.detail).not.toMatch(/Unexpected end of form/i);
    let crowded = request(app).post(path('files.eth'));
    for (let i = 0; i < 7; i++) crowded = crowded.field(`f${i}`, 'x');
    const many = await crowded.attach('avatar', image, 'a.png');
    expect(many.status).toBe(400);
    expect(many.body).toMatchObject({
      code: 'INVALID_MULTIPART',
      detail: expect.stringMatching(/at most 6 fields/),
    });
    expect(await storedKeys(h.context.blobs)).toEqual(before);
  });

  it('400 for a truncated PNG', async () => {
    await refused(image.subarray(0, 60), 400, 'INVALID_IMAGE');
  });

  it('400 for a file under another field name, a bad name or an unknown network', async () => {
    const fields = await signedFields(app, alice);
    const wrongField = await upload(app, path('files.eth'), 'header', image, fields).expect(400);
    expect(wrongField.body.code).toBe('INVALID_MULTIPART');
    expect(
      (await upload(app, '/profile/sepolia/a..b/avatar', 'avatar', image, fields).expect(400)).body.code,
    ).toBe('INVALID_NAME');
    expect(
      (await upload(app, '/profile/goerli/files.eth/avatar', 'avatar', image, fields).expect(400)).body.code,
    ).toBe('INVALID_INPUT');
  });

  it('takes the type from the bytes: a PNG renamed .svg is stored as PNG, a JPEG as JPEG', async () => {
    let fields = await signedFields(app, alice);
    await upload(app, path('files.eth'), 'avatar', image, fields, 'avatar.svg').expect(200);
    let served = await request(app).get(path('files.eth')).expect(200);
    expect(served.headers['content-type']).toBe('image/png');
    fields = await signedFields(app, alice);
    const photo = await jpeg();
    await upload(app, path('files.eth'), 'avatar', photo, fields, 'avatar.png').expect(200);
    served = await request(app).get(path('files.eth')).expect(200);
    expect(served.headers['content-type']).toBe('image/jpeg');
    // Re-encoded (upload-privacy.test.ts): the same picture, not the same bytes.
    expect(await sharp(served.body as Buffer).metadata()).toMatchObject({
      format: 'jpeg',
      width: 64,
      height: 64,
    });
  });

  it('sanitises SVG: no script, no event handler, no foreignObject, no external reference', async () => {
    const svg = `<?xml version="1.0"?>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="40" height="40" onload="alert(1)">
  <script>alert(2)</script>
  <foreignObject width="10" height="10"><div xmlns="http://www.w3.org/1999/xhtml">x</div></foreignObject>
  <image href="https://tracker.example/pixel.png" width="1" height="1"/>
  <a xlink:href="javascript:alert(3)"><circle id="c" cx="20" cy="20" r="10" fill="red" onclick="alert(4)"/></a>
  <rect width="5" height="5" style="fill: url(https://tracker.example/x)"/>
</svg>`;
    const fields = await signedFields(app, alice);
    const res = await upload(app, path('svg.eth'), 'avatar', Buffer.from(svg), fields, 'a.svg').expect(200);
    expect(res.body.pending).toBeUndefined();
    const served = await request(app)
      .get(path('svg.eth'))
      .buffer(true)
      .parse((r, cb) => {
        const chunks: Buffer[] = [];
        r.on('data', (c: Buffer) => chunks.push(c));
        r.on('end', () => cb(null, Buffer.concat(chunks)));
      });
    expect(served.status).toBe(200);
    const text = (served.body as Buffer).toString('utf8');
    expect(served.headers['content-type']).toBe('image/svg+xml');
    expect(served.headers['x-content-type-options']).toBe('nosniff');
    expect(served.headers['content-security-policy']).toContain('sandbox');
    expect(served.headers['content-security-policy']).toContain("default-src 'none'");
    expect(text).toContain('<circle');
    for (const bad of ['<script', 'onload', 'onclick', 'foreignObject', 'tracker.example', 'javascript:']) {
      expect(text).not.toContain(bad);
    }
    expect(res.body.fileSize).toBe(Buffer.byteLength(text));
  });
});

async function sharp8k(): Promise<Buffer> {
  return png(8000, 8000, '#000000');
}

describe('upload states', () => {
  it('confirmed at once when the record points at the stable URL; a replacement is isUpdate', async () => {
    let fields = await signedFields(app, alice);
    let res = await upload(app, path('confirmed.eth'), 'avatar', image, fields).expect(200);
    expect(res.body).toEqual({
      subname: 'confirmed.eth',
      network: 'sepolia',
      avatarUrl: url('confirmed.eth'),
      uploadedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      fileSize: image.length,
      isUpdate: false,
    });
    const first = await request(app).get(path('confirmed.eth')).expect(200);
    expect(first.headers.etag).toBeTruthy();
    expect(first.headers['cache-control']).toContain('max-age');
    await request(app)
      .get(path('confirmed.eth'))
      .set('If-None-Match', first.headers.etag as string)
      .expect(304);

    const second = await png(32, 32, '#00ff00');
    fields = await signedFields(app, alice);
    res = await upload(app, path('confirmed.eth'), 'avatar', second, fields).expect(200);
    expect(res.body).toMatchObject({ isUpdate: true, avatarUrl: url('confirmed.eth') });
    const served = await request(app).get(path('confirmed.eth')).expect(200);
    expect(Buffer.compare(served.body as Buffer, second)).toBe(0);
    expect(served.headers.etag).not.toBe(first.headers.etag);
    // The replaced bytes are gone: one row, one key.
    const rows = await rowsFor('confirmed.eth');
    expect(rows).toHaveLength(1);
    const keys = await storedKeys(h.context.blobs);
    expect(keys).toContain(rows[0]?.blob_key);
  });

  it('403 when the record is set and the signer does not own the name, and nothing is stored', async () => {
    const before = await storedKeys(h.context.blobs);
    const fields = await signedFields(app, bob);
    const res = await upload(app, path('confirmed.eth'), 'avatar', image, fields).expect(403);
    expect(res.body.code).toBe('NOT_SUBNAME_OWNER');
    expect(await storedKeys(h.context.blobs)).toEqual(before);
  });

  it('confirmed for a wrapped name owned through the NameWrapper', async () => {
    const fields = await signedFields(app, alice);
    const res = await upload(app, path('wrapped.eth'), 'avatar', image, fields).expect(200);
    expect(res.body.pending).toBeUndefined();
    await request(app).get(path('wrapped.eth')).expect(200);
  });

  it('headers work the same way, with headerUrl', async () => {
    const fields = await signedFields(app, alice, { scope: 'header' });
    const res = await upload(app, path('hdr.eth', 'header'), 'header', image, fields).expect(200);
    expect(res.body).toMatchObject({ headerUrl: url('hdr.eth', 'header'), isUpdate: false });
    expect(res.body.avatarUrl).toBeUndefined();
    await request(app).get(path('hdr.eth', 'header')).expect(200);
    await request(app).get(path('hdr.eth')).expect(404);
  });

  it('pending until the owner sets the record; the worker then confirms it', async () => {
    const fields = await signedFields(app, alice);
    const res = await upload(app, path('pending.eth'), 'avatar', image, fields).expect(200);
    expect(res.body).toMatchObject({ pending: true, isUpdate: false, avatarUrl: url('pending.eth') });
    expect(res.body.message).toContain(url('pending.eth'));
    expect(res.body.message).toContain('1 minute');
    await processPending(h.context);
    expect((await request(app).get(path('pending.eth')).expect(404)).body.code).toBe('IMAGE_NOT_FOUND');

    await chain.ens.setText('pending.eth', 'avatar', url('pending.eth'));
    expect(await processPending(h.context)).toEqual({ discarded: 0, confirmed: 1 });
    const served = await request(app).get(path('pending.eth')).expect(200);
    expect(Buffer.compare(served.body as Buffer, image)).toBe(0);
    expect((await rowsFor('pending.eth')).map((r) => r.status)).toEqual(['confirmed']);
  });

  it('a GET never confirms a pending upload; POST …/confirm does once the record is set', async () => {
    const fields = await signedFields(app, alice);
    await upload(app, path('getcheck.eth'), 'avatar', image, fields).expect(200);
    await request(app).get(path('getcheck.eth')).expect(404);
    await chain.ens.setText('getcheck.eth', 'avatar', url('getcheck.eth'));
    // Reading serves what is confirmed, however often and however late: the upload stays pending.
    h.advance(5000);
    await request(app).get(path('getcheck.eth')).expect(404);
    const [pending] = await rowsFor('getcheck.eth');
    expect(pending?.status).toBe('pending');
    const confirmed = await request(app)
      .post(`${path('getcheck.eth')}/confirm`)
      .expect(200);
    expect(confirmed.body).toEqual({
      subname: 'getcheck.eth',
      network: 'sepolia',
      kind: 'avatar',
      url: url('getcheck.eth'),
      uploadedAt: pending?.uploaded_at.toISOString(),
      fileSize: pending?.size,
    });
    await request(app).get(path('getcheck.eth')).expect(200);
    expect((await rowsFor('getcheck.eth')).map((r) => r.status)).toEqual(['confirmed']);
  });

  it('reads the record and the owner once per name, whatever the number of pending uploaders; GETs read nothing on chain', async () => {
    const uploaders = [bob, walletOf(chain, 3), walletOf(chain, 4), alice];
    for (const wallet of uploaders) {
      await upload(app, path('crowd.eth'), 'avatar', image, await signedFields(app, wallet)).expect(200);
    }
    expect(await rowsFor('crowd.eth')).toHaveLength(4);
    const { provider, config } = h.context.networks.sepolia;
    const calls = jest.spyOn(provider, 'call');
    const crowd = [Buffer.from('crowd').toString('hex'), namehash('crowd.eth').slice(2)];
    // Calls to `address` about crowd.eth (its DNS-encoded name in a resolve, its namehash in an owner read).
    const callsTo = (address: string) =>
      calls.mock.calls.filter(
        ([tx]) =>
          String(tx.to).toLowerCase() === address.toLowerCase() &&
          crowd.some((part) => String(tx.data).includes(part)),
      ).length;
    const confirm = () => request(app).post(`${path('crowd.eth')}/confirm`);
    try {
      // GETs (concurrent or not) serve what is confirmed: no RPC call at all.
      await Promise.all([1, 2, 3].map(() => request(app).get(path('crowd.eth')).expect(404)));
      expect(calls).toHaveBeenCalledTimes(0);
      // Record not set: an explicit confirmation makes one resolve for the four uploads, no owner read.
      expect((await confirm().expect(409)).body.code).toBe('RECORD_NOT_SET');
      expect(callsTo(config.ens.universalResolver)).toBe(1);
      expect(calls).toHaveBeenCalledTimes(1);
      // So does the worker (which checks other names' pending uploads as well).
      expect(await processPending(h.context)).toEqual({ discarded: 0, confirmed: 0 });
      expect(callsTo(config.ens.universalResolver)).toBe(2);
      expect(callsTo(config.ens.ensRegistry)).toBe(0);

      await chain.ens.setText('crowd.eth', 'avatar', url('crowd.eth'));
      calls.mockClear();
      await request(app).get(path('crowd.eth')).expect(404);
      expect(calls).toHaveBeenCalledTimes(0);
      await confirm().expect(200);
      // One resolve and one registry owner read, then the owner's upload (the last of four) is confirmed.
      expect(callsTo(config.ens.universalResolver)).toBe(1);
      expect(callsTo(config.ens.ensRegistry)).toBe(1);
      expect(calls).toHaveBeenCalledTimes(2);
    } finally {
      calls.mockRestore();
    }
    await request(app).get(path('crowd.eth')).expect(200);
    const rows = await rowsFor('crowd.eth');
    expect(rows.filter((r) => r.status === 'confirmed').map((r) => r.uploader)).toEqual([
      alice.address.toLowerCase(),
    ]);
    expect(rows.filter((r) => r.status === 'pending')).toHaveLength(3);
  });

  it('discards a pending upload (row and bytes) when the window passes; a second one replaced the first', async () => {
    const before = await storedKeys(h.context.blobs);
    await upload(app, path('discard.eth'), 'avatar', image, await signedFields(app, alice)).expect(200);
    const again = await upload(
      app,
      path('discard.eth'),
      'avatar',
      image,
      await signedFields(app, alice),
    ).expect(200);
    expect(again.body).toMatchObject({ pending: true, isUpdate: true });
    const rows = await rowsFor('discard.eth');
    expect(rows).toHaveLength(1);
    expect(await storedKeys(h.context.blobs)).toEqual([...before, rows[0]?.blob_key].sort());

    h.advance(61_000);
    await chain.ens.setText('discard.eth', 'avatar', url('discard.eth'));
    const result = await processPending(h.context);
    expect(result.discarded).toBeGreaterThanOrEqual(1);
    expect(await rowsFor('discard.eth')).toHaveLength(0);
    expect(await storedKeys(h.context.blobs)).not.toContain(rows[0]?.blob_key);
    await request(app).get(path('discard.eth')).expect(404);
  });
});

describe('delete', () => {
  it('404 when there is nothing, 403 for someone else, 200 for the owner (row and bytes gone)', async () => {
    let res = await request(app)
      .delete(path('del.eth'))
      .send(await signedFields(app, alice))
      .expect(404);
    expect(res.body.code).toBe('IMAGE_NOT_FOUND');

    await upload(app, path('del.eth'), 'avatar', image, await signedFields(app, alice)).expect(200);
    const [row] = await rowsFor('del.eth');
    res = await request(app)
      .delete(path('del.eth'))
      .send(await signedFields(app, bob))
      .expect(403);
    expect(res.body.code).toBe('NOT_SUBNAME_OWNER');
    await request(app).get(path('del.eth')).expect(200);

    res = await request(app)
      .delete(path('del.eth'))
      .send(await signedFields(app, alice))
      .expect(200);
    expect(res.body).toEqual({
      subname: 'del.eth',
      network: 'sepolia',
      message: expect.any(String),
      deletedAt: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    expect(await rowsFor('del.eth')).toHaveLength(0);
    expect(await storedKeys(h.context.blobs)).not.toContain(row?.blob_key);
    await request(app).get(path('del.eth')).expect(404);
  });

  it('needs a valid sign-in of the right scope', async () => {
    const fields = await signedFields(app, alice, { scope: 'header' });
    const res = await request(app).delete(path('del.eth')).send(fields).expect(401);
    expect(res.body.code).toBe('NONCE_SCOPE_MISMATCH');
    expect((await request(app).delete(path('del.eth')).send({}).expect(400)).body.code).toBe('INVALID_INPUT');
  });

  it('namehash of the stored rows matches the name', async () => {
    for (const row of await imageRows(h.db)) expect(row.node).toBe(namehash(row.name));
  });
});

// Last: it moves the service's clock past the pending window.
describe('metrics', () => {
  it('counts pending uploads by state, and the RPC calls behind the checks, at /metrics', async () => {
    const sample = async (name: string, label: string) => {
      const text = (await request(app).get('/metrics').expect(200)).text;
      const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(label));
      return line ? Number(line.split(' ').pop()) : 0;
    };
    const waiting = await sample('pending_uploads', 'state="waiting"');
    const expired = await sample('pending_uploads', 'state="expired"');
    const fields = await signedFields(app, alice);
    await upload(app, path('counted.eth'), 'avatar', image, fields).expect(200);
    expect(await sample('pending_uploads', 'state="waiting"')).toBe(waiting + 1);

    h.advance(Number(h.config.PENDING_WINDOW_MS) + 1);
    expect(await sample('pending_uploads', 'state="waiting"')).toBe(0);
    expect(await sample('pending_uploads', 'state="expired"')).toBe(expired + waiting + 1);
    expect(await sample('rpc_call_duration_seconds_count', 'outcome="ok"')).toBeGreaterThan(0);
  });
});
