import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { hashApiKey } from '@nrp/auth';
import { until } from '@nrp/testkit/src/until';
import { startWebhookReceiver, type WebhookReceiver } from '@nrp/testkit/src/webhook-receiver';
// The real offchain subname service (it owns the webhooks), built in-process by its own createService.
import { configSchema as offchainConfigSchema } from '../../offchain-svc/src/config';
import { PGLITE_EXTENSIONS } from '../../offchain-svc/src/data/database';
import { createService as createOffchainService } from '../../offchain-svc/src/service';
import { EVENT_OUTBOX_TABLE } from '../src/data/schema';
import { listDirect, type MintService, startMintService } from './helpers';
import { accountAt, approveController, startTestServiceOnDatabase } from '@nrp/testkit';

const TOKEN = 'mint-events-ingest-token-0123456789abcdef';
const API_KEY = 'mint-events-test-key-0123456789';

describe('mint.signed reaches the webhooks of the parent through the outbox and offchain-svc', () => {
  let receiver: WebhookReceiver;
  let offchain: Awaited<ReturnType<typeof startOffchain>>;
  const startOffchain = () =>
    startTestServiceOnDatabase({
      createService: createOffchainService,
      configSchema: offchainConfigSchema,
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        BOOTSTRAP_API_KEY_HASH: hashApiKey(API_KEY),
        BOOTSTRAP_API_KEY_PARENTS: 'events.eth',
        EVENTS_INGEST_TOKEN: TOKEN,
        WEBHOOK_ALLOWED_ORIGINS: receiver.origin,
        WEBHOOK_DELIVERY_INTERVAL_MS: '25',
      },
      database: { pgliteExtensions: PGLITE_EXTENSIONS },
    });
  let server: Server;
  let env: MintService;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    offchain = await startOffchain();
    server = offchain.app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    env = await startMintService({
      OFFCHAIN_URL: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      EVENTS_INGEST_TOKEN: TOKEN,
      EVENTS_RELAY_INTERVAL_MS: '25',
    });
    await env.chain.ens.registerEthName('events', accountAt(env.chain, 1).address);
    await approveController(env, 1, false);
    await listDirect(env, 'events.eth', {
      basePriceWei: '1000',
      paymentReceiver: accountAt(env.chain, 2).address,
    });
  }, 180_000);
  afterAll(async () => {
    await env?.close();
    await new Promise((resolve) => server?.close(resolve));
    await offchain?.close();
    await receiver?.close();
  });

  it('a signed mint is delivered as mint.signed, verified by standardwebhooks; a refused mint emits nothing', async () => {
    const hook = await request(offchain.app)
      .post('/api/v1/webhooks')
      .set('x-auth-token', API_KEY)
      .send({ url: receiver.url, events: ['mint.signed'] })
      .expect(201);
    const minter = accountAt(env.chain, 5).address;

    await request(env.app)
      .post('/api/v1/mint')
      .send({
        isTestnet: true,
        parentName: 'events.eth',
        label: 'x',
        minterAddress: minter,
        expiryInYears: 0,
      })
      .expect(400);
    const signed = await request(env.app)
      .post('/api/v1/mint')
      .send({
        isTestnet: true,
        parentName: 'events.eth',
        label: 'alice',
        minterAddress: minter,
        expiryInYears: 1,
      })
      .expect(200);

    await until(() => receiver.received.length >= 1, 'the mint.signed delivery', 30_000);
    const delivery = receiver.received[0];
    if (!delivery) throw new Error('no delivery');
    const payload = new Webhook(hook.body.secret).verify(delivery.body, {
      'webhook-id': String(delivery.headers['webhook-id']),
      'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
      'webhook-signature': String(delivery.headers['webhook-signature']),
    });
    expect(payload).toEqual({
      type: 'mint.signed',
      timestamp: expect.any(String),
      data: {
        network: 'sepolia',
        chainId: 11155111,
        name: 'alice.events.eth',
        parentName: 'events.eth',
        mintController: signed.body.mintController,
        ...signed.body.content,
      },
    });
    // Relayed and removed from the producer's outbox; nothing else was emitted.
    await until(
      async () =>
        Number(
          (
            await env.db.db
              .selectFrom(EVENT_OUTBOX_TABLE)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        ) === 0,
      'the outbox to drain',
    );
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(1);
  });
});
