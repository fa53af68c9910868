import type { Kysely } from 'kysely';
import type { MintNetwork } from '@nrp/api';
import type { MintDatabase } from './schema';

export interface VerifiedMinterRepository {
  /** Records (or refreshes) that `address` proved control of its key on `network` until `expiresAt`. */
  record(network: MintNetwork, address: string, verifiedAt: Date, expiresAt: Date): Promise<void>;
  isVerified(network: MintNetwork, address: string, now?: Date): Promise<boolean>;
}

export function createVerifiedMinterRepository(db: Kysely<MintDatabase>): VerifiedMinterRepository {
  return {
    async record(network, address, verifiedAt, expiresAt) {
      await db
        .insertInto('mint_verified_minters')
        .values({ network, address: address.toLowerCase(), verified_at: verifiedAt, expires_at: expiresAt })
        .onConflict((oc) =>
          oc.columns(['network', 'address']).doUpdateSet({ verified_at: verifiedAt, expires_at: expiresAt }),
        )
        .execute();
    },

    async isVerified(network, address, now = new Date()) {
      const row = await db
        .selectFrom('mint_verified_minters')
        .select('address')
        .where('network', '=', network)
        .where('address', '=', address.toLowerCase())
        .where('expires_at', '>', now)
        .executeTakeFirst();
      return row !== undefined;
    },
  };
}
