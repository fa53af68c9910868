import { sql, type Kysely } from 'kysely';
import { assertSchemaName } from '@nrp/db';
import type { PlatformEvent } from '@nrp/api';
import type { OutboxRow } from './outbox-migration';

/** Events relayed per request (the ingest endpoint's limit). */
export const RELAY_BATCH = 100;
/** Batches per relay run, so a run ends and the next starts on time. */
const BATCHES_PER_RUN = 20;

/**
 * Relays the oldest events of `table` with `send`, a batch at a time, and deletes each batch once `send`
 * resolved — all inside one transaction per batch whose `FOR UPDATE SKIP LOCKED` keeps replicas on disjoint
 * batches. A failed `send` rolls the batch back for the next run: delivery to the receiver is at least once
 * (it ignores ids it has seen). Returns how many events were relayed.
 */
export async function relayOutbox<DB>(
  db: Kysely<DB>,
  table: string,
  send: (events: PlatformEvent[]) => Promise<unknown>,
): Promise<number> {
  const name = assertSchemaName(table);
  let relayed = 0;
  for (let batch = 0; batch < BATCHES_PER_RUN; batch++) {
    const count = await db.transaction().execute(async (trx) => {
      const { rows } = await sql<OutboxRow>`
        SELECT * FROM ${sql.table(name)}
        ORDER BY created_at
        LIMIT ${RELAY_BATCH}
        FOR UPDATE SKIP LOCKED`.execute(trx);
      if (rows.length === 0) return 0;
      await send(
        rows.map((r) => ({
          id: r.id,
          type: r.type as PlatformEvent['type'],
          parentName: r.parent_name,
          occurredAt: new Date(r.occurred_at).toISOString(),
          data: r.data,
        })),
      );
      await sql`DELETE FROM ${sql.table(name)} WHERE id IN (${sql.join(rows.map((r) => r.id))})`.execute(trx);
      return rows.length;
    });
    relayed += count;
    if (count < RELAY_BATCH) break;
  }
  return relayed;
}
