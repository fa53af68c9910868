import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import request from 'supertest';
import { z } from 'zod';
import { commonProblems, ProblemError } from '@nrp/validation';
import { createApp, createLogger, defineRoute, type Logger } from '../src';

function capturingLogger(level: string): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: createLogger('log-test', level, stream), lines };
}

/** The handler logs with the service's logger, as domain code does: no request object is handed down. */
const routes = (logger: Logger) => [
  defineRoute({
    method: 'get',
    path: '/echo/:word',
    operationId: 'echo',
    budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
    summary: 'echo',
    params: z.object({ word: z.string().max(5) }),
    responses: { 200: { description: 'ok', schema: z.object({ word: z.string(), id: z.string() }) } },
    handler: async ({ params }, req) => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      logger.info({ word: params.word }, 'handler ran');
      return { word: params.word, id: req.id };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/fail',
    operationId: 'fail',
    budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
    summary: 'fails after an await',
    responses: { 200: { description: 'never', schema: z.object({}) } },
    handler: async () => {
      await new Promise((resolve) => setTimeout(resolve, 1));
      throw new Error('broken');
    },
  }),
];

const busyRoute = defineRoute({
  method: 'get',
  path: '/busy',
  operationId: 'busy',
  budget: { bodyBytes: 0, answerBytes: 1024, timeMs: 10_000 },
  summary: 'refuses work, as a full pool does',
  responses: { 200: { description: 'never', schema: z.object({}) } },
  handler: () => {
    throw new ProblemError(commonProblems.SERVICE_UNAVAILABLE, 'The pool is full; retry shortly.', {
      headers: { 'Retry-After': '1' },
    });
  },
});

function app(logger: Logger, redis?: Redis, ratePerMinute = 100) {
  return createApp({
    service: 'log-test',
    version: '0',
    description: '',
    logger,
    routes: [...routes(logger), busyRoute],
    config: { CORS_ORIGINS: ['*'], TRUST_PROXY: 'false', RATE_LIMIT_PER_MINUTE: ratePerMinute },
    redis,
  });
}

const flush = () => new Promise((resolve) => setImmediate(resolve));

describe('request context', () => {
  it('gives handlers a logger carrying the request id, and logs successes only at debug', async () => {
    const { logger, lines } = capturingLogger('info');
    const res = await request(app(logger)).get('/echo/hi').set('x-request-id', 'req-1').expect(200);
    await flush();
    expect(res.body).toEqual({ word: 'hi', id: 'req-1' });
    expect(lines).toEqual([expect.objectContaining({ msg: 'handler ran', reqId: 'req-1', word: 'hi' })]);

    const verbose = capturingLogger('debug');
    await request(app(verbose.logger)).get('/echo/hi').set('x-request-id', 'req-2').expect(200);
    await flush();
    expect(verbose.lines).toContainEqual(
      expect.objectContaining({
        msg: 'request completed',
        reqId: 'req-2',
        req: { method: 'GET', url: '/echo/hi' },
        res: { statusCode: 200 },
        responseTimeMs: expect.any(Number),
      }),
    );
  });

  it('carries the W3C traceparent trace id and caller span into the request log lines', async () => {
    const { logger, lines } = capturingLogger('info');
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    await request(app(logger))
      .get('/echo/hi')
      .set('traceparent', `00-${traceId}-00f067aa0ba902b7-01`)
      .expect(200);
    await flush();
    expect(lines).toEqual([
      expect.objectContaining({ msg: 'handler ran', traceId, parentSpanId: '00f067aa0ba902b7' }),
    ]);
  });

  it.each([
    ['not a traceparent'],
    ['00-00000000000000000000000000000000-00f067aa0ba902b7-01'],
    ['00-4bf92f3577b34da6a3ce929d0e0e4736-0000000000000000-01'],
    ['ff-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01'],
    ['00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01'],
  ])('ignores the malformed traceparent %j and still answers', async (traceparent) => {
    const { logger, lines } = capturingLogger('info');
    await request(app(logger)).get('/echo/hi').set('traceparent', traceparent).expect(200);
    await flush();
    expect(lines).toHaveLength(1);
    expect(lines[0]).not.toHaveProperty('traceId');
  });

  it('logs client errors at warn', async () => {
    const { logger, lines } = capturingLogger('info');
    await request(app(logger)).get('/echo/toolong').expect(400);
    await flush();
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 40, msg: 'request completed', res: { statusCode: 400 } }),
    );
  });

  it('the error handler logs a 5xx with the request id, as every line of the request', async () => {
    const { logger, lines } = capturingLogger('info');
    await request(app(logger)).get('/fail').set('x-request-id', 'req-500').expect(500);
    await flush();
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(line).toMatchObject({ reqId: 'req-500' });
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 50, err: expect.objectContaining({ message: 'broken' }) }),
    );
  });

  it('logs a 503 refusal (no cause) once, at warn, without a stack', async () => {
    const { logger, lines } = capturingLogger('info');
    const res = await request(app(logger)).get('/busy').expect(503);
    expect(res.headers['retry-after']).toBe('1');
    await flush();
    expect(lines).toEqual([
      expect.objectContaining({ level: 40, msg: 'request completed', res: { statusCode: 503 } }),
    ]);
  });

  it('sets helmet security headers on every response', async () => {
    const { logger } = capturingLogger('silent');
    const res = await request(app(logger)).get('/echo/hi').expect(200);
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['strict-transport-security']).toBeDefined();
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('a rate-limit store that is down: requests are served and limited by this process alone', async () => {
    const { logger } = capturingLogger('silent');
    // A real Redis client pointed at a port nothing listens on.
    const redis = new Redis({
      port: 1,
      lazyConnect: true,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    });
    redis.on('error', () => undefined);
    try {
      const server = app(logger, redis, 2);
      await request(server).get('/echo/hi').expect(200);
      await request(server).get('/echo/hi').expect(200);
      const limited = await request(server).get('/echo/hi').expect(429);
      expect(limited.body.code).toBe('RATE_LIMITED');
    } finally {
      redis.disconnect();
    }
  });
});
