import net from 'node:net';
import type { RequestHandler } from 'express';
import { z } from 'zod';
import { commonProblems, ProblemError } from '@nrp/validation';
import { createTestApp, listenForTests } from '@nrp/testkit';
import { createApp, createLogger, defineRoute, MAX_ANSWER_BYTES, type RunningService } from '../src';

interface HeadAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
  /** Whether the server closed the connection after the answer. */
  closed: boolean;
}

/**
 * Sends `head` (request line and headers) and then only what `body` writes, keeping the connection open: resolves
 * with the answer once the server closed the connection or sent the whole body it announced.
 */
function answerTo(url: string, head: string, body?: (socket: net.Socket) => void): Promise<HeadAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const parse = (closed: boolean): HeadAnswer | undefined => {
      const text = Buffer.concat(chunks).toString();
      const split = text.indexOf('\r\n\r\n');
      if (split < 0) return undefined;
      const [statusLine = '', ...lines] = text.slice(0, split).split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      const content = text.slice(split + 4);
      if (!closed && content.length < Number(headers['content-length'])) return undefined;
      return { status: Number(statusLine.split(' ')[1]), headers, body: content, closed };
    };
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      const answer = parse(true);
      if (answer) resolve(answer);
      else reject(new Error('the connection closed without an answer'));
    });
    socket.on('connect', () => {
      socket.write(head);
      body?.(socket);
    });
  });
}

const AUTH: RequestHandler = (req, _res, next) => {
  if (req.headers['x-auth-token'] !== 'good') throw new ProblemError(commonProblems.UNAUTHORIZED, 'No key.');
  next();
};

