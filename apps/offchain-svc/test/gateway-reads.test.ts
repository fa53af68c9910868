/**
 * The gateway's coalesced cold reads on PostgreSQL, with the service's database reached through a TCP proxy that
 * can hold the database's answers back: a read made slow for real, in flight while a write commits.
 */
import { AbiCoder, Wallet } from 'ethers';
import { sql } from 'kysely';
import request from 'supertest';
import { resolverInterface } from '@nrp/chain';
import { createDatabase } from '@nrp/db';
import { dnsEncode, namehash } from '@nrp/ens';
import {
  createTestDatabase,
  NO_SHARED_POSTGRES,
  requireParts,
  sharedPostgresUrl,
  startTcpProxy,
  startTestService,
  type TcpProxy,
  type TestDatabase,
  type TestService,
} from '@nrp/testkit';
import { configSchema, type Config } from '../src/config';
import type { OffchainContext } from '../src/context';
import type { OffchainDatabaseHandle } from '../src/data/database';
import type { OffchainDatabase } from '../src/data/schema';
import { createService } from '../src/service';
import { applyWrites, toWrite } from '../src/subnames/writes';

const serverUrl = sharedPostgresUrl();
const runs = requireParts(
  'REQUIRE_REPLICA_TESTS',
  'offchain-svc coalesced gateway reads',
  serverUrl ? [] : [NO_SHARED_POSTGRES],
);

const PARENT = 'reads.eth';
const SENDER = '0x' + '0f'.repeat(20);
const coder = AbiCoder.defaultAbiCoder();
/** The statement of a coalesced read, as the driver sends it. */
const READ_STATEMENT = 'full_name = ANY(';

(runs ? describe : describe.skip)('offchain-svc gateway reads shared by concurrent lookups', () => {
  let database: TestDatabase<OffchainDatabase>;
  let proxy: TcpProxy;
  let svc: TestService<Config, OffchainContext>;
  let proxied: OffchainDatabaseHandle;
  let readStatements = 0;

  beforeAll(async () => {
    database = await createTestDatabase<OffchainDatabase>({ url: serverUrl });
    const url = new URL(database.url ?? '');
    proxy = await startTcpProxy({
      host: url.hostname,
      port: Number(url.port || 5432),
      watch: (chunk) => {
        if (chunk.toString('latin1').includes(READ_STATEMENT)) readStatements++;
      },
    });
    url.host = `127.0.0.1:${proxy.port}`;
    proxied = createDatabase<OffchainDatabase>({ url: url.toString(), poolMax: 6 });
    svc = await startTestService({
      createService,
      configSchema,
      env: { GATEWAY_SIGNER_KEY: Wallet.createRandom().privateKey, ANSWER_CACHE_SECONDS: '0' },
      overrides: { database: proxied },
      handedIn: [proxied],
    });
  });

  afterAll(async () => {
    await svc?.close();
    await proxy?.stop();
    await database?.close();
  });

  /** The service's own write path on a direct connection: resolved once committed and its answers dropped. */
  const write = (label: string, avatar: string) =>
    svc.context.events.transaction(database.db, (trx) =>
      applyWrites(trx, svc.context.events, [
        toWrite({ parentName: PARENT, label, texts: [{ key: 'avatar', value: avatar }] }),
      ]),
    );

  /**
   * Holds the database's answers back, with connections open for the reads to come: a connection opened while
   * answers are held would never finish its handshake.
   */
  async function holdAnswers(): Promise<void> {
    await Promise.all([0, 1, 2].map(() => sql`SELECT pg_sleep(0.05)`.execute(proxied.db)));
    proxy.setMode('hold-responses');
  }

  async function avatarOf(name: string): Promise<string> {
    const inner = resolverInterface.encodeFunctionData('text', [namehash(name), 'avatar']);
    const callData = resolverInterface.encodeFunctionData('resolve', [dnsEncode(name), inner]);
    const res = await request(svc.app).get(`/api/v1/gateway/${SENDER}/${callData}.json`).expect(200);
    const [result] = coder.decode(['bytes', 'uint64', 'bytes'], res.body.data as string);
    return resolverInterface.decodeFunctionResult('text', result as string)[0] as string;
  }

  it('a lookup after an acknowledged write never joins a read of the name begun before the write committed', async () => {
    const name = `raced.${PARENT}`;
    await write('raced', 'one');
    await holdAnswers();
    const before = avatarOf(name);
    let after: Promise<string> | undefined;
    try {
      // The database answered the first read (the record before the write); the service has not heard of it yet.
      await proxy.waitForHeld(/"avatar": "one"/);
      await write('raced', 'two');
      after = avatarOf(name);
      // The second lookup read for itself: had it joined the read in flight, no query would bring "two".
      await proxy.waitForHeld(/"avatar": "two"/, 5000);
    } finally {
      proxy.releaseHeld();
    }
    expect(await before).toBe('one');
    expect(await after).toBe('two');
  });

  it('lookups in flight together share reads: one query for the names asked for in one turn', async () => {
    await write('ann', 'a');
    await write('bob', 'b');
    const names = [`ann.${PARENT}`, `bob.${PARENT}`, `nobody.${PARENT}`];
    readStatements = 0;
    const reads = names.flatMap((name) => [0, 1].map(() => svc.context.gatewayReads.read(name)));
    const found = await Promise.all(reads);
    expect(found.map((records) => records?.texts.avatar)).toEqual(['a', 'a', 'b', 'b', undefined, undefined]);
    expect(readStatements).toBe(1);
    // Through HTTP too: the answers of concurrent lookups are each their name's.
    expect(await Promise.all(names.map(avatarOf))).toEqual(['a', 'b', '']);
  });

  it('a failed read fails every lookup that waited on it; the next lookup reads again', async () => {
    const name = `ann.${PARENT}`;
    await holdAnswers();
    const failing = [0, 1].map(() =>
      svc.context.gatewayReads.read(name).then(
        () => 'answered',
        () => 'failed',
      ),
    );
    try {
      await proxy.waitForHeld(/"avatar": "a"/);
    } finally {
      proxy.dropConnections();
      proxy.setMode('forward');
    }
    expect(await Promise.all(failing)).toEqual(['failed', 'failed']);
    expect((await svc.context.gatewayReads.read(name))?.texts.avatar).toBe('a');
  });
});
