import request from 'supertest';
import sharp from 'sharp';
import type { Wallet } from 'ethers';
import { namehash, tokenIdFromNamehash } from '@nrp/ens';
import type { EnsChain } from '@nrp/testkit';
import { stableImageUrl } from '../src/uploads/stable-url';
import {
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
const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
const id = (name: string) => tokenIdFromNamehash(namehash(name));
const meta = (name: string) => `/metadata/network/11155111/token/${id(name)}`;

async function wrappedSubname(label: string, fuses: number, expiry: bigint): Promise<void> {
  const wrapper = chain.ens.contract('nameWrapper');
  await chain.ens.send(wrapper, chain.ens.signerOf(alice.address), 'setSubnodeOwner', [
    namehash('tok.eth'),
    label,
    alice.address,
    fuses,
    expiry,
  ]);
}

async function binary(path: string, headers: Record<string, string> = {}) {
  let req = request(h.app).get(path);
  for (const [k, v] of Object.entries(headers)) req = req.set(k, v);
  return req.buffer(true).parse((res, cb) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => cb(null, Buffer.concat(chunks)));
  });
}

beforeAll(async () => {
  chain = await startEnsChain({ chainId: 11155111 });
  alice = walletOf(chain, 1);
  h = await startMetadataService(chain);
  await chain.ens.registerEthName('tok', alice.address);
  await chain.ens.wrapName('tok.eth', alice.address);
  const now = BigInt(Math.floor(Date.now() / 1000));
  await wrappedSubname('locked', 0x10001, now + 365n * 86400n);
  await wrappedSubname('old', 0, now - 100n);
  await wrappedSubname('ABC', 0, 0n);
  await wrappedSubname('🙂🚀', 0, 0n);
  await wrappedSubname('averyveryveryveryveryveryverylongsubnamelabel', 0, 0n);
}, 120_000);

afterAll(async () => {
  await h?.close();
  await chain?.stop();
});

describe('token metadata', () => {
  it('describes a wrapped name in the ENS metadata service shape', async () => {
    const res = await request(h.app).get(meta('tok.eth')).expect(200);
    const image = `${BASE_URL}/metadata/network/11155111/token/${id('tok.eth')}/image.png`;
    expect(res.body).toEqual({
      name: 'tok.eth',
      description: 'tok.eth, an ENS name.',
      image,
      image_url: image,
      attributes: [
        { trait_type: 'Length', display_type: 'number', value: 3 },
        { trait_type: 'Segment Length', display_type: 'number', value: 3 },
        { trait_type: 'Character Set', display_type: 'string', value: 'letter' },
        {
          trait_type: 'Namewrapper Fuse States',
          display_type: 'object',
          value: expect.objectContaining({
            parent: expect.any(Object),
            child: expect.objectContaining({ CAN_DO_EVERYTHING: true }),
          }),
        },
        { trait_type: 'Namewrapper State', display_type: 'string', value: 'Wrapped' },
      ],
      name_length: 3,
      segment_length: 3,
      url: 'https://app.ens.domains/tok.eth',
      is_normalized: true,
      version: 2,
    });
  });

  it('accepts the token id in 0x-hex too', async () => {
    const res = await request(h.app)
      .get(`/metadata/network/11155111/token/${namehash('tok.eth')}`)
      .expect(200);
    expect(res.body.name).toBe('tok.eth');
  });

  it('shows fuses, the wrapper state and the expiry of a locked subname', async () => {
    const res = await request(h.app).get(meta('locked.tok.eth')).expect(200);
    const byType = Object.fromEntries(
      (res.body.attributes as Array<{ trait_type: string; value: unknown }>).map((a) => [
        a.trait_type,
        a.value,
      ]),
    );
    expect(byType['Namewrapper State']).toBe('Locked');
    expect(byType['Namewrapper Fuse States']).toMatchObject({
      parent: { PARENT_CANNOT_CONTROL: true },
      child: { CANNOT_UNWRAP: true, CAN_DO_EVERYTHING: false },
    });
    expect(byType['Namewrapper Expiry Date']).toBeGreaterThan(Date.now());
  });

  it('410 for an expired name, 404 for an unknown token or chain, 400 for a bad token id', async () => {
    const app = h.app;
    expect((await request(app).get(meta('old.tok.eth')).expect(410)).body.code).toBe('NAME_EXPIRED');
    expect((await request(app).get(meta('nothing.tok.eth')).expect(404)).body.code).toBe('TOKEN_NOT_FOUND');
    expect(
      (
        await request(app)
          .get(`/metadata/network/5/token/${id('tok.eth')}`)
          .expect(404)
      ).body.code,
    ).toBe('UNSUPPORTED_CHAIN');
    expect((await request(app).get('/metadata/network/11155111/token/xyz').expect(400)).body.code).toBe(
      'INVALID_INPUT',
    );
    await request(app)
      .get(`/metadata/network/11155111/token/0x1${'0'.repeat(64)}`)
      .expect(400);
    await request(app)
      .get(`${meta('old.tok.eth')}/image.png`)
      .expect(410);
  });

  it('flags an unnormalised name as the ENS metadata service does', async () => {
    const res = await request(h.app).get(meta('ABC.tok.eth')).expect(200);
    expect(res.body.is_normalized).toBe(false);
    expect(res.body.url).toBeNull();
    expect(res.body.name).toMatch(/^\[0x[0-9a-f]{4}\.\.\.[0-9a-f]{4}\]\.eth$/);
    expect(res.body.description).toContain('not in normalized form');
  });

  it('measures emoji labels in code points and graphemes', async () => {
    const res = await request(h.app).get(meta('🙂🚀.tok.eth')).expect(200);
    expect(res.body).toMatchObject({ name: '🙂🚀.tok.eth', name_length: 2, segment_length: 2 });
    expect(res.body.attributes).toContainEqual({
      trait_type: 'Character Set',
      display_type: 'string',
      value: 'emoji',
    });
  });
});

