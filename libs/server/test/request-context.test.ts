import { Writable } from 'node:stream';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import request from 'supertest';
import { z } from 'zod';
import { createApp, defineRoute, type Logger } from '../src';

function capturingLogger(level: string): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level }, stream), lines };
}

const routes = [
  defineRoute({
    method: 'get',
    path: '/echo/:word',
    operationId: 'echo',
    summary: 'echo',
    params: z.object({ word: z.string().max(5) }),
    responses: { 200: { description: 'ok' } },
    handler: ({ params }, req) => {
      req.log.info({ word: params.word }, 'handler ran');
      return { word: params.word, id: req.id };
    },
  }),
];

function app(logger: Logger, redis?: Redis) {
  return createApp({
    service: 'log-test',
    version: '0',
    description: '',
    logger,
    routes,
    config: { CORS_ORIGINS: ['*'], TRUST_PROXY: 'false', RATE_LIMIT_PER_MINUTE: 100 },
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

  it('logs client errors at warn', async () => {
    const { logger, lines } = capturingLogger('info');
    await request(app(logger)).get('/echo/toolong').expect(400);
    await flush();
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 40, msg: 'request completed', res: { statusCode: 400 } }),
    );
  });

  it('sets helmet security headers on every response', async () => {
    const { logger } = capturingLogger('silent');
    const res = await request(app(logger)).get('/echo/hi').expect(200);
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['strict-transport-security']).toBeDefined();
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('a rate-limit store that is down lets requests through rather than failing them', async () => {
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
      await request(app(logger, redis)).get('/echo/hi').expect(200);
    } finally {
      redis.disconnect();
    }
  });
});
