import type { PlatformEvent } from '@nrp/api';
import { createDatabase, migrate } from '@nrp/db';
import { createTestDatabase, type TestDatabase } from '@nrp/testkit/src/database';
import {
  createEventOutbox,
  newEvent,
  outboxMigration,
  relayOutbox,
  RELAY_BATCH,
  type OutboxRow,
} from '../src';

interface Db {
  test_outbox: OutboxRow;
}

const TABLE = 'test_outbox';
let db: TestDatabase<Db>;

beforeAll(async () => {
  db = await createTestDatabase<Db>();
  await migrate(db, { table: 'test_outbox_migrations', migrations: { '0001': outboxMigration(TABLE) } });
});
afterAll(() => db?.close());

const count = async () =>
  Number(
    (
      await db.db
        .selectFrom(TABLE)
        .select((eb) => eb.fn.countAll().as('n'))
        .executeTakeFirstOrThrow()
    ).n,
  );

const events = (n: number): PlatformEvent[] =>
  Array.from({ length: n }, (_, i) => newEvent('mint.signed', 'outbox.eth', { i }));

describe('event outbox', () => {
  it('appends inside the caller’s transaction: a rollback leaves nothing', async () => {
    const outbox = createEventOutbox(TABLE, true);
    await expect(
      db.db.transaction().execute(async (trx) => {
        await outbox.append<Db>(trx, events(3));
        throw new Error('the change failed');
      }),
    ).rejects.toThrow('the change failed');
    expect(await count()).toBe(0);
    await db.db.transaction().execute((trx) => outbox.append<Db>(trx, events(2)));
    expect(await count()).toBe(2);
    await createEventOutbox(TABLE, false).append(db.db, events(5));
    expect(await count()).toBe(2);
    await relayOutbox(db.db, TABLE, async () => undefined);
  });

  it('relays oldest first, deletes what was sent, and keeps a batch whose send failed', async () => {
    const written = events(RELAY_BATCH + 30);
    await createEventOutbox(TABLE, true).append(db.db, written);
    await expect(
      relayOutbox(db.db, TABLE, async () => {
        throw new Error('offchain-svc is down');
      }),
    ).rejects.toThrow('offchain-svc is down');
    expect(await count()).toBe(RELAY_BATCH + 30);

    const sent: PlatformEvent[][] = [];
    expect(await relayOutbox(db.db, TABLE, async (batch) => sent.push(batch))).toBe(RELAY_BATCH + 30);
    expect(sent.map((b) => b.length)).toEqual([RELAY_BATCH, 30]);
    expect(
      sent
        .flat()
        .map((e) => e.id)
        .sort(),
    ).toEqual(written.map((e) => e.id).sort());
    expect(sent.flat()[0]).toEqual({
      ...written[0],
      occurredAt: new Date(written[0]?.occurredAt ?? 0).toISOString(),
    });
    expect(await count()).toBe(0);
  });

  it('two relays on one database send disjoint batches (FOR UPDATE SKIP LOCKED)', async () => {
    const other = db.url ? createDatabase<Db>({ url: db.url }) : db;
    try {
      const written = events(RELAY_BATCH * 4);
      await createEventOutbox(TABLE, true).append(db.db, written);
      const seen: string[] = [];
      const send = async (batch: PlatformEvent[]) => {
        await new Promise((resolve) => setTimeout(resolve, 20)); // a relay request in flight
        seen.push(...batch.map((e) => e.id));
      };
      const [a, b] = await Promise.all([relayOutbox(db.db, TABLE, send), relayOutbox(other.db, TABLE, send)]);
      expect(a + b).toBe(written.length);
      expect(seen).toHaveLength(written.length);
      expect(new Set(seen)).toEqual(new Set(written.map((e) => e.id)));
      if (db.url) expect(Math.min(a, b)).toBeGreaterThan(0);
    } finally {
      if (other !== db) await other.close();
    }
  });

  it('newEvent: a fresh uuid chosen by the producer, the ISO time of the change', () => {
    const event = newEvent('image.deleted', 'outbox.eth', { name: 'a.outbox.eth' }, new Date(0));
    expect(event).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      type: 'image.deleted',
      parentName: 'outbox.eth',
      occurredAt: '1970-01-01T00:00:00.000Z',
      data: { name: 'a.outbox.eth' },
    });
  });
});
