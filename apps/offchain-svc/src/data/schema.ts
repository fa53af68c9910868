import type { ColumnType, Generated } from 'kysely';
import type { NonceRow } from '@nrp/auth';

export interface SubnamesTable {
  id: Generated<string>;
  full_name: string;
  parent_name: string;
  label: string;
  namehash: string;
  owner: string | null;
  texts: ColumnType<Record<string, string>, string, string>;
  addresses: ColumnType<Record<string, string>, string, string>;
  metadata: ColumnType<Record<string, string>, string, string>;
  contenthash: string | null;
  ttl: number | null;
  created_at: ColumnType<Date, never, never>;
  updated_at: ColumnType<Date, never, string>;
}

export interface ApiKeysTable {
  id: Generated<string>;
  key_hash: string;
  parents: string[];
  note: string | null;
  created_at: ColumnType<Date, never, never>;
  revoked_at: ColumnType<Date | null, never, string | null>;
  /** The signed-in address that issued the key (lower-case); null for operator keys. */
  issuer: ColumnType<string | null, string | null | undefined, never>;
  network: ColumnType<string | null, string | null | undefined, never>;
  include_descendants: ColumnType<boolean, boolean | undefined, never>;
  last_used_at: ColumnType<Date | null, never, Date>;
}

export interface SessionsTable {
  token_hash: string;
  /** Lower-case 0x address. */
  address: string;
  expires_at: ColumnType<Date, Date, never>;
  created_at: ColumnType<Date, never, never>;
}

export interface WebhooksTable {
  id: Generated<string>;
  api_key_id: string;
  url: string;
  events: string[];
  secret: string;
  created_at: ColumnType<Date, never, never>;
}

export interface EventsTable {
  id: string;
  type: string;
  parent_name: string;
  occurred_at: ColumnType<Date, string, never>;
  data: ColumnType<Record<string, unknown>, string, never>;
  stored_at: ColumnType<Date, never, never>;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface WebhookDeliveriesTable {
  id: Generated<string>;
  webhook_id: string;
  event_id: string;
  status: ColumnType<DeliveryStatus, DeliveryStatus | undefined, DeliveryStatus>;
  attempts: ColumnType<number, never, number>;
  next_attempt_at: ColumnType<Date | null, string | null, string | null>;
  retry_until: ColumnType<Date, string, string>;
  last_attempt_at: ColumnType<Date | null, never, string | null>;
  last_status_code: ColumnType<number | null, never, number | null>;
  last_error: ColumnType<string | null, never, string | null>;
  delivered_at: ColumnType<Date | null, never, string | null>;
  created_at: ColumnType<Date, never, never>;
}

export interface IdempotencyKeysTable {
  api_key_id: string;
  key: string;
  request_hash: string;
  status_code: number;
  response: ColumnType<unknown, string, never>;
  created_at: ColumnType<Date, never, never>;
}

export interface OffchainDatabase {
  offchain_subnames: SubnamesTable;
  offchain_api_keys: ApiKeysTable;
  offchain_webhooks: WebhooksTable;
  offchain_events: EventsTable;
  offchain_webhook_deliveries: WebhookDeliveriesTable;
  offchain_idempotency_keys: IdempotencyKeysTable;
  offchain_sessions: SessionsTable;
  offchain_auth_nonces: NonceRow;
}
