import net from 'node:net';
import { z } from 'zod';
import { createTestApp, expectProblem, listenForTests } from '@nrp/testkit';
import { defineRoute, type RunningService } from '../src';

interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/** Writes `raw` on a fresh TCP connection and reads until the server closes it. */
function rawRequest(url: string, raw: string | Buffer): Promise<RawAnswer> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString();
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(
        lines.map((line) => [
          line.slice(0, line.indexOf(':')).toLowerCase(),
          line.slice(line.indexOf(':') + 1).trim(),
        ]),
      );
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.end(raw);
  });
}

describe("Node's HTTP parser errors answer problem+json", () => {
  let running: RunningService;

  beforeAll(async () => {
    const app = createTestApp({
      // A route that reads its body, so a request's broken body reaches the parser before any answer.
      routes: [
        defineRoute({
          method: 'post',
          path: '/echo',
          operationId: 'echo',
          budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
          summary: 'echo',
          body: z.object({ word: z.string() }),
          responses: { 200: { description: 'ok', schema: z.object({ word: z.string() }) } },
          handler: ({ body }) => body,
        }),
      ],
    });
    // runService's own server: its clientError handler is what answers the parser's errors.
    running = await listenForTests(app);
  });
  afterAll(() => running.shutdown());

  /** A problem answered by the parser's handler: the connection closes after it, its length announced. */
  function expectClosingProblem(answer: RawAnswer, status: number, code: string): void {
    expectProblem(answer, status, code);
    expect(answer.headers['content-type']).toBe('application/problem+json');
    expect(answer.headers.connection).toBe('close');
    expect(Number(answer.headers['content-length'])).toBe(Buffer.byteLength(answer.body));
  }

  it('a URL over 16 KB is 431 HEADERS_TOO_LARGE', async () => {
    const answer = await rawRequest(
      running.url,
      `GET /health?pad=${'a'.repeat(17 * 1024)} HTTP/1.1\r\nHost: x\r\n\r\n`,
    );
    expectClosingProblem(answer, 431, 'HEADERS_TOO_LARGE');
  });

  it('headers over 16 KB are 431 HEADERS_TOO_LARGE', async () => {
    const cookie = `Cookie: ${'c=1; '.repeat(4000)}\r\n`;
    const answer = await rawRequest(running.url, `GET /health HTTP/1.1\r\nHost: x\r\n${cookie}\r\n`);
    expectClosingProblem(answer, 431, 'HEADERS_TOO_LARGE');
  });

  it.each([
    ['a request line that is not HTTP', 'HELLO\r\n\r\n'],
    ['a header without a colon', 'GET /health HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'],
    [
      'a broken chunked body',
      'POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
    ],
    [
      'both Content-Length and chunked',
      'POST /h HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n',
    ],
  ])('%s is 400 MALFORMED_REQUEST', async (_what, raw) => {
    expectClosingProblem(await rawRequest(running.url, raw), 400, 'MALFORMED_REQUEST');
  });

  it('the server goes on serving after each of them', async () => {
    const answer = await rawRequest(
      running.url,
      'GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expect(answer.status).toBe(200);
    expect(answer.body).toContain('"status":"ok"');
  });
});
