/**
 * The one service skeleton. On disk: `apps/<service>/src` holds at most `main`, `config`, `context`, `service` and
 * `problems` loose; everything else lives in capability folders (each routes.ts → use case → `data/`), with no
 * `routes/` folder beside them. In code (libs/server `ServiceFactory`): every service's `createService(config,
 * logger, overrides?)` returns `{ app, version, onShutdown, context }` with its config and logger on the context, and
 * leaves what the caller handed in open when it shuts down; the testkit harness closes that afterwards.
 */
import { mkdtempSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BaseConfig, ServiceContext } from '@nrp/server';
import { createTestClock, createTestDatabase, startTestService, type TestService } from '@nrp/testkit';
import * as metadataConfig from '../apps/metadata-svc/src/config';
import type { MetadataDb } from '../apps/metadata-svc/src/data/schema';
import * as metadata from '../apps/metadata-svc/src/service';
import * as mintConfig from '../apps/mint-svc/src/config';
import type { MintDatabase } from '../apps/mint-svc/src/data/schema';
import * as mint from '../apps/mint-svc/src/service';
import * as offchainConfig from '../apps/offchain-svc/src/config';
import { PGLITE_EXTENSIONS } from '../apps/offchain-svc/src/data/database';
import type { OffchainDatabase } from '../apps/offchain-svc/src/data/schema';
import * as offchain from '../apps/offchain-svc/src/service';
import * as resolverConfig from '../apps/resolver-svc/src/config';
import * as resolver from '../apps/resolver-svc/src/service';

const SERVICES = ['metadata-svc', 'mint-svc', 'offchain-svc', 'resolver-svc'];
const LOOSE_FILES = ['main.ts', 'config.ts', 'context.ts', 'service.ts', 'problems.ts'];

describe.each(SERVICES)('%s/src layout', (name) => {
  const entries = readdirSync(join(__dirname, '..', 'apps', name, 'src'), { withFileTypes: true });

  it(`has no loose files but ${LOOSE_FILES.join(', ')}`, () => {
    const loose = entries.filter((entry) => !entry.isDirectory()).map((entry) => entry.name);
    expect(loose.filter((file) => !LOOSE_FILES.includes(file))).toEqual([]);
  });

  it('keeps routes in their capability folders (no src/routes/)', () => {
    expect(entries.filter((entry) => entry.isDirectory()).map((entry) => entry.name)).not.toContain('routes');
  });
});

// Closed ports: nothing here reaches a node.
const noChain = { MAINNET_RPC_URL: 'http://127.0.0.1:9', SEPOLIA_RPC_URL: 'http://127.0.0.1:9' };

interface Started {
  service: TestService<BaseConfig, ServiceContext>;
  /** Pings the database the test handed in. */
  ping(): Promise<unknown>;
}

const withDatabase: Record<string, () => Promise<Started>> = {
  'metadata-svc': async () => {
    const database = await createTestDatabase<MetadataDb>();
    const service = await startTestService({
      createService: metadata.createService,
      configSchema: metadataConfig.configSchema,
      env: {
        ...noChain,
        BLOB_DIR: mkdtempSync(join(tmpdir(), 'skeleton-')),
        PENDING_CHECK_INTERVAL_MS: '0',
        ORPHAN_SWEEP_INTERVAL_MS: '0',
      },
      overrides: { database, now: createTestClock().now },
      handedIn: [database],
    });
    return { service, ping: () => database.ping() };
  },
  'mint-svc': async () => {
    const database = await createTestDatabase<MintDatabase>();
    const service = await startTestService({
      createService: mint.createService,
      configSchema: mintConfig.configSchema,
      env: { ...noChain, SIGNER_PRIVATE_KEY: '0x' + '22'.repeat(32) },
      overrides: { database, now: createTestClock().now },
      handedIn: [database],
    });
    return { service, ping: () => database.ping() };
  },
  'offchain-svc': async () => {
    const database = await createTestDatabase<OffchainDatabase>({ pgliteExtensions: PGLITE_EXTENSIONS });
    const service = await startTestService({
      createService: offchain.createService,
      configSchema: offchainConfig.configSchema,
      overrides: { database },
      handedIn: [database],
    });
    return { service, ping: () => database.ping() };
  },
};

describe.each(Object.keys(withDatabase))('%s createService', (name) => {
  it('answers the instance shape, and a handed-in database outlives the service until the harness closes it', async () => {
    const start = withDatabase[name];
    if (!start) throw new Error(`no start for ${name}`);
    const { service, ping } = await start();
    expect(service.instance.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(service.context.config).toBe(service.config);
    expect(service.context.logger).toBeDefined();

    for (const step of service.instance.onShutdown) await step();
    await expect(ping()).resolves.not.toThrow();
    await service.close();
    await expect(ping()).rejects.toThrow();
  });
});

describe('resolver-svc createService', () => {
  it('answers the same instance shape (it opens no database)', async () => {
    const service = await startTestService({
      createService: resolver.createService,
      configSchema: resolverConfig.configSchema,
      env: noChain,
    });
    try {
      expect(service.instance.version).toMatch(/^\d+\.\d+\.\d+/);
      expect(service.context.config).toBe(service.config);
      expect(service.context.logger).toBeDefined();
    } finally {
      await service.close();
    }
  });
});
