import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { JsonRpcProvider } from 'ethers';
import request from 'supertest';
import { toUpstreamError } from '@nrp/chain';
import { verifyMessageSignature } from '@nrp/auth';
import { createDatabase } from '@nrp/db';
import { createLocalBlobStore } from '@nrp/storage';
import { freePort } from '@nrp/testkit';
import { commonProblems, ProblemError } from '@nrp/validation';
import {
  createApp,
  createLogger,
  defineRoute,
  DEPENDENCY_FAILURES_DESCRIPTION,
  DEPENDENCY_RETRY_AFTER_SECONDS,
  type AppOptions,
} from '../src';
import { z } from 'zod';

/** An RPC node that answers every request with the same JSON-RPC error (a provider's rate limit). */
async function failingRpcNode(): Promise<{ url: string; server: Server }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString()));
    req.on('end', () => {
      const calls = JSON.parse(body) as { id: number } | Array<{ id: number }>;
      const answer = (call: { id: number }) => ({
        jsonrpc: '2.0',
        id: call.id,
        error: { code: -32005, message: 'daily request limit exceeded' },
      });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify(Array.isArray(calls) ? calls.map(answer) : answer(calls)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, server };
}

/** A service whose one route runs `work`, so what it throws goes through the kit's error handler. */
function serviceFailingWith(
  work: () => Promise<unknown>,
  options: Pick<AppOptions, 'everyRouteProblems'> = {},
) {
  return createApp({
    ...options,
    service: 'dependency-test',
    version: '0',
    description: 'test',
    logger: createLogger('dependency-test', 'silent'),
    config: { CORS_ORIGINS: [], TRUST_PROXY: 'false', RATE_LIMIT_PER_MINUTE: 1000 },
    routes: [
      defineRoute({
        method: 'get',
        path: '/work',
        operationId: 'work',
        budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
        summary: 'Runs the dependency call',
        responses: { 200: { description: 'never', schema: z.unknown() } },
        handler: work,
      }),
    ],
  });
}

describe('the kit maps dependency failures once, for every route', () => {
  it('one RPC failure gives the same 502 body through a route and through libs/auth', async () => {
    const node = await failingRpcNode();
    const provider = new JsonRpcProvider(node.url, 1, { staticNetwork: true });
    try {
      const res = await request(
        serviceFailingWith(async () => {
          try {
            return await provider.getBlockNumber();
          } catch (err) {
            throw toUpstreamError('reading the block number', err);
          }
        }),
      )
        .get('/work')
        .expect(502)
        .expect('content-type', /application\/problem\+json/);
      expect(res.body).toMatchObject({
        code: 'UPSTREAM_ERROR',
        upstream: { code: -32005, message: 'daily request limit exceeded' },
      });

      // A contract wallet's signature check (libs/auth) meets the same node failure.
      const signature = `0x${'11'.repeat(65)}`;
      const fromAuth: unknown = await verifyMessageSignature(
        '0x000000000000000000000000000000000000dEaD',
        'hello',
        signature,
        provider,
      ).catch((err: unknown) => err);
      expect(fromAuth).toBeInstanceOf(ProblemError);
      const body = (fromAuth as ProblemError).toBody();
      expect({ status: body.status, code: body.code, upstream: body.upstream }).toEqual({
        status: 502,
        code: 'UPSTREAM_ERROR',
        upstream: res.body.upstream,
      });
    } finally {
      provider.destroy();
      node.server.close();
    }
  });

  it('a PostgreSQL server that refuses connections is 503 with Retry-After, not 500', async () => {
    const database = createDatabase({ url: `postgres://postgres@127.0.0.1:${await freePort()}/none` });
    try {
      const res = await request(serviceFailingWith(() => database.ping()))
        .get('/work')
        .expect(503)
        .expect('content-type', /application\/problem\+json/)
        .expect('retry-after', String(DEPENDENCY_RETRY_AFTER_SECONDS));
      expect(res.body).toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        detail: expect.stringMatching(/database/),
      });
    } finally {
      await database.close();
    }
  });

  it('a closed PGlite is 503; a query the database refuses stays a 500', async () => {
    const database = createDatabase();
    const { sql } = await import('kysely');
    await sql`create table once (id int primary key)`.execute(database.db);
    await sql`insert into once values (1)`.execute(database.db);
    const duplicate = await request(
      serviceFailingWith(() => sql`insert into once values (1)`.execute(database.db)),
    )
      .get('/work')
      .expect(500);
    expect(duplicate.body.code).toBe('INTERNAL_ERROR');

    await database.close();
    const closed = await request(serviceFailingWith(() => sql`select 1`.execute(database.db)))
      .get('/work')
      .expect(503)
      .expect('retry-after', String(DEPENDENCY_RETRY_AFTER_SECONDS));
    expect(closed.body.code).toBe('SERVICE_UNAVAILABLE');
  });

  it('blob storage that cannot write is 503 with Retry-After', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'dependency-test-'));
    // A file where the store's directory should be: every write fails.
    writeFileSync(path.join(dir, 'blobs'), 'not a directory');
    const blobs = createLocalBlobStore(path.join(dir, 'blobs'));
    const res = await request(serviceFailingWith(() => blobs.put('a/b', Buffer.from('x'), 'text/plain')))
      .get('/work')
      .expect(503)
      .expect('retry-after', String(DEPENDENCY_RETRY_AFTER_SECONDS));
    expect(res.body).toMatchObject({ code: 'SERVICE_UNAVAILABLE', detail: expect.stringMatching(/storage/) });
  });

  it('a blob key the service built wrongly is a 500, not an outage', async () => {
    const blobs = createLocalBlobStore(mkdtempSync(path.join(tmpdir(), 'dependency-test-')));
    const res = await request(
      serviceFailingWith(() => blobs.put('../escape', Buffer.from('x'), 'text/plain')),
    )
      .get('/work')
      .expect(500);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.body.code).toBe('INTERNAL_ERROR');
  });

  it('is documented once: in every OpenAPI description, and as 503 on every route of a service with a database', async () => {
    const app = serviceFailingWith(async () => undefined, {
      everyRouteProblems: [commonProblems.SERVICE_UNAVAILABLE],
    });
    const { body } = await request(app).get('/openapi.json').expect(200);
    expect(body.info.description).toMatch(/\n\n\*\*When a dependency fails/);
    expect(body.info.description.endsWith(DEPENDENCY_FAILURES_DESCRIPTION)).toBe(true);
    expect(body.paths['/work'].get.responses['503']['x-problem-codes']).toEqual([
      'TIME_BUDGET_EXCEEDED',
      'SERVICE_UNAVAILABLE',
    ]);
  });
});
