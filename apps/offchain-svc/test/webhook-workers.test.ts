import { randomUUID } from 'node:crypto';
import request from 'supertest';
import { createDatabase } from '@nrp/db';
import { createLogger, loadConfig } from '@nrp/server';
import { createTestDatabase, type TestDatabase } from '@nrp/testkit/src/database';
import { issueApiKey } from '../src/keys/api-keys';
import { configSchema } from '../src/config';
import { PGLITE_EXTENSIONS, type OffchainDatabaseHandle } from '../src/data/database';
import type { OffchainDatabase } from '../src/data/schema';
import { eventRecorder } from '../src/webhooks/events';
import { createService } from '../src/service';
import { webhookDispatcher } from '../src/webhooks/delivery';
import type { WebhookSettings } from '../src/context';
import { startWebhookReceiver, type WebhookReceiver } from '@nrp/testkit/src/webhook-receiver';
import { until } from '@nrp/testkit/src/until';

const logger = createLogger('webhook-workers-test', 'silent');

/** A second connection pool to the same database on a server (another replica); PGlite has one connection. */
function secondHandle(db: TestDatabase<OffchainDatabase>): OffchainDatabaseHandle {
  return db.url ? createDatabase<OffchainDatabase>({ url: db.url, poolMax: 5 }) : db;
}

const configFor = (env: Record<string, string>) =>
  loadConfig(configSchema, { LOG_LEVEL: 'silent', RATE_LIMIT_PER_MINUTE: '100000', ...env });

describe('webhook delivery workers on one database', () => {
  let receiver: WebhookReceiver;
  let db: TestDatabase<OffchainDatabase>;
  let replica: OffchainDatabaseHandle;
  const shutdown: Array<() => Promise<void>> = [];

  beforeAll(async () => {
    receiver = await startWebhookReceiver(25);
    db = await createTestDatabase<OffchainDatabase>({ poolMax: 10, pgliteExtensions: PGLITE_EXTENSIONS });
    replica = secondHandle(db);
  });
  afterAll(async () => {
    for (const step of shutdown.reverse()) await step();
    if (replica !== db) await replica.close();
    await db?.close();
    await receiver?.close();
  });

  it('two workers draining the same outbox never make the same attempt twice (FOR UPDATE SKIP LOCKED)', async () => {
    // The service (its delivery worker off) owns the schema, the key and the webhook.
    const svc = await createService(configFor({ WEBHOOK_DELIVERY_INTERVAL_MS: '0' }), logger, {
      database: db,
    });
    const key = (await issueApiKey(db, ['workers.eth'])).key;
    const settings: WebhookSettings = {
      allowedOrigins: [receiver.origin],
      retryBaseMs: 50,
      retryWindowMs: 60_000,
      timeoutMs: 5000,
    };
    await request(svc.app)
      .post('/api/v1/webhooks')
      .set('x-auth-token', key)
      .send({ url: 'https://workers.example.com/hook', events: ['mint.signed'] })
      .expect(201);
    const hook = await request(svc.app)
      .post('/api/v1/webhooks')
      .set('x-auth-token', key)
      .send({ url: receiver.url, events: ['image.deleted'] })
      .expect(400);
    expect(hook.body.code).toBe('INVALID_WEBHOOK_URL'); // loopback: this service has no development origins
    await db.db
      .updateTable('offchain_webhooks')
      .set({ url: receiver.url, events: ['image.deleted'] })
      .execute();

    const events = Array.from({ length: 120 }, (_, i) => ({
      id: randomUUID(),
      type: 'image.deleted' as const,
      parentName: 'workers.eth',
      occurredAt: new Date().toISOString(),
      data: { name: `n${i}.workers.eth` },
    }));
    expect(await eventRecorder(60_000, { changed: async () => undefined }).record(db.db, events)).toBe(120);

    // The first answers are held until both workers have attempts in flight: each has claimed its free slots while
    // the other claimed too, whatever the machine's load (a worker claims at most its free slots at once).
    let release = (): void => undefined;
    receiver.held = new Promise((resolve) => (release = resolve));
    const firstWorker = webhookDispatcher({ db: db.db, webhooks: settings, logger });
    const secondWorker = webhookDispatcher({ db: replica.db, webhooks: settings, logger });
    const run = async (worker: typeof firstWorker): Promise<number> => {
      await worker.deliverDue();
      await worker.drain();
      return worker.attemptsStarted();
    };
    const runs = Promise.all([run(firstWorker), run(secondWorker)]);
    await until(
      () => firstWorker.attemptsStarted() > 0 && secondWorker.attemptsStarted() > 0,
      'both workers to start attempts',
    );
    release();
    receiver.held = undefined;
    const [first, second] = await runs;
    expect(first + second).toBe(120);
    expect(receiver.received).toHaveLength(120);
    expect(new Set(receiver.received.map((d) => d.headers['webhook-id']))).toEqual(
      new Set(events.map((e) => e.id)),
    );
    const rows = await db.db
      .selectFrom('offchain_webhook_deliveries')
      .select(['status', 'attempts'])
      .execute();
    expect(rows).toHaveLength(120);
    expect(rows.every((r) => r.status === 'delivered' && r.attempts === 1)).toBe(true);
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(0);
    shutdown.push(async () => {
      // The service does not close the database it was given; the test closes it itself.
      for (const step of svc.onShutdown) await step();
    });
  });

  it('events written while no worker runs are delivered by a replica started later (the outbox survives)', async () => {
    receiver.received.length = 0;
    const writer = await createService(configFor({ WEBHOOK_DELIVERY_INTERVAL_MS: '0' }), logger, {
      database: db,
    });
    const { key, row } = await issueApiKey(db, ['restart.eth']);
    await db.db
      .insertInto('offchain_webhooks')
      .values({
        api_key_id: row.id,
        url: receiver.url,
        events: ['subname.created'],
        secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
      })
      .execute();
    for (const label of ['one', 'two', 'three']) {
      await request(writer.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', key)
        .send({ parentName: 'restart.eth', label })
        .expect(201);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(receiver.received).toHaveLength(0);

    const later = await createService(
      configFor({ WEBHOOK_DELIVERY_INTERVAL_MS: '25', WEBHOOK_ALLOWED_ORIGINS: receiver.origin }),
      logger,
      { database: replica },
    );
    shutdown.push(async () => {
      for (const step of writer.onShutdown) await step();
      for (const step of later.onShutdown) await step();
    });
    await until(() => receiver.received.length >= 3, 'the replica to deliver');
    const names = receiver.received.map(
      (d) => (JSON.parse(d.body) as { data: { fullName: string } }).data.fullName,
    );
    expect(names.sort()).toEqual(['one.restart.eth', 'three.restart.eth', 'two.restart.eth']);
  });
});
