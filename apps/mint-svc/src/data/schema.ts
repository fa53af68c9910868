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

export interface MintDatabase {
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
};
