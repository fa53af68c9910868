import { sql, type Kysely, type Selectable } from 'kysely';
import type { Webhook, WebhookDelivery, WebhookEventType } from '@nrp/api';
import type { DeliveryStatus, OffchainDatabase, WebhookDeliveriesTable } from './schema';

const iso = (value: Date | string) => (value instanceof Date ? value : new Date(value)).toISOString();
const isoOrNull = (value: Date | string | null) => (value === null ? null : iso(value));

function toWebhook(row: { id: string; url: string; events: string[]; created_at: Date }): Webhook {
  return {
    id: row.id,
    url: row.url,
    events: row.events as WebhookEventType[],
    createdAt: iso(row.created_at),
  };
}

export async function insertWebhook(
  db: Kysely<OffchainDatabase>,
  webhook: { apiKeyId: string; url: string; events: string[]; secret: string },
): Promise<Webhook> {
  const row = await db
    .insertInto('offchain_webhooks')
    .values({
      api_key_id: webhook.apiKeyId,
      url: webhook.url,
      events: webhook.events,
      secret: webhook.secret,
    })
    .returning(['id', 'url', 'events', 'created_at'])
    .executeTakeFirstOrThrow();
  return toWebhook(row);
}

export async function listWebhooks(db: Kysely<OffchainDatabase>, apiKeyId: string): Promise<Webhook[]> {
  const rows = await db
    .selectFrom('offchain_webhooks')
    .select(['id', 'url', 'events', 'created_at'])
    .where('api_key_id', '=', apiKeyId)
    .orderBy('created_at')
    .orderBy('id')
    .execute();
  return rows.map(toWebhook);
}

/** Whether the key owns a webhook with this id. */
export async function webhookBelongsTo(
  db: Kysely<OffchainDatabase>,
  id: string,
  apiKeyId: string,
): Promise<boolean> {
  const row = await db
    .selectFrom('offchain_webhooks')
    .select('id')
    .where('id', '=', id)
    .where('api_key_id', '=', apiKeyId)
    .executeTakeFirst();
  return row !== undefined;
}

/** Deletes the key's webhook (and its deliveries); false when the key has no webhook with this id. */
export async function deleteWebhook(
  db: Kysely<OffchainDatabase>,
  id: string,
  apiKeyId: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('offchain_webhooks')
    .where('id', '=', id)
    .where('api_key_id', '=', apiKeyId)
    .executeTakeFirst();
  return result.numDeletedRows > 0n;
}

type DeliveryRow = Selectable<WebhookDeliveriesTable> & { type: string };

function toDelivery(row: DeliveryRow): WebhookDelivery {
  return {
    id: row.id,
    eventId: row.event_id,
    eventType: row.type as WebhookEventType,
    status: row.status,
    attempts: row.attempts,
    lastAttemptAt: isoOrNull(row.last_attempt_at),
    lastStatusCode: row.last_status_code,
    lastError: row.last_error,
    nextAttemptAt: isoOrNull(row.next_attempt_at),
    deliveredAt: isoOrNull(row.delivered_at),
    createdAt: iso(row.created_at),
  };
}

function deliveriesWithType(db: Kysely<OffchainDatabase>) {
  return db
    .selectFrom('offchain_webhook_deliveries as d')
    .innerJoin('offchain_events as e', 'e.id', 'd.event_id')
    .selectAll('d')
    .select('e.type');
}

/** A page of a webhook's deliveries, newest first; `after` is the (created_at, id) of the previous page's last. */
export async function listDeliveries(
  db: Kysely<OffchainDatabase>,
  query: {
    webhookId: string;
    status?: DeliveryStatus;
    limit: number;
    after?: { createdAt: Date; id: string };
  },
): Promise<WebhookDelivery[]> {
  let select = deliveriesWithType(db).where('d.webhook_id', '=', query.webhookId);
  if (query.status) select = select.where('d.status', '=', query.status);
  if (query.after) {
    const { createdAt, id } = query.after;
    select = select.where(
      sql<boolean>`(d.created_at, d.id) < (${createdAt.toISOString()}::timestamptz, ${id}::uuid)`,
    );
  }
  const rows = await select
    .orderBy('d.created_at', 'desc')
    .orderBy('d.id', 'desc')
    .limit(query.limit)
    .execute();
  return rows.map(toDelivery);
}

/** Makes a delivery due now with a fresh retry window, whatever its state; undefined when the webhook has none. */
export async function scheduleRedelivery(
  db: Kysely<OffchainDatabase>,
  webhookId: string,
  deliveryId: string,
  retryWindowMs: number,
): Promise<WebhookDelivery | undefined> {
  const updated = await db
    .updateTable('offchain_webhook_deliveries')
    .set({
      status: 'pending',
      next_attempt_at: sql<string>`now()`,
      retry_until: sql<string>`now() + ${retryWindowMs} * interval '1 millisecond'`,
      delivered_at: null,
    })
    .where('id', '=', deliveryId)
    .where('webhook_id', '=', webhookId)
    .returning('id')
    .executeTakeFirst();
  if (!updated) return undefined;
  const row = await deliveriesWithType(db).where('d.id', '=', deliveryId).executeTakeFirstOrThrow();
  return toDelivery(row);
}

