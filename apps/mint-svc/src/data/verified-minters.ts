import type { Kysely } from 'kysely';
import type { NetworkName } from '@nrp/ens';
import type { MintDatabase } from './schema';

/** Records (or refreshes) that `address` proved control of its key on `network` until `expiresAt`. */
export async function recordVerifiedMinter(
  db: Kysely<MintDatabase>,
  network: NetworkName,
  address: string,
  verifiedAt: Date,
  expiresAt: Date,
): Promise<void> {
  await db
    .insertInto('mint_verified_minters')
    .values({ network, address: address.toLowerCase(), verified_at: verifiedAt, expires_at: expiresAt })
    .onConflict((oc) =>
      oc.columns(['network', 'address']).doUpdateSet({ verified_at: verifiedAt, expires_at: expiresAt }),
    )
    .execute();
}

/** Whether `address` is a verified minter of `network` at `now`. */
export async function isVerifiedMinter(
  db: Kysely<MintDatabase>,
  network: NetworkName,
  address: string,
  now = new Date(),
): Promise<boolean> {
  const row = await db
    .selectFrom('mint_verified_minters')
    .select('address')
    .where('network', '=', network)
    .where('address', '=', address.toLowerCase())
    .where('expires_at', '>', now)
    .executeTakeFirst();
  return row !== undefined;
}
