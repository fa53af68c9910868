import type { RequestHandler } from 'express';
import { apiKeyMatches, hashApiKey } from '@nrp/auth';
import {
  createdWebhookSchema,
  createWebhookRequest,
  ingestEventsRequest,
  ingestEventsResponse,
  listDeliveriesQuery,
  redeliverParams,
  webhookDeliveriesResponse,
  webhookDeliverySchema,
  webhookIdParams,
  webhookListResponse,
} from '@nrp/api';
import { defineRoute, type RouteDefinition } from '@nrp/server';
import { commonProblems, ProblemError } from '@nrp/validation';
import { requireApiKey, verifiedApiKey } from '../keys/api-keys';
import { offchainProblems } from '../problems';
import { ingestEvents } from './events';
import { createWebhook, redeliver, removeWebhook, webhookDeliveries, webhooksOf } from './webhooks';
import type { OffchainContext } from '../context';

const TAG = ['webhooks'];
const authProblems = [commonProblems.UNAUTHORIZED, offchainProblems.KEY_OWNER_CHANGED];

/** Webhook subscriptions of API keys and their deliveries, and the ingestion of the other services' events. */
export function webhookRoutes(ctx: OffchainContext): RouteDefinition[] {
  return [...subscriptionRoutes(ctx), eventIngestRoute(ctx)];
}

function subscriptionRoutes(ctx: OffchainContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/webhooks',
      operationId: 'createWebhook',
      budget: { bodyBytes: 16 * 1024, answerBytes: 16 * 1024, timeMs: 10_000 },
      security: 'apiKey',
      summary: 'Subscribe a URL to events',
      description:
        'The webhook belongs to the API key (`x-auth-token`) and receives the chosen events of the parent names ' +
        'the key may manage (as long as the key lives): `subname.created`, `subname.updated`, `subname.deleted` ' +
        '(data: the record), `image.pending`, `image.confirmed`, `image.discarded`, `image.deleted` (metadata-svc; ' +
        'data: network, name, kind, url, uploader, contentType, size, uploadedAt), `mint.signed` (mint-svc; data: ' +
        'the signed mint parameters and network). The `url` must be https to a public host (names are resolved; ' +
        'loopback, private and link-local addresses are refused) unless its origin is in WEBHOOK_ALLOWED_ORIGINS ' +
        '(development). At most 20 webhooks per key. The `secret` (`whsec_…`) is shown only in this answer.\n\n' +
        'Deliveries follow Standard Webhooks: POST with `webhook-id` (the event id, the same for every attempt), ' +
        '`webhook-timestamp` (Unix seconds of the attempt) and `webhook-signature` (`v1,` + base64 ' +
        'HMAC-SHA256 of `{id}.{timestamp}.{body}` keyed by the base64-decoded secret after `whsec_`), body ' +
        '`{ type, timestamp, data }`. Any 2xx within WEBHOOK_TIMEOUT_MS is success; anything else (3xx included: ' +
        'redirects are not followed) is retried with exponential backoff and jitter — the first retry within ' +
        'WEBHOOK_RETRY_BASE_MS (30 s), then twice as long each time up to an hour — until WEBHOOK_RETRY_WINDOW_MS ' +
        '(24 h) after the event, then the delivery is `failed`. Delivery is at least once: deduplicate by ' +
        '`webhook-id`. Events are not ordered.',
      tags: TAG,
      body: createWebhookRequest,
      before: [requireApiKey(ctx)],
      responses: { 201: { description: 'Created; the secret is shown once.', schema: createdWebhookSchema } },
      problems: [
        commonProblems.INVALID_INPUT,
        offchainProblems.INVALID_WEBHOOK_URL,
        offchainProblems.WEBHOOK_LIMIT_REACHED,
        ...authProblems,
      ],
      handler: async ({ body }, req, res) => {
        res.status(201);
        return createWebhook(ctx, verifiedApiKey.of(req), body);
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/webhooks',
      operationId: 'listWebhooks',
      budget: { bodyBytes: 0, answerBytes: 256 * 1024, timeMs: 10_000 },
      security: 'apiKey',
      summary: "List the key's webhooks",
      description: 'Oldest first; secrets are never shown again.',
      tags: TAG,
      before: [requireApiKey(ctx)],
      responses: { 200: { description: 'The webhooks.', schema: webhookListResponse } },
      problems: authProblems,
      handler: async (_input, req) => ({ items: await webhooksOf(ctx, verifiedApiKey.of(req)) }),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/v1/webhooks/:id',
      operationId: 'deleteWebhook',
      budget: { bodyBytes: 0, answerBytes: 1024, timeMs: 10_000 },
      security: 'apiKey',
      summary: 'Delete a webhook',
      description: 'Its pending deliveries are dropped. 404 for a webhook of another key.',
      tags: TAG,
      params: webhookIdParams,
      before: [requireApiKey(ctx)],
      responses: { 204: { description: 'Deleted.' } },
      problems: [commonProblems.INVALID_INPUT, offchainProblems.WEBHOOK_NOT_FOUND, ...authProblems],
      handler: async ({ params }, req, res) => {
        await removeWebhook(ctx, verifiedApiKey.of(req), params.id);
        res.status(204).end();
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/webhooks/:id/deliveries',
      operationId: 'listWebhookDeliveries',
      budget: { bodyBytes: 0, answerBytes: 1024 * 1024, timeMs: 10_000 },
      security: 'apiKey',
      summary: "A webhook's deliveries and their outcome",
      description:
        'Newest first, `limit` 1 to 100 (default 50), optionally one `status` (`pending`, `delivered`, ' +
        '`failed`); `nextCursor` (null on the last page) is the `cursor` of the next page. Each delivery shows its ' +
        'attempts, the last HTTP status or error and when the next attempt is due. Events and deliveries are kept ' +
        '30 days.',
      tags: TAG,
      params: webhookIdParams,
      query: listDeliveriesQuery,
      before: [requireApiKey(ctx)],
      responses: { 200: { description: 'One page of deliveries.', schema: webhookDeliveriesResponse } },
      problems: [commonProblems.INVALID_INPUT, offchainProblems.WEBHOOK_NOT_FOUND, ...authProblems],
      handler: async ({ params, query }, req) =>
        webhookDeliveries(ctx, verifiedApiKey.of(req), params.id, query),
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/webhooks/:id/deliveries/:deliveryId/redeliver',
      operationId: 'redeliverWebhookDelivery',
      budget: { bodyBytes: 0, answerBytes: 16 * 1024, timeMs: 10_000 },
      security: 'apiKey',
      summary: 'Deliver an event again',
      description:
        'Makes the delivery due now with a fresh retry window, whatever its state (a delivered one is sent again ' +
        'with the same `webhook-id`). 202: the worker sends it within a second.',
      tags: TAG,
      params: redeliverParams,
      before: [requireApiKey(ctx)],
      responses: { 202: { description: 'Scheduled.', schema: webhookDeliverySchema } },
      problems: [commonProblems.INVALID_INPUT, offchainProblems.WEBHOOK_NOT_FOUND, ...authProblems],
      handler: async ({ params }, req, res) => {
        res.status(202);
        return redeliver(ctx, verifiedApiKey.of(req), params.id, params.deliveryId);
      },
    }),
  ];
}

