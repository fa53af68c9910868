import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { OffchainSubname, PlatformEvent, WebhookEventType } from '@nrp/api';
import { recordEvents } from '../data/events';
import type { OffchainDatabase } from '../data/schema';
import type { EventRecorder, OffchainContext } from '../context';
import type { RecordChanges } from '../subnames/record-changes';

/**
 * The recorder whose deliveries are retried for `retryWindowMs` after the event, and whose transactions tell
 * `changes` the names they wrote.
 */
export function eventRecorder(retryWindowMs: number, changes: RecordChanges): EventRecorder {
  const changedIn = new WeakMap<Kysely<OffchainDatabase>, string[]>();
  return {
    record(db, events) {
      const tags = changedIn.get(db);
      for (const event of tags ? events : []) {
        if (!event.type.startsWith('subname.')) continue;
        const { fullName, namehash } = event.data;
        if (typeof fullName === 'string') tags?.push(fullName);
        if (typeof namehash === 'string') tags?.push(namehash);
      }
      return recordEvents(db, events, retryWindowMs);
    },
    async transaction(db, work) {
      const tags: string[] = [];
      const result = await db.transaction().execute((trx) => {
        changedIn.set(trx, tags);
        return work(trx);
      });
      if (tags.length > 0) await changes.changed(tags);
      return result;
    },
  };
}

/** A `subname.*` event: its data is the record (for `subname.deleted`, the record as it was). */
export function subnameEvent(
  type: Extract<WebhookEventType, `subname.${string}`>,
  subname: OffchainSubname,
): PlatformEvent {
  return {
    id: randomUUID(),
    type,
    parentName: subname.parentName,
    occurredAt: type === 'subname.deleted' ? new Date().toISOString() : subname.updatedAt,
    data: subname,
  };
}

/** Stores the events another service relayed (an id seen before is ignored), each with its deliveries. */
export async function ingestEvents(
  ctx: Pick<OffchainContext, 'db' | 'events'>,
  batch: PlatformEvent[],
): Promise<{ received: number; stored: number }> {
  return { received: batch.length, stored: await ctx.events.record(ctx.db, batch) };
}
