import { sql, type Kysely, type Migration } from 'kysely';
import { nonceMigration } from '@nrp/auth';

/** Sign-in nonces of POST /api/v1/auth/nonce. */
export const NONCE_TABLE = 'offchain_auth_nonces';

export const MIGRATION_TABLE = 'offchain_migrations';

/**
 * The service's tables (after 0003): searches are served by parent-scoped indexes — (parent_name, label)
 * INCLUDE (metadata, owner, id) for paging by label and counting, GIN (parent_name, label gin_trgm_ops) for the
 * case-insensitive substring search, GIN (parent_name, metadata jsonb_path_ops) for metadata filters, and
 * (owner, parent_name, label) for owner filters. Needs pg_trgm and btree_gin (PGlite: load both modules). Names
 * use the "C" collation: labels are ordered by code point on every server, and the btree indexes need no locale.
 */
export const migrations: Record<string, Migration> = {
  '0001_subnames': {
    up: async (db: Kysely<unknown>) => {
      // In public, which every DATABASE_SCHEMA's search_path ends with: an extension created in one service schema
      // is invisible from another (IF NOT EXISTS then skips it), and dropping that schema would drop it for all.
      await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm SCHEMA public`.execute(db);
      await sql`
        CREATE TABLE offchain_subnames (
          id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
          full_name text COLLATE "C" NOT NULL,
          parent_name text COLLATE "C" NOT NULL,
          label text COLLATE "C" NOT NULL,
          namehash text NOT NULL,
          owner text,
          texts jsonb NOT NULL DEFAULT '{}',
          addresses jsonb NOT NULL DEFAULT '{}',
          metadata jsonb NOT NULL DEFAULT '{}',
          contenthash text,
          ttl integer,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now(),
          CONSTRAINT offchain_subnames_full_name_key UNIQUE (full_name),
          CONSTRAINT offchain_subnames_namehash_key UNIQUE (namehash),
          CONSTRAINT offchain_subnames_ttl_check CHECK (ttl IS NULL OR ttl >= 0)
        )`.execute(db);
      await sql`CREATE UNIQUE INDEX offchain_subnames_parent_label_idx ON offchain_subnames (parent_name, label)`.execute(
        db,
      );
      await sql`CREATE INDEX offchain_subnames_label_trgm_idx ON offchain_subnames USING gin (label gin_trgm_ops)`.execute(
        db,
      );
      await sql`CREATE INDEX offchain_subnames_metadata_idx ON offchain_subnames USING gin (metadata jsonb_path_ops)`.execute(
        db,
      );
      await sql`CREATE INDEX offchain_subnames_owner_idx ON offchain_subnames (owner, parent_name, label)`.execute(
        db,
      );
    },
  },
  '0002_api_keys': {
    up: async (db: Kysely<unknown>) => {
      await sql`
        CREATE TABLE offchain_api_keys (
          id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
          key_hash text NOT NULL,
          parents text[] NOT NULL,
          note text,
          created_at timestamptz NOT NULL DEFAULT now(),
          revoked_at timestamptz,
          CONSTRAINT offchain_api_keys_key_hash_key UNIQUE (key_hash)
        )`.execute(db);
    },
  },
  '0003_parent_scoped_indexes': {
    // Every search is scoped by parent, so the indexes are too. The (parent_name, label) btree INCLUDEs metadata,
    // owner and id: a page is picked and totalItems counted from the index alone (index-only scans), instead of
    // one table page per candidate row (100x faster at 1M rows for a broad filter); the request schema caps
    // metadata (1 KB as JSON) so that an entry always fits. The trigram and jsonb GIN indexes lead with
    // parent_name (btree_gin), so GIN intersects the parent with the label trigrams or metadata entries.
    up: async (db: Kysely<unknown>) => {
      await sql`CREATE EXTENSION IF NOT EXISTS btree_gin SCHEMA public`.execute(db);
      await sql`DROP INDEX offchain_subnames_parent_label_idx`.execute(db);
      await sql`
        CREATE UNIQUE INDEX offchain_subnames_parent_label_idx
        ON offchain_subnames (parent_name, label) INCLUDE (metadata, owner, id)`.execute(db);
      await sql`DROP INDEX offchain_subnames_label_trgm_idx`.execute(db);
      await sql`
        CREATE INDEX offchain_subnames_label_trgm_idx
        ON offchain_subnames USING gin (parent_name, label gin_trgm_ops)`.execute(db);
      await sql`DROP INDEX offchain_subnames_metadata_idx`.execute(db);
      await sql`
        CREATE INDEX offchain_subnames_metadata_idx
        ON offchain_subnames USING gin (parent_name, metadata jsonb_path_ops)`.execute(db);
    },
  },
  '0004_webhooks_and_idempotency': {
    // Webhooks belong to an API key and see the events of its parents. An event is stored only when some webhook
    // subscribes to it, in the transaction of the change (or of the ingest), together with one delivery per
    // webhook: the deliveries table is the outbox the delivery worker drains. Idempotency keys remember the first
    // answer of a bulk import per API key.
    up: async (db: Kysely<unknown>) => {
      await sql`
        CREATE TABLE offchain_webhooks (
          id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
          api_key_id uuid NOT NULL REFERENCES offchain_api_keys (id) ON DELETE CASCADE,
          url text NOT NULL,
          events text[] NOT NULL,
          secret text NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
      await sql`CREATE INDEX offchain_webhooks_api_key_idx ON offchain_webhooks (api_key_id)`.execute(db);
      await sql`
        CREATE TABLE offchain_events (
          id uuid PRIMARY KEY,
          type text NOT NULL,
          parent_name text COLLATE "C" NOT NULL,
          occurred_at timestamptz NOT NULL,
          data jsonb NOT NULL,
          stored_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
      await sql`CREATE INDEX offchain_events_stored_at_idx ON offchain_events (stored_at)`.execute(db);
      await sql`
        CREATE TABLE offchain_webhook_deliveries (
          id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
          webhook_id uuid NOT NULL REFERENCES offchain_webhooks (id) ON DELETE CASCADE,
          event_id uuid NOT NULL REFERENCES offchain_events (id) ON DELETE CASCADE,
          status text NOT NULL DEFAULT 'pending',
          attempts integer NOT NULL DEFAULT 0,
          next_attempt_at timestamptz,
          retry_until timestamptz NOT NULL,
          last_attempt_at timestamptz,
          last_status_code integer,
          last_error text,
          delivered_at timestamptz,
          created_at timestamptz NOT NULL DEFAULT now(),
          CONSTRAINT offchain_webhook_deliveries_status_check CHECK (status IN ('pending', 'delivered', 'failed')),
          CONSTRAINT offchain_webhook_deliveries_once UNIQUE (webhook_id, event_id)
        )`.execute(db);
      await sql`
        CREATE INDEX offchain_webhook_deliveries_due_idx
        ON offchain_webhook_deliveries (next_attempt_at) WHERE status = 'pending'`.execute(db);
      await sql`
        CREATE INDEX offchain_webhook_deliveries_list_idx
        ON offchain_webhook_deliveries (webhook_id, created_at DESC, id DESC)`.execute(db);
      await sql`CREATE INDEX offchain_webhook_deliveries_event_idx ON offchain_webhook_deliveries (event_id)`.execute(
        db,
      );
      await sql`
        CREATE TABLE offchain_idempotency_keys (
          api_key_id uuid NOT NULL REFERENCES offchain_api_keys (id) ON DELETE CASCADE,
          key text NOT NULL,
          request_hash text NOT NULL,
          status_code integer NOT NULL,
          response jsonb NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (api_key_id, key)
        )`.execute(db);
      await sql`CREATE INDEX offchain_idempotency_keys_created_idx ON offchain_idempotency_keys (created_at)`.execute(
        db,
      );
    },
  },
  '0005_sessions_and_self_serve_keys': {
    // Self-serve keys: an address signed in with EIP-4361 holds a session (only the token's hash is stored, so any
    // replica verifies it) and issues keys for names it controls on chain. Such a key remembers its issuer and
    // network (operator keys have neither), whether it manages every depth below its parent, and when it last
    // authorised a write. Owner-only searches (no parent) page by label from (owner, label, parent_name).
    up: async (db: Kysely<unknown>) => {
      await nonceMigration(NONCE_TABLE).up(db);
      await sql`
        CREATE TABLE offchain_sessions (
          token_hash text PRIMARY KEY,
          address text NOT NULL,
          expires_at timestamptz NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
      await sql`CREATE INDEX offchain_sessions_expires_at_idx ON offchain_sessions (expires_at)`.execute(db);
      await sql`
        ALTER TABLE offchain_api_keys
          ADD COLUMN issuer text,
          ADD COLUMN network text,
          ADD COLUMN include_descendants boolean NOT NULL DEFAULT false,
          ADD COLUMN last_used_at timestamptz,
          ADD CONSTRAINT offchain_api_keys_issued_check CHECK ((issuer IS NULL) = (network IS NULL))`.execute(
        db,
      );
      await sql`
        CREATE INDEX offchain_api_keys_issuer_idx ON offchain_api_keys (issuer, created_at)
        WHERE issuer IS NOT NULL`.execute(db);
      await sql`
        CREATE INDEX offchain_subnames_owner_label_idx
        ON offchain_subnames (owner, label, parent_name) INCLUDE (id)`.execute(db);
    },
  },
  '0006_one_unique_name': {
    // full_name is the one unique key of a subname: its namehash and its (parent_name, label) follow from it. As
    // unique constraints too, two transactions inserting the same new name could meet on one of them rather than on
    // full_name, the conflict target of every insert, and the later one failed with a unique violation (seen with
    // two concurrent bulk imports of the same 50 names) instead of waiting and merging. Plain indexes serve the same
    // lookups and the keyset paging by label.
    up: async (db: Kysely<unknown>) => {
      await sql`ALTER TABLE offchain_subnames DROP CONSTRAINT offchain_subnames_namehash_key`.execute(db);
      await sql`CREATE INDEX offchain_subnames_namehash_idx ON offchain_subnames (namehash)`.execute(db);
      await sql`DROP INDEX offchain_subnames_parent_label_idx`.execute(db);
      await sql`
        CREATE INDEX offchain_subnames_parent_label_idx
        ON offchain_subnames (parent_name, label) INCLUDE (metadata, owner, id)`.execute(db);
    },
  },
};