describe('image.png', () => {
  it('is a real 270×270 PNG, cached by content with an ETag', async () => {
    const res = await binary(`${meta('tok.eth')}/image.png`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('image/png');
    const bytes = res.body as Buffer;
    expect(bytes.subarray(0, 8)).toEqual(PNG_SIGNATURE);
    expect(await sharp(bytes).metadata()).toMatchObject({ format: 'png', width: 270, height: 270 });
    const etag = res.headers.etag as string;
    expect(etag).toMatch(/^".+"$/);
    expect((await binary(`${meta('tok.eth')}/image.png`, { 'If-None-Match': etag })).status).toBe(304);
  });

  it('draws emoji and long names', async () => {
    for (const name of ['🙂🚀.tok.eth', 'averyveryveryveryveryveryverylongsubnamelabel.tok.eth']) {
      const res = await binary(`${meta(name)}/image.png`);
      expect(res.status).toBe(200);
      expect(await sharp(res.body as Buffer).metadata()).toMatchObject({ width: 270, height: 270 });
    }
  });

  it('uses the confirmed avatar, which changes the ETag; a confirmed header becomes background_image', async () => {
    const app = h.app;
    const before = await binary(`${meta('tok.eth')}/image.png`);
    await chain.ens.setResolver('tok.eth', chain.contracts.publicResolver);
    await chain.ens.setText('tok.eth', 'avatar', stableImageUrl(BASE_URL, 'sepolia', 'tok.eth', 'avatar'));
    await chain.ens.setText('tok.eth', 'header', stableImageUrl(BASE_URL, 'sepolia', 'tok.eth', 'header'));
    const red = await png(300, 300, '#ff0000');
    await upload(
      app,
      '/profile/sepolia/tok.eth/avatar',
      'avatar',
      red,
      await signedFields(app, alice),
    ).expect(200);
    const after = await binary(`${meta('tok.eth')}/image.png`);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    const { data } = await sharp(after.body as Buffer)
      .raw()
      .toBuffer({ resolveWithObject: true });
    // Top-left pixel is the red avatar, not the blue gradient.
    expect([data[0], data[1], data[2]]).toEqual([255, 0, 0]);

    expect((await request(app).get(meta('tok.eth')).expect(200)).body.background_image).toBeUndefined();
    await upload(
      app,
      '/profile/sepolia/tok.eth/header',
      'header',
      red,
      await signedFields(app, alice),
    ).expect(200);
    expect((await request(app).get(meta('tok.eth')).expect(200)).body.background_image).toBe(
      `${BASE_URL}/sepolia/header/tok.eth`,
    );
  });
});
