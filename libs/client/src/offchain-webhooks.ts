/** Webhook methods of the offchain client (subscriptions, deliveries, redelivery, the internal event ingest). */
import { requestJson, type ClientOptions } from './http';
import type {
  CreatedWebhook,
  CreateWebhookInput,
  DeliveryStatus,
  IngestEventsResult,
  PlatformEvent,
  Webhook,
  WebhookDeliveries,
  WebhookDelivery,
} from '@nrp/api/offchain-webhooks';

export interface OffchainWebhookMethods {
  createWebhook(input: CreateWebhookInput, apiKey: string): Promise<CreatedWebhook>;
  listWebhooks(apiKey: string): Promise<Webhook[]>;
  deleteWebhook(id: string, apiKey: string): Promise<void>;
  listWebhookDeliveries(
    id: string,
    apiKey: string,
    query?: { status?: DeliveryStatus; limit?: number; cursor?: string },
  ): Promise<WebhookDeliveries>;
  redeliverWebhookDelivery(id: string, deliveryId: string, apiKey: string): Promise<WebhookDelivery>;
  /** Internal: relays producer events (bearer token EVENTS_INGEST_TOKEN). */
  ingestEvents(events: PlatformEvent[], token: string): Promise<IngestEventsResult>;
}

export function offchainWebhookMethods(options: ClientOptions): OffchainWebhookMethods {
  const auth = (apiKey: string) => ({ 'x-auth-token': apiKey });
  const path = (id: string) => `/api/v1/webhooks/${encodeURIComponent(id)}`;
  return {
    createWebhook: (input, apiKey) =>
      requestJson(options, 'createWebhook', '/api/v1/webhooks', {
        method: 'POST',
        body: input,
        headers: auth(apiKey),
      }),
    listWebhooks: async (apiKey) =>
      (
        await requestJson<{ items: Webhook[] }>(options, 'listWebhooks', '/api/v1/webhooks', {
          headers: auth(apiKey),
        })
      ).items,
    deleteWebhook: async (id, apiKey) => {
      await requestJson(options, 'deleteWebhook', path(id), { method: 'DELETE', headers: auth(apiKey) });
    },
    listWebhookDeliveries: (id, apiKey, query = {}) =>
      requestJson(options, 'listWebhookDeliveries', `${path(id)}/deliveries`, {
        headers: auth(apiKey),
        query,
      }),
    redeliverWebhookDelivery: (id, deliveryId, apiKey) =>
      requestJson(
        options,
        'redeliverWebhookDelivery',
        `${path(id)}/deliveries/${encodeURIComponent(deliveryId)}/redeliver`,
        { method: 'POST', headers: auth(apiKey) },
      ),
    ingestEvents: (events, token) =>
      requestJson(options, 'ingestEvents', '/internal/v1/events', {
        method: 'POST',
        body: { events },
        headers: { authorization: `Bearer ${token}` },
      }),
  };
}
