import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Wallet } from 'ethers';
import request from 'supertest';
import { hashApiKey } from '@nrp/auth';
import { namehash, tokenIdFromNamehash } from '@nrp/ens';
import { startTestServiceOnDatabase, until, type EnsChain } from '@nrp/testkit';
// The real offchain subname service, built in-process by its own createService on its own database: ownership and
// records come from its HTTP API, never from its tables.
import { configSchema as offchainConfigSchema } from '../../offchain-svc/src/config';
import { PGLITE_EXTENSIONS } from '../../offchain-svc/src/data/database';
import { createService as createOffchainService } from '../../offchain-svc/src/service';
import { startWebhookReceiver, type WebhookReceiver } from '@nrp/testkit/src/webhook-receiver';
import { Webhook } from 'standardwebhooks';
import { UpstreamError } from '@nrp/chain';
import { processPending } from '../src/uploads/worker';
import { stableImageUrl } from '../src/uploads/stable-url';
import { createOffchainClient } from '../src/names/offchain-client';
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

const API_KEY = 'offchain-test-key-0123456789';
const INGEST_TOKEN = 'metadata-events-ingest-token-0123456789abcdef';

let chain: EnsChain;
let h: MetadataService;
let server: Server;
// What the offchain port answers with: the offchain service once it is up (a test may put a fault in front).
let listener: RequestListener;
let offchainUrl: string;
let closeOffchain: () => Promise<void>;
let alice: Wallet;
let bob: Wallet;
let image: Buffer;
let receiver: WebhookReceiver;
let webhookSecret: string;

const url = (name: string) => stableImageUrl(BASE_URL, 'sepolia', name, 'avatar');
const path = (name: string) => `/profile/sepolia/${name}/avatar`;

async function putSubname(body: Record<string, unknown>): Promise<void> {
  const res = await fetch(`${offchainUrl}/api/v1/subnames`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-auth-token': API_KEY },
    body: JSON.stringify({ parentName: 'off.eth', ...body }),
  });
  if (res.status !== 200 && res.status !== 201)
    throw new Error(`offchain create: ${res.status} ${await res.text()}`);
}

beforeAll(async () => {
  chain = await startEnsChain({ chainId: 11155111 });
  alice = walletOf(chain, 1);
  bob = walletOf(chain, 2);
  image = await png();
  // Listen first (the resolver contract needs the gateway URL), then hand the requests to the offchain service.
  listener = (_req, res) => res.writeHead(503).end();
  server = createServer((req, res) => listener(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  offchainUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const gatewaySigner = Wallet.createRandom();
  const resolver = await chain.ens.deployOffchainResolver(
    `${offchainUrl}/api/v1/gateway/{sender}/{data}.json`,
    [gatewaySigner.address],
  );
  await chain.ens.registerEthName('off', alice.address, { resolver });

  // image.* events reach a webhook of off.eth through metadata-svc's outbox and offchain-svc's ingest.
  receiver = await startWebhookReceiver();
  const offchain = await startTestServiceOnDatabase({
    createService: createOffchainService,
    configSchema: offchainConfigSchema,
    database: { pgliteExtensions: PGLITE_EXTENSIONS },
    env: {
      RATE_LIMIT_PER_MINUTE: '100000',
      GATEWAY_SIGNER_KEY: gatewaySigner.privateKey,
      BOOTSTRAP_API_KEY_HASH: hashApiKey(API_KEY),
      BOOTSTRAP_API_KEY_PARENTS: 'off.eth',
      EVENTS_INGEST_TOKEN: INGEST_TOKEN,
      WEBHOOK_ALLOWED_ORIGINS: receiver.origin,
      WEBHOOK_DELIVERY_INTERVAL_MS: '25',
    },
  });
  listener = offchain.app;
  closeOffchain = () => offchain.close();
  const hook = await request(offchain.app)
    .post('/api/v1/webhooks')
    .set('x-auth-token', API_KEY)
    .send({
      url: receiver.url,
      events: ['image.pending', 'image.confirmed', 'image.discarded', 'image.deleted'],
    })
    .expect(201);
  webhookSecret = hook.body.secret;

  h = await startMetadataService(chain, {
    OFFCHAIN_URL: offchainUrl,
    CCIP_READ_ALLOWED_ORIGINS: offchainUrl,
    EVENTS_INGEST_TOKEN: INGEST_TOKEN,
    EVENTS_RELAY_INTERVAL_MS: '25',
  });
  await putSubname({
    label: 'carol',
    owner: alice.address,
    texts: [{ key: 'avatar', value: url('carol.off.eth') }],
  });
  await putSubname({ label: 'dave', owner: alice.address });
}, 120_000);

afterAll(async () => {
  await h?.close();
  await closeOffchain?.();
  await receiver?.close();
  await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()));
  await chain?.stop();
});