/** A claimed attempt: everything needed to send it. */
export interface ClaimedAttempt {
  deliveryId: string;
  attempt: number;
  /** The target: attempts of one webhook share its concurrency. */
  webhookId: string;
  url: string;
  secret: string;
  eventId: string;
  type: string;
  occurredAt: Date;
  data: Record<string, unknown>;
}

export interface ClaimLimits {
  /** Attempts claimed at most. */
  limit: number;
  /** Attempts claimed at most per webhook. */
  perWebhook: number;
  /** Webhooks whose attempts are not claimed (the worker has as many of theirs in flight as it allows). */
  busyWebhooks: readonly string[];
  /** How long the claimed deliveries are leased: a worker that dies mid-attempt leaves them to be retried after. */
  leaseMs: number;
}

/**
 * Claims due deliveries for one attempt each, at most `perWebhook` per webhook and none of `busyWebhooks`: their
 * attempt count goes up and they are leased. `FOR UPDATE SKIP LOCKED` makes concurrent workers (replicas) claim
 * disjoint rows, so no attempt is made twice; the due rows looked at are bounded (the oldest 10 × `limit`).
 */
export async function claimDueDeliveries(
  db: Kysely<OffchainDatabase>,
  limits: ClaimLimits,
): Promise<ClaimedAttempt[]> {
  const result = await sql<{
    id: string;
    attempts: number;
    webhook_id: string;
    url: string;
    secret: string;
    event_id: string;
    type: string;
    occurred_at: Date;
    data: Record<string, unknown>;
  }>`
    WITH due AS (
      SELECT id, webhook_id, next_attempt_at FROM offchain_webhook_deliveries
      WHERE status = 'pending' AND next_attempt_at <= now()
        AND NOT (webhook_id = ANY(${sql.val([...limits.busyWebhooks])}::uuid[]))
      ORDER BY next_attempt_at
      LIMIT ${limits.limit * 10}
      FOR UPDATE SKIP LOCKED
    ), picked AS (
      SELECT id FROM (
        SELECT id, next_attempt_at,
          row_number() OVER (PARTITION BY webhook_id ORDER BY next_attempt_at) AS nth
        FROM due
      ) ranked
      WHERE nth <= ${limits.perWebhook}
      ORDER BY next_attempt_at
      LIMIT ${limits.limit}
    ), claimed AS (
      UPDATE offchain_webhook_deliveries d
      SET attempts = d.attempts + 1,
          last_attempt_at = now(),
          next_attempt_at = now() + ${limits.leaseMs} * interval '1 millisecond'
      WHERE d.id IN (SELECT id FROM picked)
      RETURNING d.id, d.attempts, d.webhook_id, d.event_id
    )
    SELECT c.id, c.attempts, c.webhook_id, w.url, w.secret, c.event_id, e.type, e.occurred_at, e.data
    FROM claimed c
    JOIN offchain_webhooks w ON w.id = c.webhook_id
    JOIN offchain_events e ON e.id = c.event_id`.execute(db);
  return result.rows.map((r) => ({
    deliveryId: r.id,
    attempt: r.attempts,
    webhookId: r.webhook_id,
    url: r.url,
    secret: r.secret,
    eventId: r.event_id,
    type: r.type,
    occurredAt: new Date(r.occurred_at),
    data: r.data,
  }));
}

export type AttemptOutcome =
  | { delivered: true; statusCode: number }
  | { delivered: false; statusCode: number | null; error: string; retryInMs: number };

/**
 * Records the outcome of attempt `attempt` — only if it is still the latest one (a lease that ran out may have
 * handed the delivery to another worker meanwhile). A failure is retried in `retryInMs` while the delivery's
 * retry window is open (database clock), and marks it failed once the window has closed.
 */
export async function recordAttemptOutcome(
  db: Kysely<OffchainDatabase>,
  attempt: { deliveryId: string; attempt: number },
  outcome: AttemptOutcome,
): Promise<void> {
  const windowOpen = sql<boolean>`now() < retry_until`;
  const set = outcome.delivered
    ? {
        status: 'delivered' as const,
        last_status_code: outcome.statusCode,
        last_error: null,
        next_attempt_at: null,
        delivered_at: sql<string>`now()`,
      }
    : {
        status: sql<DeliveryStatus>`CASE WHEN ${windowOpen} THEN 'pending' ELSE 'failed' END`,
        last_status_code: outcome.statusCode,
        last_error: outcome.error.slice(0, 500),
        next_attempt_at: sql<string>`CASE WHEN ${windowOpen}
          THEN now() + ${outcome.retryInMs} * interval '1 millisecond' END`,
      };
  await db
    .updateTable('offchain_webhook_deliveries')
    .set(set)
    .where('id', '=', attempt.deliveryId)
    .where('attempts', '=', attempt.attempt)
    .where('status', '=', 'pending')
    .execute();
}
