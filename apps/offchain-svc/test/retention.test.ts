import { sql } from 'kysely';
import request from 'supertest';
import { pruneEvents } from '../src/data/events';
import { pruneIdempotencyKeys } from '../src/data/idempotency';
import { EVENT_RETENTION_DAYS, IDEMPOTENCY_KEY_HOURS } from '../src/service';
import { startOffchainService, type OffchainService } from './helpers';

describe('retention of events, deliveries and idempotency keys', () => {
  let svc: OffchainService;
  let key: string;
  beforeAll(async () => {
    svc = await startOffchainService({ WEBHOOK_DELIVERY_INTERVAL_MS: '0' });
    key = await svc.keyFor('keep.eth');
  });
  afterAll(() => svc?.close());

  it('prunes old events whose deliveries are done, keeps pending ones, and forgets old idempotency keys', async () => {
    await request(svc.app)
      .post('/api/v1/webhooks')
      .set('x-auth-token', key)
      .send({ url: 'https://hooks.example.com/keep', events: ['subname.created'] })
      .expect(201);
    for (const label of ['done', 'waiting', 'recent']) {
      await request(svc.app)
        .post('/api/v1/subnames/bulk')
        .set('x-auth-token', key)
        .set('idempotency-key', `k-${label}`)
        .send({ items: [{ parentName: 'keep.eth', label }] })
        .expect(200);
    }
    const { db } = svc.db;
    const eventOf = async (label: string) =>
      (
        await db
          .selectFrom('offchain_events')
          .select('id')
          .where(sql<boolean>`data->>'label' = ${label}`)
          .executeTakeFirstOrThrow()
      ).id;
    const [done, waiting] = [await eventOf('done'), await eventOf('waiting')];
    await db
      .updateTable('offchain_webhook_deliveries')
      .set({ status: 'delivered' })
      .where('event_id', '=', done)
      .execute();
    await sql`UPDATE offchain_events SET stored_at = now() - interval '31 days' WHERE id IN (${done}, ${waiting})`.execute(
      db,
    );
    await sql`UPDATE offchain_idempotency_keys SET created_at = now() - interval '25 hours' WHERE key = 'k-done'`.execute(
      db,
    );

    expect(await pruneEvents(db, EVENT_RETENTION_DAYS)).toBe(1);
    const left = await db.selectFrom('offchain_events').select('id').execute();
    expect(left.map((e) => e.id).sort()).toEqual([waiting, await eventOf('recent')].sort());
    expect(
      await db.selectFrom('offchain_webhook_deliveries').select('id').where('event_id', '=', done).execute(),
    ).toEqual([]);

    expect(await pruneIdempotencyKeys(db, IDEMPOTENCY_KEY_HOURS)).toBe(1);
    const keys = await db.selectFrom('offchain_idempotency_keys').select('key').orderBy('key').execute();
    expect(keys.map((k) => k.key)).toEqual(['k-recent', 'k-waiting']);
  });
});
