import { randomInt } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import type { Wallet } from 'ethers';
import { createMetadataClient, metadataResponseSchemas, ServiceError } from '@nrp/client';
import { namehash, tokenIdFromNamehash } from '@nrp/ens';
import { signSignInMessage, type EnsChain } from '@nrp/testkit';
import { stableImageUrl } from '../src/uploads/stable-url';
import {
  buildMessage,
  png,
  startEnsChain,
  startMetadataService,
  walletOf,
  BASE_URL,
  type MetadataService,
} from './support';

let chain: EnsChain;
let alice: Wallet;

beforeAll(async () => {
  chain = await startEnsChain({ chainId: 11155111 });
  alice = walletOf(chain, 1);
}, 120_000);

afterAll(async () => {
  await chain?.stop();
});

const randomIp = () => `10.${randomInt(256)}.${randomInt(256)}.${randomInt(1, 255)}`;

describe('rate limits', () => {
  let h: MetadataService;
  beforeAll(async () => {
    h = await startMetadataService(chain, {
      TRUST_PROXY: '1',
      DELETE_RATE_LIMIT_PER_MINUTE: '10',
      NONCE_RATE_LIMIT_PER_MINUTE: '3',
      ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    });
  });
  afterAll(() => h?.close());

  it('DELETE: 10 per minute per client IP, then 429 with Retry-After and RateLimit headers', async () => {
    const ip = randomIp();
    for (let i = 0; i < 10; i++) {
      await request(h.app)
        .delete('/profile/sepolia/x.eth/avatar')
        .set('X-Forwarded-For', ip)
        .send({})
        .expect(400);
    }
    const res = await request(h.app)
      .delete('/profile/sepolia/x.eth/avatar')
      .set('X-Forwarded-For', ip)
      .send({})
      .expect(429);
    expect(res.body.code).toBe('RATE_LIMITED');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(res.headers.ratelimit).toBeDefined();
    // Another client is not affected, and the header delete has its own budget.
    await request(h.app)
      .delete('/profile/sepolia/x.eth/avatar')
      .set('X-Forwarded-For', randomIp())
      .send({})
      .expect(400);
    await request(h.app)
      .delete('/profile/sepolia/x.eth/header')
      .set('X-Forwarded-For', ip)
      .send({})
      .expect(400);
  });

  it('nonces are limited per client IP', async () => {
    const ip = randomIp();
    for (let i = 0; i < 3; i++) {
      await request(h.app)
        .post('/auth/nonce')
        .set('X-Forwarded-For', ip)
        .send({ address: alice.address })
        .expect(200);
    }
    await request(h.app)
      .post('/auth/nonce')
      .set('X-Forwarded-For', ip)
      .send({ address: alice.address })
      .expect(429);
  });

  (process.env.REDIS_URL ? it : it.skip)('with Redis, replicas share the counters', async () => {
    const other = await startMetadataService(chain, {
      TRUST_PROXY: '1',
      DELETE_RATE_LIMIT_PER_MINUTE: '10',
      REDIS_URL: process.env.REDIS_URL ?? '',
    });
    try {
      const ip = randomIp();
      for (let i = 0; i < 10; i++) {
        const app = i % 2 === 0 ? h.app : other.app;
        await request(app)
          .delete('/profile/sepolia/x.eth/avatar')
          .set('X-Forwarded-For', ip)
          .send({})
          .expect(400);
      }
      await request(other.app)
        .delete('/profile/sepolia/x.eth/avatar')
        .set('X-Forwarded-For', ip)
        .send({})
        .expect(429);
    } finally {
      await other.close();
    }
  });
});

