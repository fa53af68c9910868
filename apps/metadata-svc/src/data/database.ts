import { sql, type ColumnType, type Kysely, type Migration } from 'kysely';
import { nonceMigration, type NonceRow } from '@nrp/auth';
import { outboxMigration, type OutboxRow } from '@nrp/outbox';
import type { ImageKind } from '@nrp/api';

export type { ImageKind };
export type ImageStatus = 'pending' | 'confirmed';

export interface ImageRow {
  id: string;
  network: string;
  /** Normalised name. */
  name: string;
  node: string;
  kind: ImageKind;
  /** Lower-case address of the signer who uploaded it. */
  uploader: string;
  status: ImageStatus;
  /** Key of the bytes in the blob store; unique, never reused. */
  blob_key: string;
  content_type: string;
  size: number;
  /** Content hash of the bytes, used as the HTTP ETag. */
  etag: string;
  uploaded_at: ColumnType<Date, Date, Date>;
  /** Pending rows only: when the upload is discarded unless confirmed. */
  pending_until: ColumnType<Date | null, Date | null, Date | null>;
}

export interface MetadataDb {
  images: ImageRow;
  metadata_nonces: NonceRow;
  metadata_event_outbox: OutboxRow;
}

export const NONCE_TABLE = 'metadata_nonces';
export const EVENT_OUTBOX_TABLE = 'metadata_event_outbox';

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

export const migrations: Record<string, Migration> = {
  '0001_images': createImages,
  '0002_nonces': nonceMigration(NONCE_TABLE),
  '0003_event_outbox': outboxMigration(EVENT_OUTBOX_TABLE),
  '0004_pending_by_uploader': pendingByUploader,
};

export const MIGRATION_TABLE = 'metadata_migrations';
