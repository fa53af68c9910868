import { getAddress } from 'ethers';
import type { Express } from 'express';
import type { RouteDefinition } from '@nrp/server';
// Deep imports: only the database and harness helpers, not the whole testkit (chain, servers).
import { createTestDatabase } from '@nrp/testkit/src/database';
import { startTestService as startHarness } from '@nrp/testkit/src/test-service';
import { configSchema } from '../src/config';
import { issueApiKey } from '../src/keys/api-keys';
import { PGLITE_EXTENSIONS, type OffchainDatabaseHandle } from '../src/data/database';
import type { OffchainDatabase } from '../src/data/schema';
import { createService } from '../src/service';

export interface TestService {
  app: Express;
  routes: RouteDefinition[];
  db: OffchainDatabaseHandle;
  /** Issues a real key through the same code the operator CLI uses. */
  keyFor(...parents: string[]): Promise<string>;
  close(): Promise<void>;
}

/** The service on its own database (a fresh database on DATABASE_URL's server, or in-memory PGlite). */
export async function startTestService(
  env: Record<string, string> = {},
  clock: { now?: () => Date } = {},
): Promise<TestService> {
  const db: OffchainDatabaseHandle = await createTestDatabase<OffchainDatabase>({
    poolMax: 20,
    pgliteExtensions: PGLITE_EXTENSIONS,
  });
  const service = await startHarness({
    createService,
    configSchema,
    env: { RATE_LIMIT_PER_MINUTE: '100000', ...env },
    overrides: { database: db, ...clock },
    handedIn: [db],
  });
  return {
    app: service.app,
    routes: service.routes,
    db,
    keyFor: async (...parents) => (await issueApiKey(db, parents)).key,
    close: service.close,
  };
}

export const ALICE = getAddress('0x70997970c51812dc3a010c7d01b50e554d6fb8db');
export const BOB = getAddress('0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc');
export const IPFS = 'ipfs://bafybeigdyrzt5sfp7udm7hu76uh7y26nf3efuylqabf3oclgtqy55fbzdi';
export const BTC = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
