import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import request from 'supertest';
import { sql } from 'kysely';
import {
  accountAt,
  approveController,
  createTestDatabase,
  mintArgs,
  NO_SHARED_POSTGRES,
  requireParts,
  sendMint,
  type ServiceProcess,
  sharedPostgresUrl,
  startServiceProcess,
  startTcpProxy,
  type TcpProxy,
  type TestDatabase,
  walletAt,
} from '@nrp/testkit';
import { until } from '@nrp/testkit/src/until';
import type { MintDatabase } from '../src/data/schema';
import { EVENT_OUTBOX_TABLE } from '../src/data/schema';
import { listDirect, type MintService, serviceEnv, startMintService } from './helpers';

// The indexer runs as its own process (so SIGKILL is a real crash) on a PostgreSQL that it and its successors share.
const databaseUrl = sharedPostgresUrl();
const runs = requireParts(
  'REQUIRE_REPLICA_TESTS',
  'the mint-svc names index crash test',
  databaseUrl ? [] : [NO_SHARED_POSTGRES],
);
const crashIt = runs ? it : it.skip;
const ENTRY = 'apps/mint-svc/src/main.ts';
/** The service's tables live in its DATABASE_SCHEMA (default `mint`). */
const SCHEMA = 'mint';
const LABELS = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5'];

let env: MintService;
let db: TestDatabase<MintDatabase>;
let pgProxy: TcpProxy;
const started: ServiceProcess[] = [];
let namesInserted = 0;
let onThirdInsert: () => void = () => undefined;
/** The operator's listing file: the processes know crash.eth's name from it (their database starts empty). */
const listingsDir = mkdtempSync(path.join(tmpdir(), 'names-index-crash-'));
const listingsFile = path.join(listingsDir, 'listings.json');

beforeAll(async () => {
  if (!runs || !databaseUrl) return;
  // The in-process service of the helpers is not the one under test: it does not index.
  env = await startMintService({ INDEX_INTERVAL_MS: '0' });
  const parentOwner = accountAt(env.chain, 1).address;
  await env.chain.ens.registerEthName('crash', parentOwner);
  await approveController(env, 1, false);
  await listDirect(env, 'crash.eth', { paymentReceiver: parentOwner });
  writeFileSync(
    listingsFile,
    JSON.stringify([
      {
        network: 'sepolia',
        parentName: 'crash.eth',
        listing: { basePriceWei: '0', paymentReceiver: parentOwner },
      },
    ]),
  );
  const minter = accountAt(env.chain, 3).address;
  for (const label of LABELS) {
    const signed = await request(env.app)
      .post('/api/v1/mint')
      .send({ isTestnet: true, parentName: 'crash.eth', label, minterAddress: minter, expiryInYears: 1 })
      .expect(200);
    const total = BigInt(signed.body.content.price) + BigInt(signed.body.content.fee);
    await sendMint(env, walletAt(env, 3), mintArgs(signed.body), total);
  }
  db = await createTestDatabase<MintDatabase>({ url: databaseUrl });
  const target = new URL(db.url ?? '');
  // The first process reaches PostgreSQL through a proxy that sees each statement, to time the crash to one.
  pgProxy = await startTcpProxy({
    host: target.hostname,
    port: Number(target.port || 5432),
    watch: (chunk) => {
      if (!chunk.toString('latin1').includes('insert into "mint_names"')) return;
      namesInserted += 1;
      if (namesInserted === 3) onThirdInsert();
    },
  });
}, 240_000);

afterAll(async () => {
  for (const svc of started) await svc.kill();
  await pgProxy?.stop();
  await db?.close();
  await env?.close();
  rmSync(listingsDir, { recursive: true, force: true });
});

function processEnv(url: string): Record<string, string> {
  return serviceEnv(env.chain, {
    DATABASE_URL: url,
    LOG_LEVEL: 'warn',
    SEPOLIA_MINT_CONTROLLER: env.controllerAddress,
    TREASURY_ADDRESS: env.treasury,
    INDEX_CONFIRMATIONS: '0',
    INDEX_INTERVAL_MS: '20',
    // One block per batch: every mint is its own transaction of the index.
    INDEX_BATCH_BLOCKS: '1',
    INDEX_LEASE_MS: '1500',
    OFFCHAIN_URL: 'http://127.0.0.1:9',
    EVENTS_INGEST_TOKEN: 'names-index-crash-token-0123456789abcdef',
    EVENTS_RELAY_INTERVAL_MS: '0',
    LISTINGS_FILE: listingsFile,
  });
}

async function indexedNames(): Promise<string[]> {
  const rows = await db.db
    .withSchema(SCHEMA)
    .selectFrom('mint_names')
    .select('name')
    .orderBy('name')
    .execute();
  return rows.map((r) => r.name);
}

async function mintedEvents(): Promise<string[]> {
  const rows = await db.db
    .withSchema(SCHEMA)
    .selectFrom(EVENT_OUTBOX_TABLE)
    .select('data')
    .where('type', '=', 'name.minted')
    .execute();
  return rows.map((r) => String((r.data as { name: string }).name)).sort();
}

