import { sql, type Kysely, type Migration } from 'kysely';
import { nonceMigration } from '@nrp/auth';
import { outboxMigration } from '@nrp/outbox';
import { EVENT_OUTBOX_TABLE, NONCE_TABLE } from './schema';

const createImages: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('images')
      .addColumn('id', 'text', (col) => col.primaryKey())
      .addColumn('network', 'text', (col) => col.notNull())
      .addColumn('name', 'text', (col) => col.notNull())
      .addColumn('node', 'text', (col) => col.notNull())
      .addColumn('kind', 'text', (col) => col.notNull().check(sql`kind in ('avatar', 'header')`))
      .addColumn('uploader', 'text', (col) => col.notNull())
      .addColumn('status', 'text', (col) => col.notNull().check(sql`status in ('pending', 'confirmed')`))
      .addColumn('blob_key', 'text', (col) => col.notNull().unique())
      .addColumn('content_type', 'text', (col) => col.notNull())
      .addColumn('size', 'integer', (col) => col.notNull())
      .addColumn('etag', 'text', (col) => col.notNull())
      .addColumn('uploaded_at', 'timestamptz', (col) => col.notNull())
      .addColumn('pending_until', 'timestamptz')
      .execute();
    // At most one visible image per name and kind, and one pending upload per uploader.
    await sql`create unique index images_confirmed_uq on images (network, node, kind) where status = 'confirmed'`.execute(
      db,
    );
    await sql`create unique index images_pending_uq on images (network, node, kind, uploader) where status = 'pending'`.execute(
      db,
    );
    await sql`create index images_pending_until_idx on images (pending_until) where status = 'pending'`.execute(
      db,
    );
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('images').execute();
  },
};

/** Counting an uploader's pending uploads (the per-uploader limit) without scanning every pending row. */
const pendingByUploader: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`create index images_pending_uploader_idx on images (uploader) where status = 'pending'`.execute(
      db,
    );
  },
  async down(db: Kysely<unknown>) {
    await sql`drop index images_pending_uploader_idx`.execute(db);
  },
};

/** Rows written before the ETag was stored quoted, as served. */
const quotedEtags: Migration = {
  async up(db: Kysely<unknown>) {
    await sql`update images set etag = '"' || etag || '"' where etag not like '"%'`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await sql`update images set etag = trim(both '"' from etag)`.execute(db);
  },
};

export const migrations: Record<string, Migration> = {
  '0001_images': createImages,
  '0002_nonces': nonceMigration(NONCE_TABLE),
  '0003_event_outbox': outboxMigration(EVENT_OUTBOX_TABLE),
  '0004_pending_by_uploader': pendingByUploader,
  '0005_quoted_etags': quotedEtags,
};

export const MIGRATION_TABLE = 'metadata_migrations';
