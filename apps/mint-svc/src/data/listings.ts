import { sql, type Kysely, type Selectable } from 'kysely';
import {
  storedListingSchema,
  type Listing,
  type ListingL2Metadata,
  type ListingSettings,
  type MintNetwork,
} from '@nrp/api';
import { chainIdOf } from '@nrp/ens';
import type { ListingRow, MintDatabase } from './schema';

/** A stored listing: its settings with the payment receiver resolved, and its bookkeeping. */
export interface StoredListing {
  network: MintNetwork;
  parentName: string;
  parentNode: string;
  settings: ListingSettings & { paymentReceiver: string };
  listedBy: string | null;
  source: 'api' | 'file';
  createdAt: Date;
  updatedAt: Date;
}

export interface UpsertListing {
  network: MintNetwork;
  parentName: string;
  parentNode: string;
  settings: ListingSettings & { paymentReceiver: string };
  listedBy: string | null;
  source: 'api' | 'file';
}

function fromRow(row: Selectable<ListingRow>): StoredListing {
  const raw = typeof row.settings === 'string' ? (JSON.parse(row.settings) as unknown) : row.settings;
  const parsed = storedListingSchema.parse(raw);
  const paymentReceiver = parsed.paymentReceiver;
  if (!paymentReceiver) throw new Error(`listing ${row.parent_name} has no payment receiver`);
  return {
    network: row.network as MintNetwork,
    parentName: row.parent_name,
    parentNode: row.parent_node,
    settings: { ...parsed, paymentReceiver },
    listedBy: row.listed_by,
    source: row.source,
    createdAt: new Date(row.created_at),
    updatedAt: new Date(row.updated_at),
  };
}

/** Where an L2 listing's subnames are minted: its registry and controller. */
export interface ListingL2Parent {
  network: ListingL2Metadata['registryNetwork'];
  registry: string;
  mintController: string;
}

/** The listing as the API answers it; `l2` is the parent's registry and controller on an L2, null on an L1. */
export function toListingResponse(listing: StoredListing, l2: ListingL2Parent | null): Listing {
  return {
    network: listing.network,
    type: l2 ? 'L2' : 'L1',
    l2Metadata: l2 && {
      registryNetwork: l2.network,
      chainId: chainIdOf(l2.network),
      registryAddress: l2.registry,
      mintController: l2.mintController,
    },
    parentName: listing.parentName,
    parentNode: listing.parentNode,
    ...listing.settings,
    listedBy: listing.listedBy,
    source: listing.source,
    createdAt: listing.createdAt.toISOString(),
    updatedAt: listing.updatedAt.toISOString(),
  };
}

/** The listing of `parentName` on `network`, if any. */
export async function findListing(
  db: Kysely<MintDatabase>,
  network: MintNetwork,
  parentName: string,
): Promise<StoredListing | undefined> {
  const row = await db
    .selectFrom('mint_listings')
    .selectAll()
    .where('network', '=', network)
    .where('parent_name', '=', parentName)
    .executeTakeFirst();
  return row ? fromRow(row) : undefined;
}

/** Creates or replaces; `created` tells which. */
export async function upsertListing(
  db: Kysely<MintDatabase>,
  listing: UpsertListing,
  now = new Date(),
): Promise<{ listing: StoredListing; created: boolean }> {
  const settings = JSON.stringify(listing.settings);
  // xmax = 0 only for a freshly inserted row: tells insert from update in one statement.
  const row = await db
    .insertInto('mint_listings')
    .values({
      network: listing.network,
      parent_name: listing.parentName,
      parent_node: listing.parentNode,
      settings,
      listed_by: listing.listedBy,
      source: listing.source,
      created_at: now,
      updated_at: now,
    })
    .onConflict((oc) =>
      oc.columns(['network', 'parent_name']).doUpdateSet({
        parent_node: listing.parentNode,
        settings,
        listed_by: listing.listedBy,
        source: listing.source,
        updated_at: now,
      }),
    )
    .returningAll()
    .returning(sql<boolean>`(xmax = 0)`.as('inserted'))
    .executeTakeFirstOrThrow();
  return { listing: fromRow(row), created: row.inserted };
}

/** Whether a listing was removed. */
export async function removeListing(
  db: Kysely<MintDatabase>,
  network: MintNetwork,
  parentName: string,
): Promise<boolean> {
  const result = await db
    .deleteFrom('mint_listings')
    .where('network', '=', network)
    .where('parent_name', '=', parentName)
    .executeTakeFirst();
  return Number(result.numDeletedRows) > 0;
}
