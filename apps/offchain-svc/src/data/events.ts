import { sql, type Kysely } from 'kysely';
import type { PlatformEvent } from '@nrp/api';
import type { OffchainDatabase } from './schema';

/**
 * Stores the events some webhook subscribes to (its type, a parent its live API key may manage), with one pending
 * delivery per such webhook, in ONE statement — call it inside the transaction of the change, so an event exists
 * exactly when the change does. An event id seen before is ignored (producers relay at least once). Returns how
 * many events were stored.
 */
export async function recordEvents(
  db: Kysely<OffchainDatabase>,
  events: PlatformEvent[],
  retryWindowMs: number,
): Promise<number> {
  if (events.length === 0) return 0;
  const input = JSON.stringify(
    events.map((e) => ({
      id: e.id,
      type: e.type,
      parent_name: e.parentName,
      // As UTC: an ISO offset may run to ±23:59, PostgreSQL refuses any beyond ±15:59.
      occurred_at: new Date(e.occurredAt).toISOString(),
      data: e.data,
    })),
  );
  const result = await sql<{ stored: string }>`
    WITH input AS (
      SELECT * FROM jsonb_to_recordset(${input}::jsonb)
        AS e(id uuid, type text, parent_name text, occurred_at timestamptz, data jsonb)
    ), targets AS (
      SELECT e.id AS event_id, w.id AS webhook_id
      FROM input e
      JOIN offchain_webhooks w ON e.type = ANY (w.events)
      JOIN offchain_api_keys k ON k.id = w.api_key_id AND k.revoked_at IS NULL AND (
        e.parent_name = ANY (k.parents)
        -- a key with includeDescendants sees the events of every name below its parents
        OR (k.include_descendants AND EXISTS (
          SELECT 1 FROM unnest(k.parents) p WHERE right(e.parent_name, length(p) + 1) = '.' || p))
      )
    ), stored AS (
      INSERT INTO offchain_events (id, type, parent_name, occurred_at, data)
      SELECT e.id, e.type, e.parent_name, e.occurred_at, e.data FROM input e
      WHERE e.id IN (SELECT event_id FROM targets)
      ON CONFLICT (id) DO NOTHING
      RETURNING id
    ), deliveries AS (
      INSERT INTO offchain_webhook_deliveries (webhook_id, event_id, next_attempt_at, retry_until)
      SELECT t.webhook_id, t.event_id, now(), now() + ${retryWindowMs} * interval '1 millisecond'
      FROM targets t JOIN stored s ON s.id = t.event_id
    )
    SELECT count(*) AS stored FROM stored`.execute(db);
  return Number(result.rows[0]?.stored ?? 0);
}

/** Events older than `retentionDays` with no pending delivery (their deliveries go with them). */
export async function pruneEvents(db: Kysely<OffchainDatabase>, retentionDays: number): Promise<number> {
  const result = await db
    .deleteFrom('offchain_events')
    .where('stored_at', '<', sql<Date>`now() - ${retentionDays} * interval '1 day'`)
    .where(({ not, exists, selectFrom }) =>
      not(
        exists(
          selectFrom('offchain_webhook_deliveries as d')
            .select('d.id')
            .whereRef('d.event_id', '=', 'offchain_events.id')
            .where('d.status', '=', 'pending'),
        ),
      ),
    )
    .executeTakeFirst();
  return Number(result.numDeletedRows);
}
