import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import request from 'supertest';
import { Webhook } from 'standardwebhooks';
import { hashApiKey } from '@nrp/auth';
import { ALICE, startOffchainService, type OffchainService } from './helpers';
import {
  startWebhookReceiver,
  type ReceivedDelivery,
  type WebhookReceiver,
} from '@nrp/testkit/src/webhook-receiver';
import { until } from '@nrp/testkit/src/until';
import { retryDelayMs, MAX_RETRY_DELAY_MS } from '../src/webhooks/delivery';

const INGEST_TOKEN = 'ingest-token-0123456789abcdef0123456789';

interface Subscribed {
  id: string;
  secret: string;
}

async function subscribe(
  svc: OffchainService,
  key: string,
  url: string,
  events: string[],
): Promise<Subscribed> {
  const res = await request(svc.app)
    .post('/api/v1/webhooks')
    .set('x-auth-token', key)
    .send({ url, events })
    .expect(201);
  return res.body as Subscribed;
}

/** What a receiver using the `standardwebhooks` package sees: it throws unless the signature verifies. */
interface Payload {
  type: string;
  timestamp: string;
  data: Record<string, unknown>;
}

function verified(secret: string, delivery: ReceivedDelivery): Payload {
  const headers = {
    'webhook-id': String(delivery.headers['webhook-id']),
    'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
    'webhook-signature': String(delivery.headers['webhook-signature']),
  };
  return new Webhook(secret).verify(delivery.body, headers) as Payload;
}