describe('offchain subnames', () => {
  it('ownership comes from the offchain record and the text record through CCIP-Read: confirmed at once', async () => {
    const app = h.app;
    const refused = await upload(
      app,
      path('carol.off.eth'),
      'avatar',
      image,
      await signedFields(app, bob),
    ).expect(403);
    expect(refused.body.code).toBe('NOT_SUBNAME_OWNER');
    const res = await upload(
      app,
      path('carol.off.eth'),
      'avatar',
      image,
      await signedFields(app, alice),
    ).expect(200);
    expect(res.body).toMatchObject({
      subname: 'carol.off.eth',
      isUpdate: false,
      avatarUrl: url('carol.off.eth'),
    });
    expect(res.body.pending).toBeUndefined();
    await request(app).get(path('carol.off.eth')).expect(200);
  });

  it('pending until the record is set in the offchain service, then confirmed', async () => {
    const app = h.app;
    const res = await upload(
      app,
      path('dave.off.eth'),
      'avatar',
      image,
      await signedFields(app, alice),
    ).expect(200);
    expect(res.body.pending).toBe(true);
    expect((await processPending(h.context)).confirmed).toBe(0);
    await putSubname({ label: 'dave', texts: [{ key: 'avatar', value: url('dave.off.eth') }] });
    expect((await processPending(h.context)).confirmed).toBe(1);
    await request(app).get(path('dave.off.eth')).expect(200);
  });

  it('token metadata of an offchain subname is found by namehash, with its created date', async () => {
    const tokenId = tokenIdFromNamehash(namehash('carol.off.eth'));
    const res = await request(h.app).get(`/metadata/network/11155111/token/${tokenId}`).expect(200);
    expect(res.body.name).toBe('carol.off.eth');
    expect(res.body.attributes).toEqual(
      expect.arrayContaining([expect.objectContaining({ trait_type: 'Created Date', display_type: 'date' })]),
    );
    const unknown = tokenIdFromNamehash(namehash('nobody.off.eth'));
    expect(
      (await request(h.app).get(`/metadata/network/11155111/token/${unknown}`).expect(404)).body.code,
    ).toBe('TOKEN_NOT_FOUND');
  });

  it('a delete by the offchain owner removes the image; by someone else it is 403', async () => {
    const app = h.app;
    await request(app)
      .delete(path('carol.off.eth'))
      .send(await signedFields(app, bob))
      .expect(403);
    await request(app)
      .delete(path('carol.off.eth'))
      .send(await signedFields(app, alice))
      .expect(200);
    await request(app).get(path('carol.off.eth')).expect(404);
  });
});

describe('image events', () => {
  it('every image change above reached the webhook of off.eth, signed (standardwebhooks verifies it)', async () => {
    // A pending upload whose window passes is discarded.
    await putSubname({ label: 'erin', owner: alice.address });
    const app = h.app;
    await upload(app, path('erin.off.eth'), 'avatar', image, await signedFields(app, alice)).expect(200);
    h.advance(61_000);
    expect((await processPending(h.context)).discarded).toBe(1);

    const expected = [
      ['image.confirmed', 'carol.off.eth', 'confirmed'],
      ['image.pending', 'dave.off.eth', 'pending'],
      ['image.confirmed', 'dave.off.eth', 'confirmed'],
      ['image.deleted', 'carol.off.eth', 'confirmed'],
      ['image.pending', 'erin.off.eth', 'pending'],
      ['image.discarded', 'erin.off.eth', 'pending'],
    ];
    await until(() => receiver.received.length >= expected.length, 'the image events');
    const payloads = receiver.received.map(
      (d) =>
        new Webhook(webhookSecret).verify(d.body, {
          'webhook-id': String(d.headers['webhook-id']),
          'webhook-timestamp': String(d.headers['webhook-timestamp']),
          'webhook-signature': String(d.headers['webhook-signature']),
        }) as { type: string; data: Record<string, unknown> },
    );
    expect(payloads.map((p) => [p.type, p.data['name'], p.data['status']]).sort()).toEqual(
      [...expected].sort(),
    );
    expect(payloads.find((p) => p.type === 'image.deleted')?.data).toMatchObject({
      network: 'sepolia',
      kind: 'avatar',
      url: url('carol.off.eth'),
      uploader: alice.address.toLowerCase(),
      contentType: 'image/png',
    });
  });
});

