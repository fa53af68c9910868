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
/**
 * Attempts a worker has in flight at once: at most `perWebhook` to one webhook (claimed together once it has none
 * in flight), so that a slow or dead receiver holds only its own slots (`total / perWebhook` such receivers before
 * the others wait), and `total` in all.
 */
export const DELIVERY_CONCURRENCY = { perWebhook: 2, total: 100 } as const;

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

export interface WebhookDispatcher {
  /**
   * One run of the delivery worker: claims due attempts for its free slots (never more per webhook than
   * DELIVERY_CONCURRENCY allows) and starts them; each finished attempt is recorded and frees its slot for the next
   * claim at once, without waiting for the other attempts. Returns how many attempts this run started.
   */
  deliverDue(): Promise<number>;
  /** Attempts started since the worker was made. */
  attemptsStarted(): number;
  /** Resolves once no attempt is in flight (and none starts any more once `stop` was called). */
  drain(): Promise<void>;
  /** No claim after this; `drain` then waits for the attempts in flight. */
  stop(): Promise<void>;
}

/** The delivery worker of one process: its attempts in flight, by webhook. */
export function webhookDispatcher(
  db: OffchainDb,
  settings: WebhookSettings,
  logger: Logger,
  concurrency: { perWebhook: number; total: number } = DELIVERY_CONCURRENCY,
): WebhookDispatcher {
  const inFlight = new Map<string, number>();
  const running = new Set<Promise<void>>();
  let stopped = false;
  let claiming: Promise<number> | undefined;
  let claimAgain = false;
  let attemptsStarted = 0;

  const attempt = async (claimed: ClaimedAttempt): Promise<void> => {
    try {
      const outcome = await attemptDelivery(settings, claimed);
      if (!outcome.delivered) {
        logger.info(
          { deliveryId: claimed.deliveryId, attempt: claimed.attempt, error: outcome.error },
          'webhook attempt failed',
        );
      }
      await recordAttemptOutcome(db, claimed, outcome);
    } catch (err) {
      // The lease runs out and the attempt is made again.
      logger.error({ err, deliveryId: claimed.deliveryId }, 'webhook attempt could not be recorded');
    }
  };

  const start = (claimed: ClaimedAttempt): void => {
    attemptsStarted += 1;
    inFlight.set(claimed.webhookId, (inFlight.get(claimed.webhookId) ?? 0) + 1);
    const done = attempt(claimed).finally(() => {
      const left = (inFlight.get(claimed.webhookId) ?? 1) - 1;
      if (left > 0) inFlight.set(claimed.webhookId, left);
      else inFlight.delete(claimed.webhookId);
      running.delete(done);
      // The freed slot is claimed again at once: a fast receiver's next event does not wait for the next run.
      if (!stopped) void claimDue().catch((err: unknown) => logger.error({ err }, 'webhook claim failed'));
    });
    running.add(done);
  };

  const claimOnce = async (): Promise<number> => {
    let started = 0;
    for (;;) {
      const free = concurrency.total - running.size;
      if (stopped || free <= 0) return started;
      // A webhook with an attempt in flight waits until it has none: one claim never passes its slots.
      const claimed = await claimDueDeliveries(db, {
        limit: Math.min(free, 20),
        perWebhook: concurrency.perWebhook,
        busyWebhooks: [...inFlight.keys()],
        // Leased for the timeout plus a margin: an attempt never outlives its lease.
        leaseMs: settings.timeoutMs + 30_000,
      });
      for (const c of claimed) start(c);
      started += claimed.length;
      if (claimed.length === 0) return started;
    }
  };

  /** One claiming loop at a time; a request for another while it runs makes it go round once more. */
  const claimDue = async (): Promise<number> => {
    if (claiming) {
      claimAgain = true;
      return 0;
    }
    let started = 0;
    claiming = (async () => {
      do {
        claimAgain = false;
        started += await claimOnce();
      } while (claimAgain && !stopped);
      return started;
    })().finally(() => {
      claiming = undefined;
    });
    return claiming;
  };

  const drain = async (): Promise<void> => {
    while (running.size > 0 || claiming) await Promise.all([...running, claiming]);
  };

  return {
    deliverDue: claimDue,
    attemptsStarted: () => attemptsStarted,
    drain,
    stop: async () => {
      stopped = true;
      await drain();
    },
  };
}
