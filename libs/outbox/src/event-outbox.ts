import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { assertSchemaName, statementGroups } from '@nrp/db';
import type { PlatformEvent, WebhookEventType } from '@nrp/api';

/** Where a producing service writes its events, inside the transaction of the change. */
export interface EventOutbox {
  append<DB>(db: Kysely<DB>, events: PlatformEvent[]): Promise<void>;
}

/**
 * The outbox in `table`. Disabled (appends nothing) when the service has nowhere to relay to, so that events do
 * not pile up in a deployment without offchain-svc.
 */
export function createEventOutbox(table: string, enabled: boolean): EventOutbox {
  const name = assertSchemaName(table);
  if (!enabled) return { append: async () => undefined };
  return {
    async append(db, events) {
      for (const group of statementGroups(events, 5)) {
        const rows = group.map(
          (e) =>
            sql`(${e.id}::uuid, ${e.type}, ${e.parentName}, ${e.occurredAt}::timestamptz, ${JSON.stringify(e.data)}::jsonb)`,
        );
        await sql`
          INSERT INTO ${sql.table(name)} (id, type, parent_name, occurred_at, data)
          VALUES ${sql.join(rows)}`.execute(db);
      }
    },
  };
}

/** A new event with a fresh id. */
export function newEvent(
  type: WebhookEventType,
  parentName: string,
  data: Record<string, unknown>,
  occurredAt: Date = new Date(),
): PlatformEvent {
  return { id: randomUUID(), type, parentName, occurredAt: occurredAt.toISOString(), data };
}