/** 401 unless `authorization: Bearer <token>` carries the ingest token (compared in constant time). */
function requireIngestToken(token: string | undefined): RequestHandler {
  const tokenHash = token === undefined ? undefined : hashApiKey(token);
  return (req, _res, next) => {
    if (tokenHash === undefined) {
      throw new ProblemError(
        offchainProblems.EVENTS_INGEST_NOT_CONFIGURED,
        'EVENTS_INGEST_TOKEN is not set.',
      );
    }
    const presented = /^Bearer (.+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    if (!apiKeyMatches(presented, tokenHash)) {
      throw new ProblemError(
        commonProblems.UNAUTHORIZED,
        'Send the ingest token as `authorization: Bearer …`.',
      );
    }
    next();
  };
}

function eventIngestRoute(ctx: OffchainContext): RouteDefinition {
  return defineRoute({
    method: 'post',
    path: '/internal/v1/events',
    operationId: 'ingestEvents',
    budget: { bodyBytes: 1024 * 1024, answerBytes: 4 * 1024, timeMs: 30_000 },
    security: 'ingestToken',
    summary: 'Ingest events of metadata-svc and mint-svc (internal)',
    description:
      'How the services that do not own the webhooks emit events without reading each other’s tables: ' +
      'metadata-svc and mint-svc write each event to their own outbox table in the transaction of their ' +
      'change, and a relay worker posts the outbox here in batches of up to 100 (at least once: an id seen ' +
      'before is ignored), authenticated with the shared EVENTS_INGEST_TOKEN as a bearer token. Each event is ' +
      'stored, with a delivery per matching webhook, in one statement. Not for API clients; keep the path ' +
      'off the public ingress.',
    tags: ['internal'],
    body: ingestEventsRequest,
    before: [requireIngestToken(ctx.config.EVENTS_INGEST_TOKEN)],
    responses: { 202: { description: 'Accepted.', schema: ingestEventsResponse } },
    problems: [
      commonProblems.INVALID_INPUT,
      commonProblems.UNAUTHORIZED,
      offchainProblems.EVENTS_INGEST_NOT_CONFIGURED,
    ],
    handler: async ({ body }, _req, res) => {
      res.status(202);
      return ingestEvents(ctx, body.events);
    },
  });
}