describe('the names index survives kill -9 in the middle of a batch', () => {
  crashIt(
    'a batch cut off before its commit is not there after the crash; the next process indexes it once, with no gap',
    async () => {
      const proxied = new URL(db.url ?? '');
      proxied.hostname = '127.0.0.1';
      proxied.port = String(pgProxy.port);
      const cutOff = new Promise<void>((resolve) => {
        onThirdInsert = () => {
          // The third name's INSERT reached PostgreSQL; nothing after it (its checkpoint, its COMMIT) will.
          pgProxy.setMode('stall');
          resolve();
        };
      });
      const first = await startServiceProcess(ENTRY, processEnv(proxied.toString()));
      started.push(first);
      await cutOff;
      await first.kill();
      pgProxy.dropConnections();

      // PostgreSQL rolled the open batch back: two names, each with its one event, and no third.
      await until(async () => (await indexedNames()).length === 2, 'the two committed batches', 10_000);
      expect(await indexedNames()).toEqual(['c0.crash.eth', 'c1.crash.eth']);
      expect(await mintedEvents()).toEqual(['c0.crash.eth', 'c1.crash.eth']);

      // A successor takes the lease once the dead one's lapses and carries on from the cursor.
      const second = await startServiceProcess(ENTRY, processEnv(db.url ?? ''));
      started.push(second);
      const all = LABELS.map((l) => `${l}.crash.eth`);
      await until(
        async () => JSON.stringify(await indexedNames()) === JSON.stringify(all),
        'every name indexed by the successor',
        60_000,
      );
      expect(await mintedEvents()).toEqual(all);
      const ready = await request(second.url).get('/ready').expect(200);
      expect(ready.body.checks['sepolia-index']).toMatch(/^ok, \d+ blocks behind$/);
    },
    180_000,
  );
});

describe('one indexer per network across processes (a lease in PostgreSQL)', () => {
  async function lease(): Promise<{ holder: string; expiresAt: Date; now: Date } | undefined> {
    const row = await db.db
      .withSchema(SCHEMA)
      .selectFrom('mint_index_leases')
      .select(['holder', 'expires_at', sql<Date>`now()`.as('now')])
      .where('network', '=', 'sepolia')
      .executeTakeFirst();
    return row && { holder: row.holder, expiresAt: new Date(row.expires_at), now: new Date(row.now) };
  }
  /** A holder is `host:pid:uuid`. */
  const pidOf = (holder: string | undefined) => Number(holder?.split(':')[1]);

  async function mint(label: string): Promise<void> {
    const minter = accountAt(env.chain, 3).address;
    const signed = await request(env.app)
      .post('/api/v1/mint')
      .send({ isTestnet: true, parentName: 'crash.eth', label, minterAddress: minter, expiryInYears: 1 })
      .expect(200);
    const total = BigInt(signed.body.content.price) + BigInt(signed.body.content.fee);
    await sendMint(env, walletAt(env, 3), mintArgs(signed.body), total);
  }

  crashIt(
    'two processes on one database: one indexes, the other takes over only once the first is killed and its lease lapsed',
    async () => {
      // The crash test's processes stop gracefully (giving the lease up); two fresh replicas share the database.
      for (const svc of started.splice(0)) await svc.stop();
      const replicas = [
        await startServiceProcess(ENTRY, processEnv(db.url ?? '')),
        await startServiceProcess(ENTRY, processEnv(db.url ?? '')),
      ];
      started.push(...replicas);
      await until(
        async () => {
          const holder = pidOf((await lease())?.holder);
          return replicas.some((r) => r.pid === holder);
        },
        'one replica holds the lease',
        30_000,
      );
      const holderPid = pidOf((await lease())?.holder);
      const [first, second] = replicas[0]?.pid === holderPid ? replicas : [...replicas].reverse();
      if (!first || !second) throw new Error('two replicas expected');

      // Over two lease periods (1.5 s each) and a mint, the lease stays with the first: it renews, the other waits.
      await mint('lease-a');
      const watchUntil = Date.now() + 3_000;
      while (Date.now() < watchUntil) {
        expect(pidOf((await lease())?.holder)).toBe(first.pid);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      await until(
        async () => (await indexedNames()).includes('lease-a.crash.eth'),
        'lease-a indexed',
        30_000,
      );
      // The replica without the lease serves reads and reports the shared index's lag.
      const standby = await request(second.url).get('/ready').expect(200);
      expect(standby.body.checks['sepolia-index']).toMatch(/^ok, \d+ blocks behind$/);

      await first.kill();
      const lapsesAt = (await lease())?.expiresAt;
      if (!lapsesAt) throw new Error('no lease after the kill');
      await mint('lease-b');
      // Until the dead one's lease lapses (database time) nobody takes it; then the second does.
      await until(
        async () => {
          const now = await lease();
          if (now && now.now < lapsesAt) expect(pidOf(now.holder)).toBe(first.pid);
          return pidOf(now?.holder) === second.pid;
        },
        'the second replica takes the lease over',
        30_000,
      );
      await until(
        async () => (await indexedNames()).includes('lease-b.crash.eth'),
        'lease-b indexed',
        30_000,
      );
      const events = await mintedEvents();
      expect(events.filter((n) => n.startsWith('lease-'))).toEqual([
        'lease-a.crash.eth',
        'lease-b.crash.eth',
      ]);
    },
    180_000,
  );
});
