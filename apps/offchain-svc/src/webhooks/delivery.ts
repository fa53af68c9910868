import { createHmac } from 'node:crypto';
import { OutboundUrlRefusedError, outboundRequest } from '@nrp/chain';
import type { OffchainContext, WebhookSettings } from '../context';
import {
  claimDueDeliveries,
  recordAttemptOutcome,
  type AttemptOutcome,
  type ClaimedAttempt,
} from '../data/webhooks';
import { WEBHOOK_SECRET_PREFIX } from './webhooks';

/** The longest wait between two attempts. */
export const MAX_RETRY_DELAY_MS = 60 * 60_000;
/**
 * Attempts a worker has in flight at once: at most `perWebhook` to one webhook (claimed together once it has none
 * in flight), so that a slow or dead receiver holds only its own slots (`total / perWebhook` such receivers before
 * the others wait), and `total` in all.
 */
export const DELIVERY_CONCURRENCY = { perWebhook: 2, total: 100 } as const;

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
  { db, webhooks: settings, logger }: Pick<OffchainContext, 'db' | 'webhooks' | 'logger'>,
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