describe('@nrp/client against the service on a real port', () => {
  let h: MetadataService;
  let server: Server;
  let baseUrl: string;
  beforeAll(async () => {
    h = await startMetadataService(chain);
    server = h.app.listen(0, '127.0.0.1');
    await new Promise<void>((resolve) => server.once('listening', () => resolve()));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    await chain.ens.registerEthName('client', alice.address);
    await chain.ens.wrapName('client.eth', alice.address);
    await chain.ens.setResolver('client.eth', chain.contracts.publicResolver);
    await chain.ens.setText(
      'client.eth',
      'avatar',
      stableImageUrl(BASE_URL, 'sepolia', 'client.eth', 'avatar'),
    );
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
    await h?.close();
  });

  async function signed() {
    const client = createMetadataClient({ baseUrl, responseSchemas: metadataResponseSchemas });
    const { nonce, expiresAt } = await client.getNonce({ address: alice.address, scope: 'avatar' });
    expect(expiresAt).toBeGreaterThan(Date.now());
    const siweMessage = buildMessage(alice.address, nonce);
    return {
      siweMessage,
      siweSignature: await signSignInMessage(alice, siweMessage),
      address: alice.address,
    };
  }

  it('waitForImage confirms a pending upload itself once the record is set (the worker is off here)', async () => {
    await chain.ens.registerEthName('waiting', alice.address);
    await chain.ens.wrapName('waiting.eth', alice.address);
    await chain.ens.setResolver('waiting.eth', chain.contracts.publicResolver);
    const client = createMetadataClient({ baseUrl, responseSchemas: metadataResponseSchemas });
    const target = { network: 'sepolia' as const, subname: 'waiting.eth' };
    const upload = await client.uploadAvatar({
      ...(await signed()),
      ...target,
      file: new Blob([new Uint8Array(await png(32, 32, '#654321'))]),
    });
    expect(upload.pending).toBe(true);
    const waiting = client.waitForImage(target, 'avatar', {
      uploadedAt: upload.uploadedAt,
      initialDelayMs: 20,
    });
    await chain.ens.setText('waiting.eth', 'avatar', upload.avatarUrl);
    expect(await waiting).toBe(stableImageUrl(baseUrl, 'sepolia', 'waiting.eth', 'avatar'));
    expect((await client.getImage(target, 'avatar')).contentType).toBe('image/png');
    await expect(client.confirmImage('avatar', target)).rejects.toMatchObject({
      status: 404,
      code: 'PENDING_UPLOAD_NOT_FOUND',
    });
  });

  it('uploads, reads, describes and deletes through the typed client', async () => {
    const client = createMetadataClient({ baseUrl, responseSchemas: metadataResponseSchemas });
    const bytes = await png(40, 40, '#123456');
    const result = await client.uploadAvatar({
      ...(await signed()),
      network: 'sepolia',
      subname: 'client.eth',
      file: new Blob([new Uint8Array(bytes)]),
    });
    expect(result).toMatchObject({
      subname: 'client.eth',
      isUpdate: false,
      avatarUrl: stableImageUrl(BASE_URL, 'sepolia', 'client.eth', 'avatar'),
    });
    const image = await client.getImage({ network: 'sepolia', subname: 'client.eth' }, 'avatar');
    expect(image.contentType).toBe('image/png');
    expect(Buffer.compare(Buffer.from(image.bytes), bytes)).toBe(0);

    const metadata = await client.getTokenMetadata(11155111, tokenIdFromNamehash(namehash('client.eth')));
    expect(metadata.name).toBe('client.eth');

    const deleted = await client.deleteImage('avatar', {
      ...(await signed()),
      network: 'sepolia',
      subname: 'client.eth',
    });
    expect(deleted.subname).toBe('client.eth');
    await expect(
      client.getImage({ network: 'sepolia', subname: 'client.eth' }, 'avatar'),
    ).rejects.toMatchObject({
      status: 404,
      code: 'IMAGE_NOT_FOUND',
    });
    const again = client.deleteImage('avatar', {
      ...(await signed()),
      network: 'sepolia',
      subname: 'client.eth',
    });
    await expect(again).rejects.toBeInstanceOf(ServiceError);
    await expect(again).rejects.toMatchObject({ status: 404, code: 'IMAGE_NOT_FOUND' });
  });
});
