import request from 'supertest';
import { until } from '@nrp/testkit/src/until';
import { startOffchainService, type OffchainService } from './helpers';
import { startWebhookReceiver, type WebhookReceiver } from '@nrp/testkit/src/webhook-receiver';

/** How long a slow receiver takes to answer; attempts time out later than that. */
const SLOW_MS = 5000;

describe('webhook deliveries: one slow receiver does not delay another', () => {
  let slow: WebhookReceiver[];
  let fast: WebhookReceiver;
  let svc: OffchainService;

  beforeAll(async () => {
    slow = await Promise.all(Array.from({ length: 19 }, () => startWebhookReceiver(SLOW_MS)));
    fast = await startWebhookReceiver();
    svc = await startOffchainService({
      WEBHOOK_ALLOWED_ORIGINS: [...slow, fast].map((r) => r.origin).join(','),
      WEBHOOK_DELIVERY_INTERVAL_MS: '25',
      WEBHOOK_TIMEOUT_MS: String(SLOW_MS * 2),
    });
  });
  afterAll(async () => {
    await svc?.close();
    await Promise.all([...(slow ?? []), fast].map((r) => r?.close()));
  });

  it('with 19 slow receivers, a fast one gets all its events before any slow one answers (finding: 10 s apart)', async () => {
    const key = await svc.keyFor('fair.eth');
    for (const receiver of [...slow, fast]) {
      await request(svc.app)
        .post('/api/v1/webhooks')
        .set('x-auth-token', key)
        .send({ url: receiver.url, events: ['subname.created'] })
        .expect(201);
    }
    for (let i = 0; i < 5; i++) {
      await request(svc.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', key)
        .send({ parentName: 'fair.eth', label: `event${i}` })
        .expect(201);
    }
    await until(() => fast.received.length >= 5, 'the fast receiver to get its five events');
    // Causality, not a timing threshold: every slow receiver is still holding its first attempts.
    expect(slow.reduce((sum, r) => sum + r.answered, 0)).toBe(0);
    expect(slow.every((r) => r.received.length > 0)).toBe(true);
    const names = fast.received.map(
      (d) => (JSON.parse(d.body) as { data: { fullName: string } }).data.fullName,
    );
    expect(names.sort()).toEqual([0, 1, 2, 3, 4].map((i) => `event${i}.fair.eth`));
  });
});
