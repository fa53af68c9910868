/**
 * PostgreSQL crashing under write traffic, for real: the test's own server (initdb + pg_ctl) is killed with -9
 * while four clients keep sending atomic bulk writes, then started again. What must survive: every answer is a
 * 2xx or a 503 problem+json with Retry-After (never a 500, never a hang), `/ready` fails while it is down, no
 * batch is half-written, and the same service process writes again once the server is back.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'kysely';
import { createDatabase } from '@nrp/db';
import { createLogger, DEPENDENCY_RETRY_AFTER_SECONDS, loadConfig, type ServiceInstance } from '@nrp/server';
import { postgresServerAvailable, startPostgresServer, until, type TestPostgresServer } from '@nrp/testkit';
import { issueApiKey } from '../src/keys/api-keys';
import { configSchema } from '../src/config';
import type { OffchainDatabaseHandle } from '../src/data/database';
import type { OffchainDatabase } from '../src/data/schema';
import { createService } from '../src/service';

/** Each client request gives up after this long; none may come close (the pool gives up after 5 s). */
const REQUEST_TIMEOUT_MS = 8000;
const BATCH_SIZE = 5;
const PARENT = 'fault.eth';

interface Outcome {
  batch: number;
  /** 0 when the request failed without an answer (a timeout). */
  status: number;
  contentType: string | null;
  retryAfter: string | null;
  code?: string;
  startedAt: number;
  ms: number;
}

const labels = (batch: number) => Array.from({ length: BATCH_SIZE }, (_, i) => `b${batch}-${i}`);

(postgresServerAvailable() ? describe : describe.skip)('PostgreSQL killed (-9) under write traffic', () => {
  let pg: TestPostgresServer;
  let db: OffchainDatabaseHandle;
  let instance: ServiceInstance;
  let server: Server;
  let base: string;
  let key: string;

  beforeAll(async () => {
    pg = await startPostgresServer();
    db = createDatabase<OffchainDatabase>({ url: pg.url, poolMax: 8 });
    const config = loadConfig(configSchema, {
      LOG_LEVEL: 'silent',
      RATE_LIMIT_PER_MINUTE: '100000',
      WEBHOOK_DELIVERY_INTERVAL_MS: '0',
    });
    instance = await createService(config, createLogger('offchain-fault-test', 'silent'), {
      database: db,
    });
    key = (await issueApiKey(db, [PARENT])).key;
    server = createServer(instance.app).listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    // A subscribed webhook: each written subname records its event in the transaction of the write.
    const webhook = await fetch(`${base}/api/v1/webhooks`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-auth-token': key },
      body: JSON.stringify({ url: 'https://hooks.example.com/fault', events: ['subname.created'] }),
    });
    expect(webhook.status).toBe(201);
  }, 60_000);

  afterAll(async () => {
    server?.close();
    for (const step of instance?.onShutdown ?? []) await step();
    await db?.close();
    await pg?.stop();
  });

  const writeBatch = async (batch: number): Promise<Outcome> => {
    const startedAt = Date.now();
    try {
      const res = await fetch(`${base}/api/v1/subnames/bulk`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-auth-token': key },
        body: JSON.stringify({
          items: labels(batch).map((label) => ({
            parentName: PARENT,
            label,
            texts: [{ key: 'description', value: `batch ${batch}` }],
          })),
        }),
        signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
      });
      const body = (await res.json()) as { code?: string };
      return {
        batch,
        status: res.status,
        contentType: res.headers.get('content-type'),
        retryAfter: res.headers.get('retry-after'),
        code: body.code,
        startedAt,
        ms: Date.now() - startedAt,
      };
    } catch {
      return { batch, status: 0, contentType: null, retryAfter: null, startedAt, ms: Date.now() - startedAt };
    }
  };

  it('answers 503 + Retry-After while it is down, fails /ready, half-writes nothing, and recovers by itself', async () => {
    const outcomes: Outcome[] = [];
    let nextBatch = 0;
    let sending = true;
    const clients = Array.from({ length: 4 }, async () => {
      while (sending) outcomes.push(await writeBatch(nextBatch++));
    });

    await until(() => outcomes.filter((o) => o.status === 200).length >= 20, '20 writes', 30_000);
    await pg.kill();
    const killedAt = Date.now();
    const countAfterKill = () => outcomes.filter((o) => o.startedAt >= killedAt).length;
    await until(() => countAfterKill() >= 20, '20 answers with the server down', 30_000);

    const ready = await fetch(`${base}/ready`);
    expect(ready.status).toBe(503);
    expect(ready.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(((await ready.json()) as { checks: Record<string, string> }).checks.database).toMatch(
      /unreachable/,
    );

    sending = false;
    await Promise.all(clients);

    // Never a 500 nor a hang: in flight at the kill, a request either committed (200) or answered 503.
    for (const outcome of outcomes) {
      expect([200, 503]).toContain(outcome.status);
      expect(outcome.ms).toBeLessThan(REQUEST_TIMEOUT_MS);
    }
    const whileDown = outcomes.filter((o) => o.startedAt >= killedAt);
    for (const outcome of whileDown) {
      expect(outcome).toMatchObject({
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        retryAfter: String(DEPENDENCY_RETRY_AFTER_SECONDS),
        contentType: expect.stringMatching(/application\/problem\+json/),
      });
    }

    // Back, with no restart of the service: the same process writes again.
    await pg.restart();
    await until(async () => (await fetch(`${base}/ready`)).status === 200, '/ready after restart', 20_000);
    const after = await writeBatch(nextBatch++);
    expect(after.status).toBe(200);
    outcomes.push(after);

    // Nothing half-written: each batch (one transaction) is all there with its events, or not there at all.
    const rows = await sql<{ label: string }>`select label from offchain_subnames`.execute(db.db);
    const events = await sql<{ name: string }>`
      select data->>'fullName' as name from offchain_events where type = 'subname.created'`.execute(db.db);
    const stored = new Set(rows.rows.map((r) => r.label));
    const withEvent = new Set(events.rows.map((e) => e.name.slice(0, -PARENT.length - 1)));
    expect(withEvent).toEqual(stored);
    for (const outcome of outcomes) {
      const present = labels(outcome.batch).filter((label) => stored.has(label)).length;
      expect([0, BATCH_SIZE]).toContain(present);
      if (outcome.status === 200) expect(present).toBe(BATCH_SIZE);
    }
  }, 120_000);
});
