import type { AddressInfo } from 'node:net';
import express from 'express';
import { z } from 'zod';
import type { RouteDefinition } from '@nrp/server';
import { problemErrorHandler } from '@nrp/validation';
import { hostileInputFindings } from '../src';

/** Copies boolean flags with a careless deep merge, which follows `__proto__` like any other member. */
function carelessMerge(target: Record<string, unknown>, source: unknown): void {
  if (!source || typeof source !== 'object') return;
  for (const [key, value] of Object.entries(source)) {
    if (typeof value === 'boolean') target[key] = value;
    else if (value && typeof value === 'object') {
      const inner = target[key];
      if (inner && typeof inner === 'object') carelessMerge(inner as Record<string, unknown>, value);
    }
  }
}

// A file of its own, with a bare Express app and no @nrp/server runtime: the platform's metrics (prom-client) would
// themselves trip over the polluted prototype before the generator could report it.
describe('hostileInputFindings and prototype pollution', () => {
  it('finds a merge that pollutes Object.prototype, and cleans it up', async () => {
    const app = express();
    app.use(express.json());
    app.post('/merges', (req, res) => {
      carelessMerge({}, req.body);
      res.json({ ok: true });
    });
    app.use(problemErrorHandler({ error: () => undefined }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const route: RouteDefinition = {
      method: 'post',
      path: '/merges',
      operationId: 'merges',
      budget: { bodyBytes: 100 * 1024, answerBytes: 1024, timeMs: 10_000 },
      summary: 'merges the body into a settings object',
      // Loose: this route takes any member (the unknown-member probe is not what this test is about).
      body: z.looseObject({ name: z.string().optional() }),
      responses: { 200: { description: 'ok' } },
      handler: () => undefined,
    };
    try {
      const findings = await hostileInputFindings({
        url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        routes: [route],
        fingerprint: async () => '',
        runsPerRoute: 100,
        seed: 42,
      });
      expect(findings.map((f) => f.problem)).toEqual(['Object.prototype gained polluted, isAdmin']);
      expect(Object.hasOwn(Object.prototype, 'polluted')).toBe(false);
    } finally {
      server.close();
    }
  });
});
