/**
 * Offchain subname service: schemas of webhooks (subscriptions, deliveries, redelivery) and of the internal event
 * ingest that metadata-svc and mint-svc relay their events to; shared with the service.
 */
import { z } from 'zod';
import { cursorField } from './cursor';

/** Every event a webhook can subscribe to, with the service that emits it. */
export const WEBHOOK_EVENT_TYPES = [
  'subname.created', // offchain-svc
  'subname.updated',
  'subname.deleted',
  'image.pending', // metadata-svc
  'image.confirmed',
  'image.discarded',
  'image.deleted',
  'mint.signed', // mint-svc
  'name.minted',
  'name.transferred',
] as const;

export type WebhookEventType = (typeof WEBHOOK_EVENT_TYPES)[number];

export const WEBHOOK_LIMITS = {
  urlLength: 2048,
  perApiKey: 20,
  deliveriesPage: 100,
  ingestBatch: 100,
} as const;

export const webhookEventType = z.enum(WEBHOOK_EVENT_TYPES);

export const createWebhookRequest = z.strictObject({
  url: z
    .string()
    .max(WEBHOOK_LIMITS.urlLength)
    .meta({ description: 'https URL of a public host (or a configured development origin).' }),
  events: z
    .array(webhookEventType)
    .min(1)
    .max(WEBHOOK_EVENT_TYPES.length)
    .transform((events) => [...new Set(events)]),
});

export type CreateWebhookInput = z.input<typeof createWebhookRequest>;

export const webhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(webhookEventType),
    createdAt: z.string(),
  })
  .meta({ id: 'Webhook' });

export type Webhook = z.output<typeof webhookSchema>;

export const createdWebhookSchema = webhookSchema
  .extend({
    secret: z
      .string()
      .meta({ description: 'Standard Webhooks signing secret (`whsec_…`), shown only here.' }),
  })
  .meta({ id: 'CreatedWebhook' });

export type CreatedWebhook = z.output<typeof createdWebhookSchema>;

export const webhookListResponse = z.object({ items: z.array(webhookSchema) });

export const webhookIdParams = z.object({ id: z.uuid() });

export const DELIVERY_STATUSES = ['pending', 'delivered', 'failed'] as const;

export const webhookDeliverySchema = z
  .object({
    id: z.string(),
    eventId: z.string().meta({ description: 'Also the `webhook-id` header of every attempt.' }),
    eventType: webhookEventType,
    status: z.enum(DELIVERY_STATUSES),
    attempts: z.number().int(),
    lastAttemptAt: z.string().nullable(),
    lastStatusCode: z.number().int().nullable().meta({ description: "The receiver's HTTP status." }),
    lastError: z.string().nullable(),
    nextAttemptAt: z.string().nullable(),
    deliveredAt: z.string().nullable(),
    createdAt: z.string(),
  })
  .meta({ id: 'WebhookDelivery' });

export type WebhookDelivery = z.output<typeof webhookDeliverySchema>;

/** Where a page of deliveries ends: the last delivery answered (newest first). */
export const deliveriesCursorSchema = z.strictObject({
  createdAt: z.iso.datetime().transform((at) => new Date(at)),
  id: z.uuid(),
});

export const listDeliveriesQuery = z.object({
  status: z.enum(DELIVERY_STATUSES).optional(),
  limit: z.coerce.number().int().min(1).max(WEBHOOK_LIMITS.deliveriesPage).default(50),
  cursor: cursorField(deliveriesCursorSchema).optional(),
});

export const webhookDeliveriesResponse = z.object({
  items: z.array(webhookDeliverySchema),
  nextCursor: z.string().nullable(),
});

export type WebhookDeliveries = z.output<typeof webhookDeliveriesResponse>;

export const redeliverParams = z.object({ id: z.uuid(), deliveryId: z.uuid() });

/** The JSON body of every delivery (Standard Webhooks). */
export const webhookPayloadSchema = z
  .object({
    type: webhookEventType,
    timestamp: z.string().meta({ description: 'When the change happened (ISO 8601).' }),
    data: z.record(z.string(), z.unknown()),
  })
  .meta({ id: 'WebhookPayload' });

export type WebhookPayload = z.output<typeof webhookPayloadSchema>;

/** One event as a producing service relays it to offchain-svc. */
export const platformEventSchema = z.strictObject({
  id: z
    .uuid()
    .meta({ description: 'Chosen by the producer; an id seen before is ignored (idempotent relay).' }),
  type: webhookEventType,
  parentName: z
    .string()
    .min(1)
    .max(255)
    .meta({ description: 'Normalised parent name: webhooks of keys for it receive the event.' }),
  // PostgreSQL has no year 0 (1 BC); ISO 8601 strings with an offset may land there in UTC.
  occurredAt: z.iso
    .datetime({ offset: true })
    .refine((v) => new Date(v).getUTCFullYear() >= 1, 'must be in year 1 or later (UTC)'),
  data: z.record(z.string(), z.unknown()),
});

export type PlatformEvent = z.output<typeof platformEventSchema>;

export const ingestEventsRequest = z.strictObject({
  events: z.array(platformEventSchema).min(1).max(WEBHOOK_LIMITS.ingestBatch),
});

export const ingestEventsResponse = z.object({
  received: z.number().int(),
  stored: z.number().int().meta({ description: 'New events with at least one subscribed webhook.' }),
});

export type IngestEventsResult = z.output<typeof ingestEventsResponse>;

export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
