import { Writable } from 'node:stream';
import request from 'supertest';
import { z } from 'zod';
import type { RequestHandler } from 'express';
import { commonProblems, ProblemError } from '@nrp/validation';
import { createApp, createLogger, defineRoute, RequestValue } from '../src';

interface Caller {
  name: string;
  level: number;
}

const caller = new RequestValue<Caller>('the caller identifyCaller verified');

/** Sets the caller after an await, as a credential check does once it has read the database. */
const identifyCaller: RequestHandler = async (req, _res, next) => {
  await new Promise((resolve) => setTimeout(resolve, 1));
  const name = req.headers['x-caller'];
  if (typeof name !== 'string') throw new ProblemError(commonProblems.UNAUTHORIZED, 'Say who you are.');
  caller.set(req, { name, level: name.length });
  next();
};

const answer = z.object({ name: z.string(), level: z.number() });
const budget = { bodyBytes: 0, answerBytes: 1024, timeMs: 10_000 };

const routes = [
  defineRoute({
    method: 'get',
    path: '/me',
    operationId: 'me',
    budget,
    summary: 'The caller',
    before: [identifyCaller],
    responses: { 200: { description: 'ok', schema: answer } },
    handler: (_input, req) => {
      const { name, level } = caller.of(req);
      return { name, level };
    },
  }),
  defineRoute({
    method: 'get',
    path: '/forgot',
    operationId: 'forgot',
    budget,
    summary: 'Reads the caller without the middleware that sets it',
    responses: { 200: { description: 'never', schema: answer } },
    handler: (_input, req) => caller.of(req),
  }),
];

function appWithLog() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  const app = createApp({
    service: 'request-value-test',
    version: '0.0.0',
    description: 'test',
    logger: createLogger('request-value-test', 'error', stream),
    routes,
    config: { CORS_ORIGINS: [], TRUST_PROXY: 'false', RATE_LIMIT_PER_MINUTE: 1000 },
  });
  return { app, lines };
}

describe('RequestValue', () => {
  it('hands the value its route middleware set to the handler, per request', async () => {
    const { app } = appWithLog();
    const [alice, bob] = await Promise.all([
      request(app).get('/me').set('x-caller', 'alice').expect(200),
      request(app).get('/me').set('x-caller', 'bo').expect(200),
    ]);
    expect(alice.body).toEqual({ name: 'alice', level: 5 });
    expect(bob.body).toEqual({ name: 'bo', level: 2 });
    await request(app).get('/me').expect(401);
  });

  it('a handler reading a value its route does not set is a 500 whose log names the value', async () => {
    const { app, lines } = appWithLog();
    const res = await request(app).get('/forgot').set('x-caller', 'alice').expect(500);
    expect(res.body.code).toBe('INTERNAL_ERROR');
    expect(JSON.stringify(lines)).toContain(
      "the caller identifyCaller verified was not set for GET /forgot: the route's before does not set it",
    );
  });
});
