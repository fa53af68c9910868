import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { OffchainSubname, PlatformEvent, WebhookEventType } from '@nrp/api';
import { recordEvents } from './data/events';
import type { OffchainDb } from './data/database';
import type { OffchainDatabase } from './data/schema';

/** Records events for the subscribed webhooks inside the caller's transaction (see `data/events.ts`). */
export interface EventRecorder {
  record(db: Kysely<OffchainDatabase>, events: PlatformEvent[]): Promise<number>;
}

/** The recorder whose deliveries are retried for `retryWindowMs` after the event. */
export function eventRecorder(retryWindowMs: number): EventRecorder {
  return { record: (db, events) => recordEvents(db, events, retryWindowMs) };
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
  { db }: OffchainDb,
  events: EventRecorder,
  batch: PlatformEvent[],
): Promise<{ received: number; stored: number }> {
  return { received: batch.length, stored: await events.record(db, batch) };
}
