import { randomBytes } from 'node:crypto';
import request from 'supertest';
import { namehash } from '@nrp/ens';
import type { RunningService } from '@nrp/server';
import { databaseFingerprint, hostileInputFindings, listenForTests } from '@nrp/testkit';
import { ALICE, startTestService, type TestService } from './helpers';

const INGEST_TOKEN = randomBytes(24).toString('hex');

// Generated and mutated requests for every route, over HTTP against the running service (libs/testkit hostile-input).
describe('offchain-svc under hostile input', () => {
  let service: TestService;
  let running: RunningService;
  let key: string;
  let webhookId: string;

  beforeAll(async () => {
    service = await startTestService({
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
  }, 60_000);

  afterAll(async () => {
    await running.shutdown();
    await service.close();
  });

  it('answers every route below 500, with problem+json for every error, and writes nothing on a 4xx', async () => {
    const findings = await hostileInputFindings({
      url: running.url,
      routes: service.routes,
      fingerprint: databaseFingerprint(service.db.db),
      credentials: {
        apiKey: { 'x-auth-token': key },
        ingestToken: { authorization: `Bearer ${INGEST_TOKEN}` },
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
});
