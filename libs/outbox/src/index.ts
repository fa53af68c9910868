export { outboxMigration, type OutboxRow } from './outbox-migration';
export { createEventOutbox, newEvent, type EventOutbox } from './event-outbox';
export { relayOutbox, RELAY_BATCH } from './relay-outbox';
export { eventRelayEnvSchema, eventRelayEnabled, startEventRelay, type EventRelayEnv } from './event-relay';
