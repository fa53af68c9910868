/**
 * One server of the throughput rounds of `bench/resolver.ts` and `bench/offchain-throughput.ts`, in a process of its
 * own (as a service runs in production): `bare` (an Express route answering BENCH_BODY at `/profile`), `floor` (the
 * kit's `createApp` around a route answering the same JSON), `resolver` (resolver-svc built from BENCH_SERVICE_ENV)
 * or `offchain` (offchain-svc built from BENCH_SERVICE_ENV, with the subname BENCH_SEED written through its write
 * path). Reports its port, and on request the CPU time it has used, over IPC; exits when its parent goes.
 */
import type { AddressInfo } from 'node:net';
import express from 'express';
import { z } from 'zod';
import type { CreateSubnameData } from '@nrp/api';
import { createApp, createLogger, defineRoute, loadConfig } from '@nrp/server';
import { configSchema as offchainConfigSchema } from '../apps/offchain-svc/src/config';
import { createService as createOffchainService } from '../apps/offchain-svc/src/service';
import { applyWrites, toWrite } from '../apps/offchain-svc/src/subnames/writes';
import { startResolverService } from '../apps/resolver-svc/dev/fixture';

export type ThroughputServerKind = 'bare' | 'floor' | 'resolver' | 'offchain';

async function offchainApp(): Promise<express.Express> {
  const config = loadConfig(offchainConfigSchema, JSON.parse(process.env.BENCH_SERVICE_ENV ?? '{}'));
  const { app, context } = await createOffchainService(config, createLogger('bench-offchain', 'silent'));
  const seed = JSON.parse(process.env.BENCH_SEED ?? 'null') as CreateSubnameData | null;
  if (seed) {
    await context.events.transaction(context.db, (trx) => applyWrites(trx, context.events, [toWrite(seed)]));
  }
  return app;
}

async function buildApp(kind: string): Promise<express.Express> {
  if (kind === 'resolver')
    return (await startResolverService(JSON.parse(process.env.BENCH_SERVICE_ENV ?? '{}'))).app;
  if (kind === 'offchain') return offchainApp();
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
