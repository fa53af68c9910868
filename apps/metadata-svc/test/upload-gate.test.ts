import express from 'express';
import request from 'supertest';
import { problemErrorHandler } from '@nrp/validation';
import { uploadGate } from '../src/upload-gate';

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
});
