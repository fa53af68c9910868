import { createHmac, randomBytes } from 'node:crypto';
import { OutboundUrlRefusedError, outboundRequest, outboundUrlRefusal } from '@nrp/chain';
import {
  WEBHOOK_LIMITS,
  type CreatedWebhook,
  type WebhookDeliveries,
  type Webhook,
  type WebhookDelivery,
  type WebhookEventType,
} from '@nrp/api';
import type { Logger } from '@nrp/server';
import { commonProblems, ProblemError } from '@nrp/validation';
import type { ApiKeyRow } from './data/api-keys';
import type { OffchainDb } from './data/database';
import type { DeliveryStatus } from './data/schema';
import {
  claimDueDeliveries,
  deleteWebhook,
  insertWebhook,
  listDeliveries,
  listWebhooks,
  scheduleRedelivery,
  webhookBelongsTo,
  recordAttemptOutcome,
  type AttemptOutcome,
  type ClaimedAttempt,
} from './data/webhooks';
import { offchainProblems } from './problems';

export interface WebhookSettings {
  /** Origins exempt from the URL policy (development receivers on loopback). */
  allowedOrigins: readonly string[];
  /** First retry after at most this long; each later one waits twice as long (jittered), up to an hour. */
  retryBaseMs: number;
  /** Failed attempts are retried until this long after the event, then the delivery is failed. */
  retryWindowMs: number;
  /** An attempt without an answer within this long failed. */
  timeoutMs: number;
}

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** The longest wait between two attempts. */
export const MAX_RETRY_DELAY_MS = 60 * 60_000;
/** Attempts claimed per query, sent concurrently. */
const CLAIM_BATCH = 20;
/** Batches per worker run, so a run ends and the next starts on time. */
const BATCHES_PER_RUN = 10;

/** A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
}

/**
 * The `webhook-signature` header (Standard Webhooks): `v1,` + base64 HMAC-SHA256 of `{id}.{timestamp}.{body}`,
 * keyed by the base64-decoded part of the secret after `whsec_`.
 */
