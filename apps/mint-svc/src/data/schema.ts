import type { ColumnType } from 'kysely';
import type { NonceRow } from '@nrp/auth';
import type { OutboxRow } from '@nrp/outbox';

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
