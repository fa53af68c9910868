import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { namehash } from '@nrp/ens';
import type { RunningService } from '@nrp/server';
import {
  buildSignInMessage,
  databaseFingerprint,
  devChainEnv,
  foreignCursorFindings,
  hostileInputFindings,
  listenForTests,
  mainnetOnTestChain,
  startEnsChain,
  type EnsChain,
} from '@nrp/testkit';
import { Wallet } from 'ethers';
import { ALICE, startOffchainService, type OffchainService } from './helpers';

const INGEST_TOKEN = randomBytes(24).toString('hex');

// Generated and mutated requests for every route, over HTTP against the running service (libs/testkit hostile-input).
describe('offchain-svc under hostile input', () => {
  let service: OffchainService;
  let running: RunningService;
  let key: string;
  let webhookId: string;
  let chain: EnsChain;
  let session: string;

  beforeAll(async () => {
    // The self-serve routes read the chain: both networks are this test chain, never a public endpoint.
    chain = await startEnsChain();
    const resolver = await chain.ens.deployOffchainResolver('http://127.0.0.1:1/{sender}/{data}.json', [
      ALICE,
    ]);
    service = await startOffchainService({
      ...devChainEnv(chain.contracts, chain.anvil.rpcUrl),
      ...mainnetOnTestChain(chain),
      SEPOLIA_OFFCHAIN_RESOLVER: resolver,
      MAINNET_OFFCHAIN_RESOLVER: resolver,
      GATEWAY_SIGNER_KEY: `0x${'22'.repeat(32)}`,
      EVENTS_INGEST_TOKEN: INGEST_TOKEN,
      // No background deliveries: every change of the database comes from a request.
      WEBHOOK_DELIVERY_INTERVAL_MS: '0',
    });
    running = await listenForTests(service.app);
    key = await service.keyFor('offchain.eth');
    await request(service.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', key)
      .send({
        parentName: 'offchain.eth',
        label: 'alice',
        owner: ALICE,
        texts: [{ key: 'name', value: 'Alice' }],
      })
      .expect(201);
    webhookId = (
      await request(service.app)
        .post('/api/v1/webhooks')
        .set('x-auth-token', key)
        .send({ url: 'https://hooks.example.com/nrp', events: ['subname.created'] })
        .expect(201)
    ).body.id;
    const wallet = Wallet.createRandom();
    const { nonce } = (
      await request(service.app).post('/api/v1/auth/nonce').send({ address: wallet.address }).expect(200)
    ).body;
    const siweMessage = buildSignInMessage({
      domain: 'localhost:3003',
      address: wallet.address,
      statement: 'Sign in',
      uri: 'http://localhost:3000',
      chainId: 11155111,
      nonce,
    });
    session = (
      await request(service.app)
        .post('/api/v1/auth/session')
        .send({ siweMessage, siweSignature: await wallet.signMessage(siweMessage), address: wallet.address })
        .expect(201)
    ).body.token;
  }, 60_000);

  afterAll(async () => {
    await running.shutdown();
    await service.close();
    await chain?.stop();
  });

  it('answers every route below 500, with problem+json for every error, and writes nothing on a 4xx', async () => {
    const findings = await hostileInputFindings({
      url: running.url,
      routes: service.routes,
      fingerprint: databaseFingerprint(service.db.db),
      credentials: {
        apiKey: { 'x-auth-token': key },
        ingestToken: { authorization: `Bearer ${INGEST_TOKEN}` },
        session: { authorization: `Bearer ${session}` },
      },
      knownValues: {
        parentName: ['offchain.eth'],
        label: ['alice', 'bob'],
        fullSubname: ['alice.offchain.eth'],
        namehash: [namehash('alice.offchain.eth')],
        id: [webhookId],
        owner: [ALICE],
      },
    });
    expect(findings).toEqual([]);
  }, 120_000);

  it('answers 400 to every cursor it did not issue (random bytes, NUL, invalid UTF-8), and writes nothing', async () => {
    const apiKey = { 'x-auth-token': key };
    const findings = await foreignCursorFindings(
      { url: running.url, routes: service.routes, fingerprint: databaseFingerprint(service.db.db) },
      {
        searchSubnames: {
          path: '/api/v1/subnames/search',
          body: { parentName: 'offchain.eth' },
          position: { label: 'alice', parentName: 'offchain.eth' },
        },
        listWebhookDeliveries: {
          path: `/api/v1/webhooks/${webhookId}/deliveries`,
          headers: apiKey,
          position: { createdAt: new Date().toISOString(), id: webhookId },
        },
        exportSubnames: 'its cursor is the label of the last record received, named by the client',
      },
    );
    expect(findings).toEqual([]);
  }, 120_000);
});
