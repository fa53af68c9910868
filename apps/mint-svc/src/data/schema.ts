import { sql, type ColumnType, type Kysely, type Migration } from 'kysely';
import { nonceMigration, type NonceRow } from '@nrp/auth';
import { outboxMigration, type OutboxRow } from '@nrp/outbox';

export const NONCE_TABLE = 'mint_auth_nonces';
export const EVENT_OUTBOX_TABLE = 'mint_event_outbox';

export interface ListingRow {
  network: string;
  parent_name: string;
  parent_node: string;
  /** ListingSettings as JSON (wei amounts as decimal strings). */
  settings: ColumnType<unknown, string, string>;
  listed_by: string | null;
  source: 'api' | 'file';
  created_at: ColumnType<Date, Date | undefined, never>;
  updated_at: ColumnType<Date, Date | undefined, Date>;
}

export interface VerifiedMinterRow {
  network: string;
  /** Lower-case 0x address. */
  address: string;
  verified_at: ColumnType<Date, Date, Date>;
  expires_at: ColumnType<Date, Date, Date>;
}

/** A name minted through our controller, as it is now (the latest of its changes). */
export interface NameRow {
  network: string;
  /** Namehash, 0x-hex. */
  node: string;
  name: string;
  parent_name: string;
  label: string;
  /** Checksummed holder: the NameWrapper holder when wrapped, else the registry owner. */
  owner: string;
  wrapped: boolean;
  /** NameWrapper expiry (Unix seconds) when wrapped; int8, read as text. */
  expiry: ColumnType<string | null, string | null, string | null>;
  minted_at: ColumnType<Date, Date, never>;
  tx_hash: string;
  minted_block: number;
  /** Block of the latest change applied; a rollback past it recomputes the row from mint_name_changes. */
  updated_block: number;
}

/** Every state of a minted name (its mint and each change of holder or expiry), to undo a reorganised block. */
export interface NameChangeRow {
  network: string;
  node: string;
  block_number: number;
  log_index: number;
  owner: string;
  wrapped: boolean;
  expiry: ColumnType<string | null, string | null, never>;
}

/** The end block (and its hash) of each indexed batch; the highest is the network's cursor. */
export interface IndexCheckpointRow {
  network: string;
  block_number: number;
  block_hash: string;
}

/** Which replica indexes a network, until when. */
export interface IndexLeaseRow {
  network: string;
  holder: string;
  expires_at: Date;
}

export interface MintDatabase {
  mint_names: NameRow;
  mint_name_changes: NameChangeRow;
  mint_index_checkpoints: IndexCheckpointRow;
  mint_index_leases: IndexLeaseRow;
  mint_listings: ListingRow;
  mint_verified_minters: VerifiedMinterRow;
  mint_auth_nonces: NonceRow;
  mint_event_outbox: OutboxRow;
}

export const migrations: Record<string, Migration> = {
  '0001_listings': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('mint_listings')
        .addColumn('network', 'text', (c) => c.notNull())
        .addColumn('parent_name', 'text', (c) => c.notNull())
        .addColumn('parent_node', 'text', (c) => c.notNull())
        .addColumn('settings', 'jsonb', (c) => c.notNull())
        .addColumn('listed_by', 'text')
        .addColumn('source', 'text', (c) => c.notNull().check(sql`source in ('api', 'file')`))
        .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
        .addPrimaryKeyConstraint('mint_listings_pk', ['network', 'parent_name'])
        .execute();
      await db.schema
        .createTable('mint_verified_minters')
        .addColumn('network', 'text', (c) => c.notNull())
        .addColumn('address', 'text', (c) => c.notNull())
        .addColumn('verified_at', 'timestamptz', (c) => c.notNull())
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .addPrimaryKeyConstraint('mint_verified_minters_pk', ['network', 'address'])
        .execute();
    },
  },
  '0002_auth_nonces': nonceMigration(NONCE_TABLE),
  '0003_event_outbox': outboxMigration(EVENT_OUTBOX_TABLE),
  '0004_names_index': {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable('mint_names')
        .addColumn('network', 'text', (c) => c.notNull())
        .addColumn('node', 'text', (c) => c.notNull())
        .addColumn('name', 'text', (c) => c.notNull())
        .addColumn('parent_name', 'text', (c) => c.notNull())
        .addColumn('label', 'text', (c) => c.notNull())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('wrapped', 'boolean', (c) => c.notNull())
        .addColumn('expiry', 'bigint')
        .addColumn('minted_at', 'timestamptz', (c) => c.notNull())
        .addColumn('tx_hash', 'text', (c) => c.notNull())
        .addColumn('minted_block', 'integer', (c) => c.notNull())
        .addColumn('updated_block', 'integer', (c) => c.notNull())
        .addPrimaryKeyConstraint('mint_names_pk', ['network', 'node'])
        .execute();
      // Keyset pages in name order: all names, by holder, by parent.
      await sql`CREATE UNIQUE INDEX mint_names_by_name ON mint_names (network, name COLLATE "C")`.execute(db);
      await sql`CREATE INDEX mint_names_by_owner ON mint_names (network, owner, name COLLATE "C")`.execute(
        db,
      );
      await sql`CREATE INDEX mint_names_by_parent ON mint_names (network, parent_name, name COLLATE "C")`.execute(
        db,
      );
      await sql`CREATE INDEX mint_names_by_update ON mint_names (network, updated_block)`.execute(db);
      await db.schema
        .createTable('mint_name_changes')
        .addColumn('network', 'text', (c) => c.notNull())
        .addColumn('node', 'text', (c) => c.notNull())
        .addColumn('block_number', 'integer', (c) => c.notNull())
        .addColumn('log_index', 'integer', (c) => c.notNull())
        .addColumn('owner', 'text', (c) => c.notNull())
        .addColumn('wrapped', 'boolean', (c) => c.notNull())
        .addColumn('expiry', 'bigint')
        .addPrimaryKeyConstraint('mint_name_changes_pk', ['network', 'node', 'block_number', 'log_index'])
        .execute();
      await sql`CREATE INDEX mint_name_changes_by_block ON mint_name_changes (network, block_number)`.execute(
        db,
      );
      await db.schema
        .createTable('mint_index_checkpoints')
        .addColumn('network', 'text', (c) => c.notNull())
        .addColumn('block_number', 'integer', (c) => c.notNull())
        .addColumn('block_hash', 'text', (c) => c.notNull())
        .addPrimaryKeyConstraint('mint_index_checkpoints_pk', ['network', 'block_number'])
        .execute();
      await db.schema
        .createTable('mint_index_leases')
        .addColumn('network', 'text', (c) => c.primaryKey())
        .addColumn('holder', 'text', (c) => c.notNull())
        .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
        .execute();
    },
  },
};
