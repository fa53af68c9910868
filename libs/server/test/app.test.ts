import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import type { Request } from 'express';
import request from 'supertest';
import { z } from 'zod';
import {
  commonProblems,
  defineProblems,
  ensName,
  ethAddress,
  ProblemError,
  queryBoolean,
} from '@nrp/validation';
import { createDatabase } from '@nrp/db';
import { freePort } from '@nrp/testkit';
import {
  closeRedis,
  createApp,
  createLogger,
  createRedisClient,
  defineRoute,
  NotReady,
  type AppOptions,
} from '../src';

const problems = defineProblems({
  WIDGET_GONE: { status: 410, title: 'Widget gone', hint: 'It expired.' },
});

const routes = [
  defineRoute({
    method: 'get',
    path: '/widgets/:name',
    operationId: 'getWidget',
    budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
    summary: 'Read a widget',
    params: z.object({ name: ensName({ min: 3, max: 50 }) }),
    query: z.object({ fresh: queryBoolean.optional(), owner: ethAddress.optional() }),
    responses: { 200: { description: 'The widget', schema: z.object({ name: z.string() }) } },
    problems: [problems.WIDGET_GONE],
    handler: ({ params, query }) => {
      if (params.name === 'gone.eth') throw new ProblemError(problems.WIDGET_GONE, 'gone.eth expired.');
      return { name: params.name, fresh: query.fresh ?? false, owner: query.owner ?? null };
    },
  }),
  defineRoute({
    method: 'post',
    path: '/widgets',
    operationId: 'createWidget',
    budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
    summary: 'Create a widget',
    body: z.object({ label: z.string().min(1).max(10), size: z.number().int().positive() }),
    responses: { 201: { description: 'Created' } },
    rateLimit: { name: 'create', windowMs: 60_000, limit: 3 },
    handler: ({ body }, _req, res) => {
      res.status(201).json(body);
    },
  }),
  defineRoute({
    method: 'get',
    path: '/boom',
    operationId: 'boom',
    budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
    summary: 'Fails',
    responses: { 200: { description: 'never' } },
    handler: () => {
      throw new Error('secret internal detail');
    },
  }),
];

const redis = process.env.REDIS_URL ? new Redis(process.env.REDIS_URL) : undefined;
afterAll(async () => {
  await redis?.quit();
});

function app(overrides: Partial<AppOptions> = {}) {
  return createApp({
    service: `test-svc-${randomUUID()}`,
    version: '1.2.3',
    description: 'A test service.',
    logger: createLogger('test', 'silent'),
    routes,
    config: { CORS_ORIGINS: ['https://app.example'], TRUST_PROXY: 'false', RATE_LIMIT_PER_MINUTE: 1000 },
    redis,
    ...overrides,
  });
}

