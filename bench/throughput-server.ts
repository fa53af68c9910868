/**
 * One server of `bench/resolver.ts`'s throughput rounds, in a process of its own (as a service runs in production):
 * `bare` (an Express route answering the warm profile's JSON), `floor` (the kit's `createApp` around a route
 * answering the same JSON) or `resolver` (resolver-svc built from BENCH_SERVICE_ENV). Reports its port, and on request
 * the CPU time it has used, over IPC; exits when its parent goes.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { z } from 'zod';
import { createApp, createLogger, defineRoute } from '@nrp/server';
import { startResolverService } from '../apps/resolver-svc/dev/fixture';

export type ThroughputServerKind = 'bare' | 'floor' | 'resolver';

async function buildApp(kind: string): Promise<express.Express> {
  if (kind === 'resolver')
    return (await startResolverService(JSON.parse(process.env.BENCH_SERVICE_ENV ?? '{}'))).app;
  const body: unknown = JSON.parse(process.env.BENCH_BODY ?? 'null');
  if (kind === 'bare') {
    const app = express();
    app.get('/profile', (_req, res) => {
      res.json(body);
    });
    return app;
  }
  return createApp({
    service: 'bench-floor',
    version: '0',
    description: '',
    logger: createLogger('bench-floor', 'silent'),
    routes: [
      defineRoute({
        method: 'get',
        path: '/profile',
        operationId: 'floor',
        budget: { bodyBytes: 100 * 1024, answerBytes: 1024 * 1024, timeMs: 10_000 },
        summary: 'floor',
        responses: { 200: { description: 'The warm profile body', schema: z.unknown() } },
        handler: () => body,
      }),
    ],
    config: { CORS_ORIGINS: ['*'], TRUST_PROXY: 'false', RATE_LIMIT_PER_MINUTE: 1_000_000 },
  });
}

buildApp(process.argv[2] ?? '').then(
  (app) => {
    const server = app.listen(0, '127.0.0.1', () => {
      process.send?.({ port: (server.address() as AddressInfo).port });
    });
    // The bench asks for the CPU this process has used, to tell the server's share of a round from the loader's.
    process.on('message', () => {
      const { user, system } = process.cpuUsage();
      process.send?.({ cpuMicros: user + system });
    });
    process.on('disconnect', () => process.exit(0));
  },
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