describe('offchain client (404 → null, anything else → UpstreamError)', () => {
  it('reads a record by name and by namehash; an unknown name is null', async () => {
    const client = createOffchainClient(offchainUrl, 5000);
    const byName = await client.byName('dave.off.eth');
    expect(byName).toMatchObject({ fullName: 'dave.off.eth', owner: alice.address });
    expect((await client.byNamehash(namehash('dave.off.eth')))?.fullName).toBe('dave.off.eth');
    expect(await client.byName('nobody.off.eth')).toBeNull();
    expect(await client.byNamehash(namehash('nobody.off.eth'))).toBeNull();
    await expect(createOffchainClient(undefined, 5000).byName('dave.off.eth')).resolves.toBeNull();
  });

  it('an error answer or no answer is an UpstreamError carrying the upstream code', async () => {
    const client = createOffchainClient(offchainUrl, 5000);
    const refused = await client.byNamehash('0x12').catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(UpstreamError);
    expect(refused).toMatchObject({ message: expect.stringMatching(/answered 400/) });
    expect((refused as UpstreamError).upstreamCode).not.toBe('OFFCHAIN_UNREACHABLE');

    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const unreachable = await createOffchainClient(deadUrl, 5000)
      .byName('dave.off.eth')
      .catch((err: unknown) => err);
    expect(unreachable).toBeInstanceOf(UpstreamError);
    expect((unreachable as UpstreamError).upstreamCode).toBe('OFFCHAIN_UNREACHABLE');
  });
});

describe('offchain-svc goes away while an offchain owner is checked, and comes back', () => {
  const erin = 'erin.off.eth';
  const nothingWritten = async (keysBefore: string[]): Promise<void> => {
    expect((await imageRows(h.db)).filter((r) => r.name === erin)).toEqual([]);
    expect(await storedKeys(h.context.blobs)).toEqual(keysBefore);
  };
  const expectUnavailable = (res: request.Response): void => {
    expect([502, 503]).toContain(res.status);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(['UPSTREAM_ERROR', 'SERVICE_UNAVAILABLE']).toContain(res.body.code);
  };

  beforeAll(async () => {
    await putSubname({ label: 'erin', owner: alice.address, texts: [{ key: 'avatar', value: url(erin) }] });
  });

  it('only the owner lookup fails (its connections are dropped; CCIP-Read still answers): 502, nothing written', async () => {
    const app = h.app;
    const keysBefore = await storedKeys(h.context.blobs);
    const serve = listener;
    listener = (req, res) => {
      if (req.url?.startsWith('/api/v1/subnames')) req.socket.destroy();
      else serve(req, res);
    };
    try {
      expectUnavailable(await upload(app, path(erin), 'avatar', image, await signedFields(app, alice)));
    } finally {
      listener = serve;
    }
    await nothingWritten(keysBefore);
    await request(app).get(path(erin)).expect(404);
  });

  it('the whole service is down (its port refuses connections): 502/503, nothing written; then it is back', async () => {
    const app = h.app;
    const keysBefore = await storedKeys(h.context.blobs);
    const { port } = server.address() as AddressInfo;
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    try {
      expectUnavailable(await upload(app, path(erin), 'avatar', image, await signedFields(app, alice)));
      await nothingWritten(keysBefore);
      await request(app).get(path(erin)).expect(404);
    } finally {
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    }
    const res = await upload(app, path(erin), 'avatar', image, await signedFields(app, alice)).expect(200);
    expect(res.body.pending).toBeUndefined();
    await request(app).get(path(erin)).expect(200);
  });
});