describe('shared endpoints', () => {
  const server = app();

  it('GET / names the service, version and docs', async () => {
    const res = await request(server).get('/').expect(200);
    expect(res.body).toEqual({
      service: expect.stringMatching(/^test-svc-/),
      version: '1.2.3',
      docs: '/docs',
    });
  });

  it('GET /health is ok', async () => {
    await request(server).get('/health').expect(200, { status: 'ok' });
  });

  it('GET /ready reports each dependency, 503 when one fails', async () => {
    const ok = app({ readiness: { db: async () => undefined } });
    // With Redis configured (REDIS_URL), the app checks it too.
    expect((await request(ok).get('/ready').expect(200)).body).toEqual({
      status: 'ok',
      checks: { db: 'ok', ...(redis ? { redis: 'ok' } : {}) },
    });
    const down = app({
      readiness: {
        db: async () => undefined,
        rpc: async () => Promise.reject(new Error('connect ECONNREFUSED')),
      },
      readinessTimeoutMs: 500,
    });
    const res = await request(down).get('/ready').expect(503);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      checks: { db: 'ok', rpc: 'rpc unreachable' },
    });
  });

  it('GET /ready names an unreachable Redis and database in our words, never their socket errors', async () => {
    const closed = await freePort(); // nothing listens on it
    const logger = createLogger('test', 'silent');
    const downRedis = createRedisClient(`redis://127.0.0.1:${closed}`, logger);
    const database = createDatabase({ url: `postgres://postgres@127.0.0.1:${closed}/test` });
    try {
      const res = await request(
        app({ redis: downRedis, readiness: { database: () => database.ping() }, readinessTimeoutMs: 3000 }),
      )
        .get('/ready')
        .expect(503);
      expect(res.body.checks).toEqual({
        database: 'database unreachable',
        redis: 'redis unreachable',
      });
      expect(res.text).not.toMatch(new RegExp(`ECONN|127\\.0\\.0\\.1|${closed}`));
    } finally {
      await closeRedis(downRedis);
      await database.close();
    }
  });

  it('a check that rejects with NotReady is reported in its own words', async () => {
    const res = await request(
      app({ readiness: { index: () => Promise.reject(new NotReady('the index is 9 blocks behind')) } }),
    )
      .get('/ready')
      .expect(503);
    expect(res.body.checks.index).toBe('the index is 9 blocks behind');
  });

  it('GET /ready fails a check that hangs', async () => {
    const hanging = app({ readiness: { rpc: () => new Promise(() => undefined) }, readinessTimeoutMs: 100 });
    const res = await request(hanging).get('/ready').expect(503);
    expect(res.body.checks.rpc).toMatch(/did not answer/);
  });

  it("a path that cannot be decoded is a 400 in our words, not the decoder's", async () => {
    const res = await request(server).get('/widgets/%E0%A4%A').expect(400);
    expect(res.body).toMatchObject({
      code: 'INVALID_INPUT',
      detail: expect.stringMatching(/not well-formed/),
    });
    expect(res.text).not.toMatch(/Failed to decode|%E0%A4%A/);
  });

  it('GET /metrics exposes request duration histograms by route', async () => {
    const count = async (): Promise<number> => {
      const res = await request(server).get('/metrics').expect(200);
      const line = res.text
        .split('\n')
        .find(
          (l) => l.startsWith('http_request_duration_seconds_count{') && l.includes('route="/widgets/:name"'),
        );
      return Number(line?.split(' ')[1] ?? 0);
    };
    const before = await count();
    await request(server).get('/widgets/demo.eth').expect(200);
    await request(server).get('/widgets/demo.eth').expect(200);
    const res = await request(server).get('/metrics').expect(200);
    expect(res.text).toContain('# TYPE http_request_duration_seconds histogram');
    expect(res.text).toMatch(
      /http_request_duration_seconds_bucket\{method="GET",route="\/widgets\/:name",status_code="200",le="\+Inf",service="[^"]+"\} \d+/,
    );
    expect(res.text).toMatch(/route="\/widgets\/:name",status_code="200"/);
    expect(await count()).toBe(before + 2);
  });

  it('GET /openapi.json documents routes, parameters and problems', async () => {
    const res = await request(server).get('/openapi.json').expect(200);
    expect(res.body.openapi).toBe('3.1.0');
    const op = res.body.paths['/widgets/{name}'].get;
    expect(op.parameters.map((p: { name: string; in: string }) => `${p.in}:${p.name}`)).toEqual([
      'path:name',
      'query:fresh',
      'query:owner',
    ]);
    expect(op.responses['410'].description).toContain('WIDGET_GONE');
    expect(res.body.paths['/widgets'].post.requestBody.content['application/json'].schema.required).toEqual([
      'label',
      'size',
    ]);
    expect(res.body.paths['/widgets'].post.responses['429']).toBeDefined();
  });

  it('GET /docs serves Swagger UI from the package, and the error catalogue', async () => {
    await request(server).get('/docs').expect(301);
    const page = await request(server).get('/docs/').expect(200);
    expect(page.text).toContain('swagger-ui-bundle.js');
    await request(server).get('/docs/swagger-ui-bundle.js').expect(200);
    const errors = await request(server).get('/docs/errors').expect(200);
    expect(errors.body.problems).toEqual(
      expect.arrayContaining([expect.objectContaining({ code: 'WIDGET_GONE', status: 410 })]),
    );
  });

  it('echoes a valid x-request-id and generates one otherwise', async () => {
    const res = await request(server).get('/health').set('x-request-id', 'abc-123').expect(200);
    expect(res.headers['x-request-id']).toBe('abc-123');
    const generated = await request(server).get('/health').set('x-request-id', 'bad id!').expect(200);
    expect(generated.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('answers CORS for configured origins and sets security headers', async () => {
    const res = await request(server).get('/health').set('Origin', 'https://app.example').expect(200);
    expect(res.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['access-control-expose-headers']).toBe(
      'x-request-id,Retry-After,RateLimit,RateLimit-Policy',
    );
    const foreign = await request(server).get('/health').set('Origin', 'https://evil.example');
    expect(foreign.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('answers preflights with the allowed methods and caches them for two hours', async () => {
    const preflight = await request(server)
      .options('/widgets')
      .set('Origin', 'https://app.example')
      .set('Access-Control-Request-Method', 'POST')
      .set('Access-Control-Request-Headers', 'content-type,x-auth-token')
      .expect(204);
    expect(preflight.headers['access-control-allow-origin']).toBe('https://app.example');
    expect(preflight.headers['access-control-allow-headers']).toBe('content-type,x-auth-token');
    expect(preflight.headers['access-control-max-age']).toBe('7200');
    expect(preflight.headers['access-control-allow-methods']).toBe('GET,HEAD,PUT,PATCH,POST,DELETE');
  });

  it('a service route that would answer a shared path is refused at start', () => {
    const shadowing = defineRoute({
      method: 'get',
      path: '/:anything',
      operationId: 'anything',
      budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
      summary: 'anything',
      responses: { 200: { description: 'ok', schema: z.object({}) } },
      handler: () => ({}),
    });
    expect(() => app({ routes: [shadowing] })).toThrow('route GET /:anything would answer /health');
  });
});

describe('errors are problem+json', () => {
  const server = app();

  it('unknown route → 404 NOT_FOUND', async () => {
    const res = await request(server).get('/nope').expect(404);
    expect(res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(res.body).toMatchObject({
      status: 404,
      code: 'NOT_FOUND',
      title: 'Not found',
      type: '/docs/errors#NOT_FOUND',
    });
  });

  it('a body that is not JSON → 400 INVALID_JSON', async () => {
    const res = await request(server)
      .post('/widgets')
      .set('Content-Type', 'application/json')
      .send('{"label":');
    expect(res.status).toBe(400);
    expect(res.body.code).toBe('INVALID_JSON');
  });

  it('a body over the limit → 413 PAYLOAD_TOO_LARGE', async () => {
    const res = await request(server)
      .post('/widgets')
      .set('Content-Type', 'application/json')
      .send(JSON.stringify({ label: 'x'.repeat(200_000), size: 1 }));
    expect(res.status).toBe(413);
    expect(res.body.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('one error entry per bad field, across path, query and body', async () => {
    const res = await request(server).get('/widgets/demo.eth?fresh=maybe&owner=0x123').expect(400);
    expect(res.body.code).toBe('INVALID_INPUT');
    expect(res.body.errors.map((e: { path: string }) => e.path)).toEqual(['query.fresh', 'query.owner']);
    const body = await request(server).post('/widgets').send({ label: '', size: -1, extra: 1 }).expect(400);
    expect(body.body.errors.map((e: { path: string }) => e.path)).toEqual(['body.label', 'body.size']);
  });

  it('a name that cannot be normalised → 400 INVALID_NAME; responses carry the normalised name', async () => {
    const res = await request(server).get('/widgets/bad..eth').expect(400);
    expect(res.body.code).toBe('INVALID_NAME');
    expect(res.body.errors[0].path).toBe('params.name');
    const ok = await request(server).get('/widgets/DeMo.ETH').expect(200);
    expect(ok.body.name).toBe('demo.eth');
  });

  it('a service problem keeps its status and code', async () => {
    const res = await request(server).get('/widgets/gone.eth').expect(410);
    expect(res.body).toMatchObject({ code: 'WIDGET_GONE', detail: 'gone.eth expired.' });
  });

  it('an unexpected error → 500 without a stack or the internal message', async () => {
    const res = await request(server).get('/boom').expect(500);
    expect(res.body).toEqual({
      type: '/docs/errors#INTERNAL_ERROR',
      title: commonProblems.INTERNAL_ERROR.title,
      status: 500,
      detail: 'An unexpected error occurred.',
      code: 'INTERNAL_ERROR',
    });
    expect(res.text).not.toContain('secret');
  });
});

describe('response schemas', () => {
  const lying = defineRoute({
    method: 'get',
    path: '/lying',
    operationId: 'lying',
    budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
    summary: 'Answers a body its schema refuses',
    responses: { 200: { description: 'ok', schema: z.object({ count: z.number() }) } },
    handler: (_input, _req, res) => {
      res.json({ count: 'many' });
    },
  });

  it('under tests, an answer its schema refuses fails the request instead of reaching the client', async () => {
    const res = await request(app({ routes: [lying] }))
      .get('/lying')
      .expect(500);
    expect(res.body.code).toBe('INTERNAL_ERROR');
    expect(res.text).not.toContain('many');
  });

  it('is not checked where checkResponses is off (production)', async () => {
    const res = await request(app({ routes: [lying], checkResponses: false }))
      .get('/lying')
      .expect(200);
    expect(res.body).toEqual({ count: 'many' });
  });
});

describe('rate limiting', () => {
  it('a route limit answers 429 with Retry-After and IETF RateLimit headers', async () => {
    const server = app();
    for (let i = 0; i < 3; i++)
      await request(server).post('/widgets').send({ label: 'a', size: 1 }).expect(201);
    const res = await request(server).post('/widgets').send({ label: 'a', size: 1 }).expect(429);
    expect(res.body.code).toBe('RATE_LIMITED');
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    // IETF draft-8: one list member per limit the request counts against, the global one first.
    expect(res.headers['ratelimit-policy']).toMatch(/^"global"; q=1000; w=60, "create"; q=3; w=60$/);
    expect(res.headers.ratelimit).toMatch(/^"global"; r=996; t=(59|60), "create"; r=0; t=(59|60)$/);
  });

  it('counts the client the app trusts: X-Forwarded-For only behind a trusted proxy', async () => {
    const statusesFrom = async (server: ReturnType<typeof app>) => {
      const out: number[] = [];
      for (const ip of ['10.0.0.1', '10.0.0.2', '10.0.0.3'])
        out.push((await request(server).get('/widgets/demo.eth').set('X-Forwarded-For', ip)).status);
      return out;
    };
    const config = { CORS_ORIGINS: ['*'], RATE_LIMIT_PER_MINUTE: 2 };
    expect(await statusesFrom(app({ config: { ...config, TRUST_PROXY: '1' } }))).toEqual([200, 200, 200]);
    expect(await statusesFrom(app({ config: { ...config, TRUST_PROXY: 'false' } }))).toEqual([200, 200, 429]);
  });

  it('routes naming the same limit share its counter, and skipped requests are not counted', async () => {
    const fresh = {
      name: 'fresh',
      windowMs: 60_000,
      limit: 2,
      skip: (req: Request) => req.query.fresh !== 'true',
    };
    const shared = createApp({
      service: `test-svc-${randomUUID()}`,
      version: '0',
      description: '',
      logger: createLogger('test', 'silent'),
      config: { CORS_ORIGINS: ['*'], TRUST_PROXY: 'false', RATE_LIMIT_PER_MINUTE: 1000 },
      redis,
      routes: ['/a', '/b'].map((path) =>
        defineRoute({
          method: 'get',
          path,
          operationId: `get${path.slice(1)}`,
          budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
          summary: path,
          responses: { 200: { description: 'ok', schema: z.object({ path: z.string() }) } },
          rateLimit: fresh,
          handler: () => ({ path }),
        }),
      ),
    });
    await request(shared).get('/a?fresh=true').expect(200);
    await request(shared).get('/b?fresh=true').expect(200);
    await request(shared).get('/a?fresh=true').expect(429);
    await request(shared).get('/b?fresh=true').expect(429);
    await request(shared).get('/a').expect(200);
    await request(shared).get('/b').expect(200);
  });

  it('the global limit applies to every route', async () => {
    const server = app({ config: { CORS_ORIGINS: ['*'], TRUST_PROXY: 'false', RATE_LIMIT_PER_MINUTE: 2 } });
    await request(server).get('/widgets/demo.eth').expect(200);
    await request(server).get('/widgets/demo.eth').expect(200);
    await request(server).get('/widgets/demo.eth').expect(429);
  });
});
