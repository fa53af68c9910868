import type { ColumnType, Selectable } from 'kysely';
import type { NonceRow } from '@nrp/auth';
import type { OutboxRow } from '@nrp/outbox';
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
  /** The strong HTTP ETag (quoted) of the bytes: `contentEtag`. */
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

export type Image = Selectable<ImageRow>;

/** One image slot: a name's avatar or header on one network. */
export interface ImageTarget {
  network: string;
  node: string;
  kind: ImageKind;
}
