import { randomBytes } from 'node:crypto';
import { outboundUrlRefusal } from '@nrp/chain';
import {
  encodeCursor,
  WEBHOOK_LIMITS,
  type CreatedWebhook,
  type WebhookDeliveries,
  type Webhook,
  type WebhookDelivery,
  type WebhookEventType,
} from '@nrp/api';
import { ProblemError } from '@nrp/validation';
import type { ApiKeyRow } from '../data/api-keys';
import type { OffchainContext, WebhookSettings } from '../context';
import type { DeliveryStatus } from '../data/schema';
import {
  deleteWebhook,
  insertWebhook,
  listDeliveries,
  listWebhooks,
  scheduleRedelivery,
  webhookBelongsTo,
} from '../data/webhooks';
import { offchainProblems } from '../problems';

export const WEBHOOK_SECRET_PREFIX = 'whsec_';
/** A Standard Webhooks secret: `whsec_` + base64 of 24 random bytes. */
export function generateWebhookSecret(): string {
  return `${WEBHOOK_SECRET_PREFIX}${randomBytes(24).toString('base64')}`;
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
  { db, webhooks: settings }: Pick<OffchainContext, 'db' | 'webhooks'>,
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
export function webhooksOf({ db }: Pick<OffchainContext, 'db'>, apiKey: ApiKeyRow): Promise<Webhook[]> {
  return listWebhooks(db, apiKey.id);
}

function webhookNotFound(id: string): ProblemError {
  return new ProblemError(offchainProblems.WEBHOOK_NOT_FOUND, `This API key has no webhook ${id}.`);
}

/** Removes the key's webhook and its deliveries; 404 when the key has no such webhook. */
export async function removeWebhook(
  { db }: Pick<OffchainContext, 'db'>,
  apiKey: ApiKeyRow,
  id: string,
): Promise<void> {
  if (!(await deleteWebhook(db, id, apiKey.id))) throw webhookNotFound(id);
}

/** A page of the webhook's deliveries, newest first, with the cursor of the next page (null at the end). */
export async function webhookDeliveries(
  { db }: Pick<OffchainContext, 'db'>,
  apiKey: ApiKeyRow,
  webhookId: string,
  query: { status?: DeliveryStatus; limit: number; cursor?: { createdAt: Date; id: string } },
): Promise<WebhookDeliveries> {
  if (!(await webhookBelongsTo(db, webhookId, apiKey.id))) throw webhookNotFound(webhookId);
  const items = await listDeliveries(db, {
    webhookId,
    status: query.status,
    limit: query.limit,
    after: query.cursor,
  });
  const last = items.at(-1);
  return {
    items,
    nextCursor:
      items.length === query.limit && last ? encodeCursor({ createdAt: last.createdAt, id: last.id }) : null,
  };
}

/** Makes a delivery due now, with a fresh retry window (whatever its state); 404 when it is not the key's. */
export async function redeliver(
  { db, webhooks: settings }: Pick<OffchainContext, 'db' | 'webhooks'>,
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
