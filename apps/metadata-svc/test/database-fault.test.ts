/**
 * PostgreSQL crashing under sign-in and upload traffic, for real: the test's own server (initdb + pg_ctl) is
 * killed with -9 while three wallets keep taking nonces and uploading, then started again. What must survive:
 * every answer is a 200 or a 503 problem+json with Retry-After (never a 500, never a hang), `/ready` fails while
 * it is down, no image row lacks its bytes and, after the sweep, no bytes lack their row, and the same service
 * process takes uploads again once the server is back.
 */
import request from 'supertest';
import type { Wallet } from 'ethers';
import { createDatabase } from '@nrp/db';
import { DEPENDENCY_RETRY_AFTER_SECONDS } from '@nrp/server';
import {
  signSignInMessage,
  postgresServerAvailable,
  startPostgresServer,
  until,
  type EnsChain,
  type TestPostgresServer,
} from '@nrp/testkit';
import type { MetadataDb } from '../src/data/schema';
import { sweepOrphans } from '../src/uploads/orphans';
import {
  buildMessage,
  imageRows,
  png,
  signedFields,
  startEnsChain,
  startMetadataService,
  storedKeys,
  upload,
  walletOf,
  type MetadataService,
} from './support';

/** Each request gives up after this long; none may come close (the pool gives up after 5 s). */
const REQUEST_TIMEOUT_MS = 8000;

interface Outcome {
  /** 0 when the request failed without an answer (a timeout). */
  status: number;
  contentType?: string;
  retryAfter?: string;
  code?: string;
  startedAt: number;
  ms: number;
  /** The name an upload answered 200 for. */
  uploaded?: string;
  body?: { code?: string; nonce?: string };
}

(postgresServerAvailable() ? describe : describe.skip)('PostgreSQL killed (-9) under upload traffic', () => {
  let chain: EnsChain;
  let pg: TestPostgresServer;
  let h: MetadataService;
  let image: Buffer;

  beforeAll(async () => {
    [chain, pg, image] = await Promise.all([
      startEnsChain({ chainId: 11155111 }),
      startPostgresServer(),
      png(),
    ]);
    h = await startMetadataService(chain, {}, { database: createDatabase<MetadataDb>({ url: pg.url }) });
  }, 120_000);

  afterAll(async () => {
    await h?.close();
    await pg?.stop();
    await chain?.stop();
  });

  const timed = async (send: () => request.Test, uploaded?: string): Promise<Outcome> => {
    const startedAt = Date.now();
    try {
      const res = await send().timeout(REQUEST_TIMEOUT_MS);
      const body = res.body as Outcome['body'];
      return {
        status: res.status,
        contentType: res.headers['content-type'],
        retryAfter: res.headers['retry-after'],
        code: body?.code,
        body,
        startedAt,
        ms: Date.now() - startedAt,
        ...(res.status === 200 && uploaded ? { uploaded } : {}),
      };
    } catch {
      return { status: 0, startedAt, ms: Date.now() - startedAt };
    }
  };

  it('answers 503 + Retry-After while it is down, fails /ready, leaves no row without bytes nor bytes without a row, and recovers by itself', async () => {
    const app = h.app;
    const outcomes: Outcome[] = [];
    let nextName = 0;
    let sending = true;
    const client = async (wallet: Wallet) => {
      while (sending) {
        const issued = await timed(() =>
          request(app).post('/auth/nonce').send({ address: wallet.address, scope: 'avatar' }),
        );
        outcomes.push(issued);
        const nonce = issued.body?.nonce;
        if (!nonce) continue;
        const message = buildMessage(wallet.address, nonce);
        const fields = {
          siweMessage: message,
          siweSignature: await signSignInMessage(wallet, message),
          address: wallet.address,
        };
        const name = `fault${nextName++}.eth`;
        outcomes.push(
          await timed(() => upload(app, `/profile/sepolia/${name}/avatar`, 'avatar', image, fields), name),
        );
      }
    };
    const clients = [1, 2, 3].map((index) => client(walletOf(chain, index)));

    await until(() => outcomes.filter((o) => o.uploaded).length >= 6, '6 uploads', 60_000);
    await pg.kill();
    const killedAt = Date.now();
    await until(
      () => outcomes.filter((o) => o.startedAt >= killedAt).length >= 10,
      '10 answers down',
      30_000,
    );

    const ready = await request(app).get('/ready').expect(503);
    expect(ready.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(ready.body.checks.database).toMatch(/unreachable/);

    sending = false;
    await Promise.all(clients);

    for (const outcome of outcomes) {
      expect([200, 503]).toContain(outcome.status);
      expect(outcome.ms).toBeLessThan(REQUEST_TIMEOUT_MS);
    }
    for (const outcome of outcomes.filter((o) => o.startedAt >= killedAt)) {
      expect(outcome).toMatchObject({
        status: 503,
        code: 'SERVICE_UNAVAILABLE',
        retryAfter: String(DEPENDENCY_RETRY_AFTER_SECONDS),
        contentType: expect.stringMatching(/application\/problem\+json/),
      });
    }

    // Back, with no restart of the service: the same process signs in and stores an upload again.
    await pg.restart();
    await until(
      async () => (await request(app).get('/ready')).status === 200,
      '/ready after restart',
      20_000,
    );
    const alice = walletOf(chain, 1);
    await upload(
      app,
      '/profile/sepolia/after.eth/avatar',
      'avatar',
      image,
      await signedFields(app, alice),
    ).expect(200);

    // Nothing half-written: every upload answered 200 has its row, every row its bytes, and after the sweep no
    // bytes are left without a row.
    await sweepOrphans(h.context);
    const rows = await imageRows(h.db);
    const keys = await storedKeys(h.context.blobs);
    const names = new Set(rows.map((r) => r.name));
    for (const outcome of outcomes) if (outcome.uploaded) expect(names).toContain(outcome.uploaded);
    expect(names).toContain('after.eth');
    expect(keys.sort()).toEqual(rows.map((r) => r.blob_key).sort());
  }, 180_000);
});
