import type { Express } from 'express';
import type { MigrationError } from '@nrp/db';
import { createApp, NotReady } from './app';
import type { BaseConfig } from './config';
import type { Logger } from './logger';
import { createServiceMetrics, type ServiceMetrics } from './metrics';

/**
 * What a service serves when its migrations failed (and changed nothing, being one transaction): the shared
 * endpoints only, `/health` ok and `/ready` 503 naming the migration and its error, so that a rolling deploy waits
 * on this pod (the previous release keeps serving) and the operator reads why. It stays so until restarted.
 */
export function notMigratedInstance(
  service: string,
  config: BaseConfig,
  logger: Logger,
  failure: MigrationError,
): { app: Express; version: string; onShutdown: Array<() => Promise<void>>; metrics: ServiceMetrics } {
  const metrics = createServiceMetrics(service);
  const version = 'not migrated';
  const app = createApp({
    service,
    version,
    description: `The migrations of ${service} failed, so it serves no route: ${failure.message}`,
    logger,
    routes: [],
    readiness: { migrations: () => Promise.reject(new NotReady(failure.message)) },
    config,
    metrics,
  });
  return { app, version, onShutdown: [], metrics };
}
