import { readFile } from 'node:fs/promises';
import { listingFileSchema } from '@nrp/api';
import { namehash } from '@nrp/ens';
import { ConfigError } from '@nrp/server';
import type { Kysely } from 'kysely';
import { upsertListing } from '../data/listings';
import type { MintDatabase } from '../data/schema';

/**
 * Upserts the listings of an operator's JSON file (an array of `{ network, parentName, listing }`) with source
 * `file`. Each entry must name its `paymentReceiver` (there is no signer to default to). Returns how many.
 */
export async function loadListingFile(
  file: string,
  db: Kysely<MintDatabase>,
  now = new Date(),
): Promise<number> {
  let raw: unknown;
  try {
    raw = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    throw new ConfigError(
      `LISTINGS_FILE: cannot read ${file} as JSON: ${err instanceof Error ? err.message : String(err)}`,
    );
  }
  const parsed = listingFileSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ConfigError(
      `LISTINGS_FILE: ${file}: [${issue?.path.join('.') ?? ''}] ${issue?.message ?? 'invalid'}`,
    );
  }
  for (const [index, entry] of parsed.data.entries()) {
    const paymentReceiver = entry.listing.paymentReceiver;
    if (!paymentReceiver)
      throw new ConfigError(`LISTINGS_FILE: ${file}: [${index}.listing.paymentReceiver] is required`);
    await upsertListing(
      db,
      {
        network: entry.network,
        parentName: entry.parentName,
        parentNode: namehash(entry.parentName),
        settings: { ...entry.listing, paymentReceiver },
        listedBy: null,
        source: 'file',
      },
      now,
    );
  }
  return parsed.data.length;
}
