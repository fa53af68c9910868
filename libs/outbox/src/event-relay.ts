import type { Kysely } from 'kysely';
import { z } from 'zod';
import { createOffchainClient } from '@nrp/client';
import {
  nonNegativeInt,
  positiveInt,
  startPeriodic,
  type PeriodicLogger,
  type PeriodicTask,
} from '@nrp/server';

import { relayOutbox } from './relay-outbox';

/** The environment of a producing service's relay (with OFFCHAIN_URL, which the service already has). */
export const eventRelayEnvSchema = z.object({
  /** Bearer token of offchain-svc's POST /internal/v1/events; unset: no events are written or relayed. */
  EVENTS_INGEST_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
  /** How often the outbox is relayed (0 disables the relay in this replica; events wait in the outbox). */
  EVENTS_RELAY_INTERVAL_MS: nonNegativeInt.default(1000),
  /** A relay request without an answer within this long failed (the batch is retried). */
  EVENTS_RELAY_TIMEOUT_MS: positiveInt.default(10_000),
});

export type EventRelayEnv = z.output<typeof eventRelayEnvSchema>;

/** Whether the service relays events: it knows offchain-svc and the ingest token. */
export function eventRelayEnabled(env: EventRelayEnv, offchainUrl: string | undefined): boolean {
  return offchainUrl !== undefined && env.EVENTS_INGEST_TOKEN !== undefined;
}

/** Relays `table` to offchain-svc's ingest endpoint every EVENTS_RELAY_INTERVAL_MS (the shared periodic loop). */
export function startEventRelay<DB>(
  db: Kysely<DB>,
  table: string,
  env: EventRelayEnv,
  offchainUrl: string | undefined,
  logger: PeriodicLogger,
): PeriodicTask {
  const token = env.EVENTS_INGEST_TOKEN;
  if (offchainUrl === undefined || token === undefined) return { stop: async () => undefined };
  const client = createOffchainClient({
    baseUrl: offchainUrl,
    fetch: (input, init) =>
      fetch(input, { ...init, signal: AbortSignal.timeout(env.EVENTS_RELAY_TIMEOUT_MS) }),
  });
  return startPeriodic(
    'event-relay',
    env.EVENTS_RELAY_INTERVAL_MS,
    () => relayOutbox(db, table, (events) => client.ingestEvents(events, token)),
    logger,
  );
}
