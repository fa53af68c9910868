import http from 'node:http';
import { z } from 'zod';
import { createApp, createLogger, defineRoute, runService } from '../src';

function get(url: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, (res) => {
        let body = '';
        res.on('data', (chunk: Buffer) => (body += chunk.toString()));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
      })
      .on('error', reject);
  });
}

describe('runService graceful shutdown', () => {
  it('drains in-flight requests, refuses new ones, then closes dependencies', async () => {
    const closed: string[] = [];
    let markStarted: () => void = () => undefined;
    const started = new Promise<void>((resolve) => (markStarted = resolve));
    const app = createApp({
      service: 'shutdown-test',
      version: '0.0.0',
      description: '',
      logger: createLogger('test', 'silent'),
      config: { CORS_ORIGINS: ['*'], TRUST_PROXY: 'false', RATE_LIMIT_PER_MINUTE: 100 },
      routes: [
        defineRoute({
          method: 'get',
          path: '/slow',
          operationId: 'slow',
          budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
          summary: 'slow',
          query: z.object({}),
          responses: { 200: { description: 'ok', schema: z.object({ done: z.boolean() }) } },
          handler: async () => {
            markStarted();
            await new Promise((resolve) => setTimeout(resolve, 300));
            return { done: true };
          },
        }),
      ],
    });
    const running = await runService({
      app,
      port: 0,
      host: '127.0.0.1',
      logger: createLogger('test', 'silent'),
      graceMs: 5000,
      onShutdown: [async () => void closed.push('db')],
    });
    const inFlight = get(`${running.url}/slow`);
    await started;
    const stopping = running.shutdown('test');
    await expect(get(`${running.url}/health`)).rejects.toThrow(/ECONNREFUSED/);
    expect(await inFlight).toEqual({ status: 200, body: '{"done":true}' });
    await stopping;
    expect(closed).toEqual(['db']);
  });
});
