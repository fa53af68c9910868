import { sql, type Kysely, type Migration } from 'kysely';
import { nonceMigration } from '@nrp/auth';
import { outboxMigration } from '@nrp/outbox';
import { EVENT_OUTBOX_TABLE, NONCE_TABLE } from './schema';

export const MIGRATION_TABLE = 'mint_migrations';

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