export function signWebhook(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(WEBHOOK_SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/**
 * The wait before retrying after failed attempt `attempt` (1-based): base · 2^(attempt-1), capped at an hour,
 * with "equal jitter" (between half of it and all of it) so that receivers coming back are not hit in lockstep.
 */
export function retryDelayMs(attempt: number, baseMs: number, random: () => number = Math.random): number {
  const exponential = Math.min(baseMs * 2 ** Math.min(attempt - 1, 30), MAX_RETRY_DELAY_MS);
  return Math.round(exponential / 2 + (random() * exponential) / 2);
}

/**
 * Why the URL policy refuses `url` from its text (https, not localhost, a literal IP public), or null. A host
 * name's addresses are checked when a delivery connects (DNS pinned to public addresses), so no answer ever
 * carries what a name resolves to.
 */
export function webhookUrlRefusal(url: string, settings: WebhookSettings): string | null {
  return outboundUrlRefusal(url, { allowedOrigins: settings.allowedOrigins });
}

/** Subscribes the key to `events` at `url` (checked by the URL policy); the secret is returned only here. */
export async function createWebhook(
  db: OffchainDb,
  settings: WebhookSettings,
  apiKey: ApiKeyRow,
  input: { url: string; events: WebhookEventType[] },
): Promise<CreatedWebhook> {
  const refusal = webhookUrlRefusal(input.url, settings);
  if (refusal !== null) {
    throw new ProblemError(offchainProblems.INVALID_WEBHOOK_URL, `The webhook URL is refused: ${refusal}.`, {
      errors: [{ path: 'body.url', message: refusal }],
    });
  }
  if ((await listWebhooks(db, apiKey.id)).length >= WEBHOOK_LIMITS.perApiKey) {
    throw new ProblemError(
      offchainProblems.WEBHOOK_LIMIT_REACHED,
      `This API key already has ${WEBHOOK_LIMITS.perApiKey} webhooks.`,
    );
  }
  const secret = generateWebhookSecret();
  const webhook = await insertWebhook(db, {
    apiKeyId: apiKey.id,
    url: input.url,
    events: input.events,
    secret,
  });
  return { ...webhook, secret };
}

/** The key's webhooks, oldest first, without their secrets. */
export function webhooksOf(db: OffchainDb, apiKey: ApiKeyRow): Promise<Webhook[]> {
  return listWebhooks(db, apiKey.id);
}

function webhookNotFound(id: string): ProblemError {
  return new ProblemError(offchainProblems.WEBHOOK_NOT_FOUND, `This API key has no webhook ${id}.`);
}

/** Removes the key's webhook and its deliveries; 404 when the key has no such webhook. */
export async function removeWebhook(db: OffchainDb, apiKey: ApiKeyRow, id: string): Promise<void> {
  if (!(await deleteWebhook(db, id, apiKey.id))) throw webhookNotFound(id);
}

const encodeCursor = (d: WebhookDelivery) => Buffer.from(`${d.createdAt}|${d.id}`).toString('base64url');

function decodeCursor(cursor: string): { createdAt: Date; id: string } {
  const [createdAt = '', id = ''] = Buffer.from(cursor, 'base64url').toString().split('|');
  const date = new Date(createdAt);
  if (Number.isNaN(date.getTime()) || !/^[0-9a-f-]{36}$/.test(id)) {
    throw new ProblemError(commonProblems.INVALID_INPUT, 'cursor is not a nextCursor of this list.', {
      errors: [{ path: 'query.cursor', message: 'not a nextCursor of this list' }],
    });
  }
  return { createdAt: date, id };
}

/** A page of the webhook's deliveries, newest first, with the cursor of the next page (null at the end). */
export async function webhookDeliveries(
  db: OffchainDb,
  apiKey: ApiKeyRow,
  webhookId: string,
  query: { status?: DeliveryStatus; limit: number; cursor?: string },
): Promise<WebhookDeliveries> {
  const after = query.cursor === undefined ? undefined : decodeCursor(query.cursor);
  if (!(await webhookBelongsTo(db, webhookId, apiKey.id))) throw webhookNotFound(webhookId);
  const items = await listDeliveries(db, { webhookId, status: query.status, limit: query.limit, after });
  const last = items.at(-1);
  return { items, nextCursor: items.length === query.limit && last ? encodeCursor(last) : null };
}

/** Makes a delivery due now, with a fresh retry window (whatever its state); 404 when it is not the key's. */
export async function redeliver(
  db: OffchainDb,
  settings: WebhookSettings,
  apiKey: ApiKeyRow,
  webhookId: string,
  deliveryId: string,
): Promise<WebhookDelivery> {
  if (!(await webhookBelongsTo(db, webhookId, apiKey.id))) throw webhookNotFound(webhookId);
  const delivery = await scheduleRedelivery(db, webhookId, deliveryId, settings.retryWindowMs);
  if (!delivery) {
    throw new ProblemError(
      offchainProblems.WEBHOOK_NOT_FOUND,
      `Webhook ${webhookId} has no delivery ${deliveryId}.`,
    );
  }
  return delivery;
}

/** One attempt: the signed POST, and what came of it. Redirects are not followed (a 3xx is a failure). */
async function attemptDelivery(settings: WebhookSettings, attempt: ClaimedAttempt): Promise<AttemptOutcome> {
  const failed = (statusCode: number | null, error: string): AttemptOutcome => ({
    delivered: false,
    statusCode,
    error,
    retryInMs: retryDelayMs(attempt.attempt, settings.retryBaseMs),
  });
  const body = JSON.stringify({
    type: attempt.type,
    timestamp: attempt.occurredAt.toISOString(),
    data: attempt.data,
  });
  const timestamp = Math.floor(Date.now() / 1000);
  try {
    // The URL policy again at every attempt, and the receiver's addresses checked as the socket connects.
    const response = await outboundRequest(attempt.url, {
      method: 'POST',
      policy: { allowedOrigins: settings.allowedOrigins },
      signal: AbortSignal.timeout(settings.timeoutMs),
      maxBytes: 0,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'nrp-offchain-webhooks/1',
        'webhook-id': attempt.eventId,
        'webhook-timestamp': String(timestamp),
        'webhook-signature': signWebhook(attempt.secret, attempt.eventId, timestamp, body),
      },
      body,
    });
    if (response.status >= 200 && response.status < 300)
      return { delivered: true, statusCode: response.status };
    return failed(response.status, `the receiver answered ${response.status}`);
  } catch (err) {
    // One wording for a refused address, a closed port, a reset and a time-out: the delivery log is an answer.
    return failed(null, err instanceof OutboundUrlRefusedError ? err.message : 'the receiver gave no answer');
  }
}

/**
 * One run of the delivery worker: claims due attempts in batches (disjoint between replicas), sends each batch
 * concurrently and records every outcome. Returns how many attempts were made.
 */
export async function deliverDue(db: OffchainDb, settings: WebhookSettings, logger: Logger): Promise<number> {
  let attempts = 0;
  for (let batch = 0; batch < BATCHES_PER_RUN; batch++) {
    // Leased for the timeout plus a margin: an attempt never outlives its lease.
    const claimed = await claimDueDeliveries(db, CLAIM_BATCH, settings.timeoutMs + 30_000);
    if (claimed.length === 0) break;
    await Promise.all(
      claimed.map(async (attempt) => {
        const outcome = await attemptDelivery(settings, attempt);
        if (!outcome.delivered) {
          logger.info(
            { deliveryId: attempt.deliveryId, attempt: attempt.attempt, error: outcome.error },
            'webhook attempt failed',
          );
        }
        await recordAttemptOutcome(db, attempt, outcome);
      }),
    );
    attempts += claimed.length;
  }
  return attempts;
}
