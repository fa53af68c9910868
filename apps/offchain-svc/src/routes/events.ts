import type { RequestHandler } from 'express';
import { apiKeyMatches, hashApiKey } from '@nrp/auth';
import { ingestEventsRequest, ingestEventsResponse } from '@nrp/api';
import { defineRoute, type RouteDefinition } from '@nrp/server';
import { commonProblems, ProblemError } from '@nrp/validation';
import { ingestEvents } from '../events';
import { offchainProblems } from '../problems';
import type { OffchainContext } from '../context';

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

export function eventRoutes(ctx: OffchainContext): RouteDefinition[] {
  const token = ctx.config.EVENTS_INGEST_TOKEN;
  return [
    defineRoute({
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
      before: [requireIngestToken(token)],
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
    }),
  ];
}
