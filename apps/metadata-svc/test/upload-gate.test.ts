import { Writable } from 'node:stream';
import express from 'express';
import request from 'supertest';
import { z } from 'zod';
import { createLogger, defineRoute } from '@nrp/server';
import { createTestApp } from '@nrp/testkit';
import { problemErrorHandler } from '@nrp/validation';
import { uploadGate } from '../src/uploads/upload-gate';

describe('uploadGate', () => {
  it('lets `concurrency` requests through, queues `queueMax`, refuses the rest with 503, and hands slots on', async () => {
    const releases: Array<() => void> = [];
    let running = 0;
    let maxRunning = 0;
    const app = express();
    app.post('/u', uploadGate(2, 1), async (_req, res) => {
      running++;
      maxRunning = Math.max(maxRunning, running);
      await new Promise<void>((resolve) => releases.push(resolve));
      running--;
      res.json({ ok: true });
    });
    app.use(problemErrorHandler({ error: () => undefined }));
    const server = app.listen(0);
    try {
      const started = [1, 2, 3].map(() =>
        request(server)
          .post('/u')
          .then((r) => r.status),
      );
      // Wait until two handlers run and the third waits in the queue.
      while (releases.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      const refused = await request(server).post('/u');
      expect(refused.status).toBe(503);
      expect(refused.headers['retry-after']).toBe('1');
      expect(refused.body.code).toBe('SERVICE_UNAVAILABLE');
      releases.shift()?.();
      while (releases.length < 2) await new Promise((resolve) => setTimeout(resolve, 5));
      releases.splice(0).forEach((release) => release());
      expect(await Promise.all(started)).toEqual([200, 200, 200]);
      expect(maxRunning).toBe(2);
    } finally {
      server.close();
    }
  });

  it('runs a queued upload in its own request scope: its log lines carry its own request id', async () => {
    const lines: Array<{ msg: string; reqId?: string; upload?: string }> = [];
    const logger = createLogger(
      'upload-gate-test',
      'info',
      new Writable({
        write(chunk: Buffer, _encoding, done) {
          lines.push(JSON.parse(chunk.toString()) as (typeof lines)[number]);
          done();
        },
      }),
    );
    const releases: Array<() => void> = [];
    const app = createTestApp({
      logger,
      routes: [
        defineRoute({
          method: 'post',
          path: '/u/:upload',
          operationId: 'upload',
          budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
          summary: 'An upload',
          params: z.object({ upload: z.string() }),
          responses: { 200: { description: 'Done', schema: z.object({ ok: z.boolean() }) } },
          before: [uploadGate(1, 5)],
          handler: async ({ params }) => {
            logger.info({ upload: params.upload }, 'upload admitted');
            await new Promise<void>((resolve) => releases.push(resolve));
            return { ok: true };
          },
        }),
      ],
    });
    const server = app.listen(0);
    try {
      const first = request(server).post('/u/first').set('x-request-id', 'req-first');
      const firstDone = first.then((r) => r.status);
      while (releases.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
      // Queued behind the first: admitted from the first request's 'close', outside its own scope.
      const queuedDone = request(server)
        .post('/u/queued')
        .set('x-request-id', 'req-queued')
        .then((r) => r.status);
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(releases).toHaveLength(1);
      releases.shift()?.();
      while (releases.length < 1) await new Promise((resolve) => setTimeout(resolve, 5));
      releases.shift()?.();
      expect([await firstDone, await queuedDone]).toEqual([200, 200]);
      const admitted = lines.filter((line) => line.msg === 'upload admitted');
      expect(admitted.map((line) => [line.upload, line.reqId])).toEqual([
        ['first', 'req-first'],
        ['queued', 'req-queued'],
      ]);
    } finally {
      server.close();
    }
  });
});