describe('webhooks', () => {
  let receiver: WebhookReceiver;
  let svc: OffchainService;
  let key: string;
  let otherKey: string;

  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    svc = await startOffchainService({
      WEBHOOK_ALLOWED_ORIGINS: receiver.origin,
      WEBHOOK_DELIVERY_INTERVAL_MS: '25',
      WEBHOOK_RETRY_BASE_MS: '50',
      EVENTS_INGEST_TOKEN: INGEST_TOKEN,
    });
    key = await svc.keyFor('hooks.eth');
    otherKey = await svc.keyFor('other.eth');
  });
  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
  });
  beforeEach(() => {
    receiver.received.length = 0;
    receiver.respond = () => 204;
  });

  it('creates, lists and deletes webhooks; the secret is shown once; another key sees none of them', async () => {
    const created = await request(svc.app)
      .post('/api/v1/webhooks')
      .set('x-auth-token', key)
      .send({
        url: 'https://hooks.example.com/nrp',
        events: ['subname.created', 'subname.created', 'mint.signed'],
      })
      .expect(201);
    expect(created.body).toEqual({
      id: expect.any(String),
      url: 'https://hooks.example.com/nrp',
      events: ['subname.created', 'mint.signed'],
      secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
      createdAt: expect.any(String),
    });
    const listed = await request(svc.app).get('/api/v1/webhooks').set('x-auth-token', key).expect(200);
    expect(listed.body.items).toEqual([
      {
        id: created.body.id,
        url: 'https://hooks.example.com/nrp',
        events: ['subname.created', 'mint.signed'],
        createdAt: created.body.createdAt,
      },
    ]);
    expect((await request(svc.app).get('/api/v1/webhooks').set('x-auth-token', otherKey)).body.items).toEqual(
      [],
    );
    const foreign = await request(svc.app)
      .delete(`/api/v1/webhooks/${created.body.id}`)
      .set('x-auth-token', otherKey)
      .expect(404);
    expect(foreign.body.code).toBe('WEBHOOK_NOT_FOUND');
    await request(svc.app)
      .get(`/api/v1/webhooks/${created.body.id}/deliveries`)
      .set('x-auth-token', otherKey)
      .expect(404);
    await request(svc.app).delete(`/api/v1/webhooks/${created.body.id}`).set('x-auth-token', key).expect(204);
    await request(svc.app).delete(`/api/v1/webhooks/${created.body.id}`).set('x-auth-token', key).expect(404);
    expect((await request(svc.app).get('/api/v1/webhooks').set('x-auth-token', key)).body.items).toEqual([]);
  });

  it.each([
    ['http://hooks.example.com/nrp', /only https/],
    ['https://127.0.0.1/hook', /not a public address/],
    ['https://localhost:8443/hook', /loopback host/],
    ['https://169.254.169.254/latest/meta-data', /not a public address/],
    ['https://[::1]/hook', /not a public address/],
    ['https://10.0.0.7/hook', /not a public address/],
    ['https://192.0.2.2:4001/hook', /192\.0\.2\.2 is not a public address/],
    ['https://198.51.100.7/hook', /not a public address/],
    ['https://203.0.113.9/hook', /not a public address/],
    ['https://[::127.0.0.1]/hook', /not a public address/],
    ['https://[::ffff:0:127.0.0.1]/hook', /not a public address/],
    ['https://[64:ff9b::127.0.0.1]/hook', /not a public address/],
    ['https://[fec0::1]/hook', /not a public address/],
    ['not a url', /not a valid URL/],
    [`${'http://127.0.0.1:1'}/hook`, /only https/], // loopback on a port that is not a configured origin
  ])('refuses the webhook URL %s (400 INVALID_WEBHOOK_URL)', async (url, reason) => {
    const res = await request(svc.app)
      .post('/api/v1/webhooks')
      .set('x-auth-token', key)
      .send({ url, events: ['subname.created'] })
      .expect(400);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body.code).toBe('INVALID_WEBHOOK_URL');
    expect(res.body.errors).toEqual([{ path: 'body.url', message: expect.stringMatching(reason) }]);
    expect((await request(svc.app).get('/api/v1/webhooks').set('x-auth-token', key)).body.items).toEqual([]);
  });

  it('a host name resolving to a private address: accepted, never reached, and its addresses are never said', async () => {
    // This machine's host name resolves to one of its own, non-public addresses (the receiver listens on one).
    const port = new URL(receiver.origin).port;
    const res = await request(svc.app)
      .post('/api/v1/webhooks')
      .set('x-auth-token', key)
      .send({ url: `https://${hostname()}:${port}/hooks/nrp`, events: ['subname.created'] });
    expect(res.status).toBe(201);
    const hook = res.body as Subscribed;
    await request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', key)
      .send({ parentName: 'hooks.eth', label: 'rebound' })
      .expect(201);
    let items: Array<{ attempts: number; lastError: string | null; lastStatusCode: number | null }> = [];
    await until(async () => {
      const listed = await request(svc.app)
        .get(`/api/v1/webhooks/${hook.id}/deliveries`)
        .set('x-auth-token', key);
      items = listed.body.items;
      return typeof items[0]?.lastError === 'string';
    }, 'a failed attempt recorded');
    expect(items[0]).toMatchObject({ lastStatusCode: null, lastError: 'the receiver gave no answer' });
    expect(JSON.stringify([res.body, items])).not.toMatch(/resolves|127\.0\.0\.1|::1|ECONN|ERR_/);
    expect(receiver.received).toEqual([]);
    await request(svc.app).delete(`/api/v1/webhooks/${hook.id}`).set('x-auth-token', key).expect(204);
    await request(svc.app).delete('/api/v1/subnames/rebound.hooks.eth').set('x-auth-token', key).expect(204);
  });

  it('refuses unknown or missing event names, a missing key and a bad id', async () => {
    const unknown = await request(svc.app)
      .post('/api/v1/webhooks')
      .set('x-auth-token', key)
      .send({ url: 'https://hooks.example.com/nrp', events: ['subname.created', 'subname.renamed'] })
      .expect(400);
    expect(unknown.body.code).toBe('INVALID_INPUT');
    expect(unknown.body.errors).toEqual([{ path: 'body.events.1', message: expect.any(String) }]);
    const empty = await request(svc.app)
      .post('/api/v1/webhooks')
      .set('x-auth-token', key)
      .send({ url: 'https://hooks.example.com/nrp', events: [] })
      .expect(400);
    expect(empty.body.errors[0].path).toBe('body.events');
    const anonymous = await request(svc.app)
      .post('/api/v1/webhooks')
      .send({ url: 'https://hooks.example.com/nrp', events: ['subname.created'] })
      .expect(401);
    expect(anonymous.body.code).toBe('UNAUTHORIZED');
    await request(svc.app).get('/api/v1/webhooks').expect(401);
    const badId = await request(svc.app)
      .delete('/api/v1/webhooks/not-a-uuid')
      .set('x-auth-token', key)
      .expect(400);
    expect(badId.body.errors[0].path).toBe('params.id');
  });

  it('at most 20 webhooks per key (409)', async () => {
    const limited = await svc.keyFor('hooks.eth');
    for (let i = 0; i < 20; i++)
      await subscribe(svc, limited, `https://hooks.example.com/${i}`, ['mint.signed']);
    const res = await request(svc.app)
      .post('/api/v1/webhooks')
      .set('x-auth-token', limited)
      .send({ url: 'https://hooks.example.com/21', events: ['mint.signed'] })
      .expect(409);
    expect(res.body.code).toBe('WEBHOOK_LIMIT_REACHED');
  });

  it('delivers subname.created/updated/deleted of its parents, signed so that standardwebhooks verifies them', async () => {
    const hook = await subscribe(svc, key, receiver.url, [
      'subname.created',
      'subname.updated',
      'subname.deleted',
    ]);
    const otherHook = await subscribe(svc, otherKey, receiver.url, ['subname.created']);
    await request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', key)
      .send({
        parentName: 'hooks.eth',
        label: 'alice',
        owner: ALICE,
        texts: [{ key: 'url', value: 'https://a.example' }],
      })
      .expect(201);
    await request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', key)
      .send({ parentName: 'hooks.eth', label: 'alice', texts: [] })
      .expect(200);
    await request(svc.app).delete('/api/v1/subnames/alice.hooks.eth').set('x-auth-token', key).expect(204);
    await until(() => receiver.received.length >= 3, 'three deliveries');

    const payloads = receiver.received.map((d) => verified(hook.secret, d));
    expect(payloads.map((p) => p.type).sort()).toEqual([
      'subname.created',
      'subname.deleted',
      'subname.updated',
    ]);
    const created = payloads.find((p) => p.type === 'subname.created');
    expect(created?.data).toMatchObject({
      fullName: 'alice.hooks.eth',
      owner: ALICE,
      texts: { url: 'https://a.example' },
    });
    expect(created?.timestamp).toBe(created?.data['updatedAt']);
    expect(payloads.find((p) => p.type === 'subname.deleted')?.data).toMatchObject({
      fullName: 'alice.hooks.eth',
      texts: {},
    });
    // Each delivery is a Standard Webhooks message: a distinct id per event, a fresh timestamp, JSON.
    expect(new Set(receiver.received.map((d) => d.headers['webhook-id'])).size).toBe(3);
    for (const d of receiver.received) {
      expect(d.headers['content-type']).toBe('application/json');
      expect(Math.abs(Number(d.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(300);
    }
    // A wrong secret does not verify.
    expect(() => verified(otherHook.secret, receiver.received[0] as ReceivedDelivery)).toThrow();

    // The other key's webhook sees nothing of hooks.eth; its own parent's events reach it.
    await request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', otherKey)
      .send({ parentName: 'other.eth', label: 'bob' })
      .expect(201);
    await until(() => receiver.received.length >= 4, 'the other key’s delivery');
    expect(verified(otherHook.secret, receiver.received[3] as ReceivedDelivery).data['fullName']).toBe(
      'bob.other.eth',
    );

    const deliveries = await request(svc.app)
      .get(`/api/v1/webhooks/${hook.id}/deliveries`)
      .set('x-auth-token', key)
      .expect(200);
    expect(deliveries.body.nextCursor).toBeNull();
    expect(deliveries.body.items).toHaveLength(3);
    for (const d of deliveries.body.items) {
      expect(d).toMatchObject({
        status: 'delivered',
        attempts: 1,
        lastStatusCode: 204,
        lastError: null,
        nextAttemptAt: null,
      });
    }
    await request(svc.app).delete(`/api/v1/webhooks/${hook.id}`).set('x-auth-token', key).expect(204);
    await request(svc.app)
      .delete(`/api/v1/webhooks/${otherHook.id}`)
      .set('x-auth-token', otherKey)
      .expect(204);
  });

  it('retries a failing receiver with backoff until it answers 2xx; lists the attempts, pages by cursor', async () => {
    const hook = await subscribe(svc, key, receiver.url, ['subname.created']);
    receiver.respond = (before) => (before < 2 ? 503 : 200);
    await request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', key)
      .send({ parentName: 'hooks.eth', label: 'retry' })
      .expect(201);
    await until(() => receiver.received.length >= 3, 'three attempts');
    const ids = new Set(receiver.received.map((d) => d.headers['webhook-id']));
    expect(ids.size).toBe(1); // the same message every attempt
    for (const d of receiver.received) expect(verified(hook.secret, d).type).toBe('subname.created');
    await until(async () => {
      const res = await request(svc.app)
        .get(`/api/v1/webhooks/${hook.id}/deliveries`)
        .set('x-auth-token', key);
      return res.body.items[0]?.status === 'delivered';
    }, 'the delivery to be recorded');
    const res = await request(svc.app)
      .get(`/api/v1/webhooks/${hook.id}/deliveries?status=delivered`)
      .set('x-auth-token', key)
      .expect(200);
    expect(res.body.items).toEqual([
      expect.objectContaining({
        eventType: 'subname.created',
        status: 'delivered',
        attempts: 3,
        lastStatusCode: 200,
      }),
    ]);

    // Two more events, then pages of one.
    receiver.respond = () => 204;
    for (const label of ['page1', 'page2']) {
      await request(svc.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', key)
        .send({ parentName: 'hooks.eth', label })
        .expect(201);
    }
    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const page: request.Response = await request(svc.app)
        .get(`/api/v1/webhooks/${hook.id}/deliveries`)
        .query({ limit: 1, ...(cursor ? { cursor } : {}) })
        .set('x-auth-token', key)
        .expect(200);
      seen.push(...page.body.items.map((d: { id: string }) => d.id));
      cursor = page.body.nextCursor;
    } while (cursor);
    expect(new Set(seen).size).toBe(3);
    const bad = await request(svc.app)
      .get(`/api/v1/webhooks/${hook.id}/deliveries?cursor=garbage&limit=500`)
      .set('x-auth-token', key)
      .expect(400);
    expect(bad.body.errors.map((e: { path: string }) => e.path)).toEqual(['query.limit', 'query.cursor']);
    const badCursor = await request(svc.app)
      .get(`/api/v1/webhooks/${hook.id}/deliveries?cursor=garbage`)
      .set('x-auth-token', key)
      .expect(400);
    expect(badCursor.body.errors).toEqual([{ path: 'query.cursor', message: expect.any(String) }]);
    await request(svc.app).delete(`/api/v1/webhooks/${hook.id}`).set('x-auth-token', key).expect(204);
  });

  it('ingests events of the other services: bearer token, validation, idempotent by event id, scoped by parent', async () => {
    const hook = await subscribe(svc, key, receiver.url, ['image.confirmed', 'mint.signed']);
    const event = {
      id: randomUUID(),
      type: 'image.confirmed',
      parentName: 'hooks.eth',
      occurredAt: new Date().toISOString(),
      data: { network: 'sepolia', name: 'alice.hooks.eth', kind: 'avatar' },
    };
    const foreign = { ...event, id: randomUUID(), parentName: 'other.eth' };
    const unsubscribed = { ...event, id: randomUUID(), type: 'image.pending' };
    await request(svc.app)
      .post('/internal/v1/events')
      .send({ events: [event] })
      .expect(401);
    await request(svc.app)
      .post('/internal/v1/events')
      .set('authorization', 'Bearer not-the-token')
      .send({ events: [event] })
      .expect(401);
    const invalid = await request(svc.app)
      .post('/internal/v1/events')
      .set('authorization', `Bearer ${INGEST_TOKEN}`)
      .send({ events: [{ ...event, type: 'image.stolen' }] })
      .expect(400);
    expect(invalid.body.errors[0].path).toBe('body.events.0.type');

    const first = await request(svc.app)
      .post('/internal/v1/events')
      .set('authorization', `Bearer ${INGEST_TOKEN}`)
      .send({ events: [event, foreign, unsubscribed] })
      .expect(202);
    expect(first.body).toEqual({ received: 3, stored: 1 });
    const again = await request(svc.app)
      .post('/internal/v1/events')
      .set('authorization', `Bearer ${INGEST_TOKEN}`)
      .send({ events: [event] })
      .expect(202);
    expect(again.body).toEqual({ received: 1, stored: 0 });
    await until(() => receiver.received.length >= 1, 'the image delivery');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(receiver.received).toHaveLength(1);
    expect(receiver.received[0]?.headers['webhook-id']).toBe(event.id);
    expect(verified(hook.secret, receiver.received[0] as ReceivedDelivery)).toEqual({
      type: 'image.confirmed',
      timestamp: event.occurredAt,
      data: event.data,
    });
    await request(svc.app).delete(`/api/v1/webhooks/${hook.id}`).set('x-auth-token', key).expect(204);
  });

  it('stores an event time with any offset ISO 8601 allows (up to ±23:59; PostgreSQL takes ±15:59) in UTC, from year 1', async () => {
    const hook = await subscribe(svc, key, receiver.url, ['mint.signed']);
    const occurredAt = '2026-11-22T10:00:00+22:02';
    const event = { id: randomUUID(), type: 'mint.signed', parentName: 'hooks.eth', occurredAt, data: {} };
    const res = await request(svc.app)
      .post('/internal/v1/events')
      .set('authorization', `Bearer ${INGEST_TOKEN}`)
      .send({ events: [event] })
      .expect(202);
    expect(res.body).toEqual({ received: 1, stored: 1 });
    const row = await svc.db.db
      .selectFrom('offchain_events')
      .select('occurred_at')
      .where('id', '=', event.id)
      .executeTakeFirstOrThrow();
    expect(new Date(row.occurred_at).toISOString()).toBe(new Date(occurredAt).toISOString());
    // Year 0 exists in ISO 8601 but not in PostgreSQL: a 400, also when only the offset takes the time there.
    for (const yearZero of ['0000-02-29T19:19:45Z', '0001-01-01T00:30:00+01:00']) {
      const refused = await request(svc.app)
        .post('/internal/v1/events')
        .set('authorization', `Bearer ${INGEST_TOKEN}`)
        .send({ events: [{ ...event, id: randomUUID(), occurredAt: yearZero }] })
        .expect(400);
      expect(refused.body.errors[0].path).toBe('body.events.0.occurredAt');
    }
    await request(svc.app).delete(`/api/v1/webhooks/${hook.id}`).set('x-auth-token', key).expect(204);
  });

  it('a revoked key’s webhooks receive nothing', async () => {
    const revocable = await svc.keyFor('hooks.eth');
    const hook = await subscribe(svc, revocable, receiver.url, ['subname.created']);
    const live = await subscribe(svc, key, receiver.url, ['subname.created']);
    await svc.db.db
      .updateTable('offchain_api_keys')
      .set({ revoked_at: new Date().toISOString() })
      .where('key_hash', '=', hashApiKey(revocable))
      .execute();
    await request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', key)
      .send({ parentName: 'hooks.eth', label: 'quiet' })
      .expect(201);
    await until(() => receiver.received.length >= 1, 'the live key’s delivery');
    expect(verified(live.secret, receiver.received[0] as ReceivedDelivery).data['fullName']).toBe(
      'quiet.hooks.eth',
    );
    const deliveries = await svc.db.db
      .selectFrom('offchain_webhook_deliveries')
      .select('webhook_id')
      .execute();
    expect(deliveries.map((d) => d.webhook_id)).not.toContain(hook.id);
    expect(deliveries.map((d) => d.webhook_id)).toContain(live.id);
    await request(svc.app).delete(`/api/v1/webhooks/${live.id}`).set('x-auth-token', key).expect(204);
  });
});

describe('retry schedule', () => {
  it('first retry within a minute, doubling with jitter, capped at an hour, covering 24 hours in a few dozen attempts', () => {
    expect(retryDelayMs(1, 30_000, () => 1)).toBe(30_000);
    expect(retryDelayMs(1, 30_000, () => 0)).toBe(15_000);
    expect(retryDelayMs(2, 30_000, () => 1)).toBe(60_000);
    expect(retryDelayMs(40, 30_000, () => 1)).toBe(MAX_RETRY_DELAY_MS);
    let elapsed = 0;
    let attempts = 1;
    while (elapsed < 24 * 3600_000) elapsed += retryDelayMs(attempts++, 30_000, () => 1);
    expect(attempts).toBeLessThan(40);
  });
});

describe('webhook delivery failure window and redelivery', () => {
  let receiver: WebhookReceiver;
  let svc: OffchainService;
  let key: string;
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    svc = await startOffchainService({
      WEBHOOK_ALLOWED_ORIGINS: receiver.origin,
      WEBHOOK_DELIVERY_INTERVAL_MS: '25',
      WEBHOOK_RETRY_BASE_MS: '50',
      WEBHOOK_RETRY_WINDOW_MS: '400',
    });
    key = await svc.keyFor('fail.eth');
  });
  afterAll(async () => {
    await svc?.close();
    await receiver?.close();
  });

  it('marks a delivery failed once its retry window has passed, and redelivers it on request', async () => {
    const hook = await subscribe(svc, key, receiver.url, ['subname.created']);
    receiver.respond = () => 500;
    await request(svc.app)
      .post('/api/v1/subnames')
      .set('x-auth-token', key)
      .send({ parentName: 'fail.eth', label: 'x' })
      .expect(201);
    const deliveries = () =>
      request(svc.app).get(`/api/v1/webhooks/${hook.id}/deliveries`).set('x-auth-token', key).expect(200);
    await until(async () => (await deliveries()).body.items[0]?.status === 'failed', 'the delivery to fail');
    const failed = (await deliveries()).body.items[0];
    expect(failed).toMatchObject({ status: 'failed', lastStatusCode: 500, nextAttemptAt: null });
    expect(failed.attempts).toBeGreaterThan(1);
    expect(receiver.received).toHaveLength(failed.attempts);

    receiver.respond = () => 200;
    const redelivered = await request(svc.app)
      .post(`/api/v1/webhooks/${hook.id}/deliveries/${failed.id}/redeliver`)
      .set('x-auth-token', key)
      .expect(202);
    expect(redelivered.body).toMatchObject({ id: failed.id, status: 'pending' });
    await until(async () => (await deliveries()).body.items[0]?.status === 'delivered', 'the redelivery');
    expect(receiver.received.at(-1)?.headers['webhook-id']).toBe(receiver.received[0]?.headers['webhook-id']);

    const unknown = await request(svc.app)
      .post(`/api/v1/webhooks/${hook.id}/deliveries/${randomUUID()}/redeliver`)
      .set('x-auth-token', key)
      .expect(404);
    expect(unknown.body.code).toBe('WEBHOOK_NOT_FOUND');
    await request(svc.app).post(`/api/v1/webhooks/${hook.id}/deliveries/${failed.id}/redeliver`).expect(401);
  });

  it('the ingest endpoint answers 503 when EVENTS_INGEST_TOKEN is not set', async () => {
    const res = await request(svc.app)
      .post('/internal/v1/events')
      .set('authorization', `Bearer ${INGEST_TOKEN}`)
      .send({ events: [] })
      .expect(503);
    expect(res.body.code).toBe('EVENTS_INGEST_NOT_CONFIGURED');
  });
});
