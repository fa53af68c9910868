import { getAddress } from 'ethers';
// A deep import: only the harness, not the whole testkit (chain, servers).
import { startTestServiceOnDatabase, type TestService } from '@nrp/testkit/src/test-service';
import { configSchema, type Config } from '../src/config';
import type { OffchainContext } from '../src/context';
import { issueApiKey } from '../src/keys/api-keys';
import { PGLITE_EXTENSIONS, type OffchainDatabaseHandle } from '../src/data/database';
import { createService } from '../src/service';

export interface OffchainService extends TestService<Config, OffchainContext> {
  db: OffchainDatabaseHandle;
  /** Issues a real key through the same code the operator CLI uses. */
  keyFor(...parents: string[]): Promise<string>;
}

/** The service on its own database (a fresh database on DATABASE_URL's server, or in-memory PGlite). */
export async function startOffchainService(
  env: Record<string, string> = {},
  clock: { now?: () => Date } = {},
): Promise<OffchainService> {
  const service = await startTestServiceOnDatabase({
    createService,
    configSchema,
    env: { RATE_LIMIT_PER_MINUTE: '100000', ...env },
    overrides: clock,
    database: { poolMax: 20, pgliteExtensions: PGLITE_EXTENSIONS },
  });
  const { db } = service;
  return { ...service, keyFor: async (...parents) => (await issueApiKey(db, parents)).key };
}

export const ALICE = getAddress('0x70997970c51812dc3a010c7d01b50e554d6fb8db');
export const BOB = getAddress('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc');
export const IPFS = 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi';
export const BTC = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