describe('route budgets', () => {
  let running: RunningService;
  let release: () => void = () => undefined;
  let slowCalls = 0;

  beforeAll(async () => {
    const app = createTestApp({
      routes: [
        defineRoute({
          method: 'post',
          path: '/keyed',
          operationId: 'keyed',
          summary: 'an authenticated route with a JSON body',
          security: 'apiKey',
          budget: { bodyBytes: 1024, answerBytes: 4 * 1024, timeMs: 10_000 },
          body: z.object({ word: z.string() }),
          before: [AUTH],
          responses: { 200: { description: 'ok', schema: z.object({ word: z.string() }) } },
          handler: ({ body }) => body,
        }),
        defineRoute({
          method: 'get',
          path: '/slow',
          operationId: 'slow',
          summary: 'answers after its time budget',
          budget: { bodyBytes: 0, answerBytes: 1024, timeMs: 200 },
          responses: { 200: { description: 'ok', schema: z.object({ late: z.boolean() }) } },
          handler: async () => {
            await new Promise((resolve) => setTimeout(resolve, 600));
            return { late: true };
          },
        }),
        defineRoute({
          method: 'get',
          path: '/slower',
          operationId: 'slower',
          summary: 'answers after its longer time budget',
          budget: { bodyBytes: 0, answerBytes: 1024, timeMs: 800 },
          responses: { 200: { description: 'ok', schema: z.object({ late: z.boolean() }) } },
          handler: async () => {
            await new Promise((resolve) => setTimeout(resolve, 1500));
            return { late: true };
          },
        }),
        defineRoute({
          method: 'get',
          path: '/expensive',
          operationId: 'expensive',
          summary: 'holds its pool slot until released',
          budget: {
            bodyBytes: 0,
            answerBytes: 1024,
            timeMs: 10_000,
            concurrency: { name: 'work', limit: 1 },
          },
          responses: { 200: { description: 'ok', schema: z.object({ done: z.boolean() }) } },
          handler: async () => {
            slowCalls += 1;
            await new Promise<void>((resolve) => {
              release = resolve;
            });
            return { done: true };
          },
        }),
        defineRoute({
          method: 'get',
          path: '/big',
          operationId: 'big',
          summary: 'answers more than its budget',
          budget: { bodyBytes: 0, answerBytes: 1024, timeMs: 10_000 },
          responses: { 200: { description: 'ok', schema: z.object({ text: z.string() }) } },
          handler: () => ({ text: 'x'.repeat(2000) }),
        }),
      ],
    });
    running = await listenForTests(app);
  });
  afterAll(async () => {
    release();
    await running.shutdown();
  });

  it('answers 401 to a request without a key as soon as its headers arrive, and closes the connection', async () => {
    // 430 MB announced, not one byte of it sent: the answer cannot wait for the body.
    const answer = await answerTo(
      running.url,
      'POST /keyed HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 430000000\r\n\r\n',
    );
    expect(answer.status).toBe(401);
    expect(answer.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'UNAUTHORIZED' });
    expect(answer.headers.connection).toBe('close');
    expect(answer.closed).toBe(true);
  });

  it('answers 413 to a declared body over the budget before reading it', async () => {
    const answer = await answerTo(
      running.url,
      'POST /keyed HTTP/1.1\r\nHost: x\r\nx-auth-token: good\r\nContent-Type: application/json\r\n' +
        'Content-Length: 430000000\r\n\r\n',
    );
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(answer.closed).toBe(true);
  });

  it('answers 413 to a chunked body once it passes the budget, without waiting for its end', async () => {
    const answer = await answerTo(
      running.url,
      'POST /keyed HTTP/1.1\r\nHost: x\r\nx-auth-token: good\r\nContent-Type: application/json\r\n' +
        'Transfer-Encoding: chunked\r\n\r\n',
      // 2 KB of a body that never ends.
      (socket) => socket.write(`800\r\n{"word":"${'a'.repeat(2036)}\r\n`),
    );
    expect(answer.status).toBe(413);
    expect(JSON.parse(answer.body)).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(answer.closed).toBe(true);
  });

  it('reads a body within the budget, and refuses other charsets and encodings with 415', async () => {
    const post = (headers: Record<string, string>) =>
      fetch(`${running.url}/keyed`, {
        method: 'POST',
        headers: { 'x-auth-token': 'good', 'content-type': 'application/json', ...headers },
        body: JSON.stringify({ word: 'hello' }),
      });
    const ok = await post({});
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ word: 'hello' });
    const refusedHeaders: Array<Record<string, string>> = [
      { 'content-type': 'application/json; charset=utf-16' },
      { 'content-encoding': 'gzip' },
    ];
    for (const headers of refusedHeaders) {
      const refused = await post(headers);
      expect(refused.status).toBe(415);
      expect(await refused.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    }
  });

  it('answers 503 TIME_BUDGET_EXCEEDED with Retry-After when the answer has not started in time', async () => {
    const res = await fetch(`${running.url}/slow`);
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    expect(await res.json()).toMatchObject({ code: 'TIME_BUDGET_EXCEEDED' });
    // The handler's late answer does not disturb the next request.
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect((await fetch(`${running.url}/health`)).status).toBe(200);
  });

  it('holds each request to its own deadline: a shorter budget started later runs out first', async () => {
    const answered: string[] = [];
    const settle = (path: string) =>
      fetch(`${running.url}${path}`).then(async (res) => {
        answered.push(path);
        expect(res.status).toBe(503);
        expect(await res.json()).toMatchObject({ code: 'TIME_BUDGET_EXCEEDED' });
      });
    const slower = settle('/slower');
    await new Promise((resolve) => setTimeout(resolve, 50));
    await Promise.all([slower, settle('/slow')]);
    expect(answered).toEqual(['/slow', '/slower']);
    await new Promise((resolve) => setTimeout(resolve, 1500));
  });

  it('answers 503 CONCURRENCY_LIMIT_REACHED with Retry-After while the pool is full, and serves again after', async () => {
    const first = fetch(`${running.url}/expensive`);
    while (slowCalls === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    const refused = await fetch(`${running.url}/expensive`);
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('1');
    expect(await refused.json()).toMatchObject({ code: 'CONCURRENCY_LIMIT_REACHED' });
    expect(slowCalls).toBe(1);
    release();
    expect((await first).status).toBe(200);
    const again = fetch(`${running.url}/expensive`);
    while (slowCalls === 1) await new Promise((resolve) => setTimeout(resolve, 10));
    release();
    expect((await again).status).toBe(200);
  });

  it('never sends an answer over the budget: the route bug is a 500', async () => {
    const res = await fetch(`${running.url}/big`);
    expect(res.status).toBe(500);
    const body = await res.text();
    expect(body.length).toBeLessThan(1024);
    expect(JSON.parse(body)).toMatchObject({ code: 'INTERNAL_ERROR' });
  });

  it('writes each budget into the OpenAPI description and `x-budget`, with the problems it adds', async () => {
    const doc = (await (await fetch(`${running.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { description: string; 'x-budget': unknown; responses: object }>>;
    };
    const keyed = doc.paths['/keyed']?.post;
    expect(keyed?.description).toMatch(/\*\*Budget:\*\* body at most 1 KB.*answer at most 4 KB.*within 10 s/);
    expect(keyed?.['x-budget']).toEqual({ bodyBytes: 1024, answerBytes: 4096, timeMs: 10_000 });
    expect(Object.keys(keyed?.responses ?? {})).toEqual(expect.arrayContaining(['413', '503']));
    expect(doc.paths['/expensive']?.get?.description).toMatch(/at most 1 at once per replica \(pool `work`/);
  });

  it('refuses to build a route whose budget cannot hold', () => {
    const build = (budget: Parameters<typeof defineRoute>[0]['budget'], body?: z.ZodType) => () =>
      createApp({
        service: 't',
        version: '0',
        description: '',
        logger: createLogger('t', 'silent'),
        config: { CORS_ORIGINS: [], TRUST_PROXY: 'false', RATE_LIMIT_PER_MINUTE: 10 },
        routes: [
          defineRoute({
            method: 'post',
            path: '/x',
            operationId: 'x',
            summary: 'x',
            budget,
            body,
            responses: { 204: { description: 'none' } },
            handler: () => undefined,
          }),
        ],
      });
    expect(build({ bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES + 1, timeMs: 1 })).toThrow(/above/);
    expect(build({ bodyBytes: 0, answerBytes: 1, timeMs: 1 }, z.object({}))).toThrow(/bodyBytes/);
  });
});
