import type { Express } from 'express';
import type { z } from 'zod';
import { MigrationError, type DatabaseHandle } from '@nrp/db';
import type { BlobStore } from '@nrp/storage';
import { type BaseConfig, loadConfig, redactConfig } from './config';
import { createLogger, type Logger } from './logger';
import { releaseMemoryWhenIdle } from './idle-memory';
import { collectProcessMetrics, type ServiceMetrics } from './metrics';
import { notMigratedInstance } from './not-migrated';
import type { RouteDefinition } from './route';
import { exitOnStartupError, runService, type RunningService } from './run';

/**
 * What a caller (a test, a bench) hands a service instead of what its config describes. A service takes the members
 * that apply to it (`Pick<ServiceOverrides<Db>, 'database' | 'now'>`). What is handed in stays the caller's: the
 * service migrates a database it is given but never closes it; it closes only what it opened itself.
 */
export interface ServiceOverrides<Db = unknown> {
  database?: DatabaseHandle<Db>;
  blobs?: BlobStore;
  /** The service's clock. */
  now?: () => Date;
}

/**
 * Every service's context holds at least its config and logger, beside what its routes and domain code use (its
 * database as `db`, its clock as `now`, its chain access as `networks`, where it has them).
 */
export interface ServiceContext<C extends BaseConfig = BaseConfig> {
  config: C;
  logger: Logger;
}

/**
 * Runs a service's start-up steps (migrations, a bootstrap key, a listing file) after it opened what `onShutdown`
 * closes: if a step fails, that is closed before the error goes on, so a service that does not start leaks nothing.
 */
export async function startUpSteps(
  onShutdown: ReadonlyArray<() => Promise<void>>,
  steps: () => Promise<unknown>,
): Promise<void> {
  try {
    await steps();
  } catch (err) {
    for (const close of onShutdown) await close();
    throw err;
  }
}

/**
 * What a service's factory builds from its config: the app, its build version, what it opened and must close when
 * it stops (workers first), and the context its routes were built with.
 */
export interface ServiceInstance<Context extends ServiceContext = ServiceContext> {
  app: Express;
  /** The service package's version, logged at start. */
  version: string;
  onShutdown: Array<() => Promise<void>>;
  /** The routes the app serves (besides the shared endpoints), for tests that exercise every one. */
  routes: RouteDefinition[];
  context: Context;
  /** The registry the app serves at /metrics; `startService` adds the process metrics to it. */
  metrics: ServiceMetrics;
}

/** Every service's `createService(config, logger, overrides?)`; `main` and the dev stack hand in no overrides. */
export type ServiceFactory<
  C extends BaseConfig,
  Context extends ServiceContext = ServiceContext,
  Overrides extends object = never,
> = (config: C, logger: Logger, overrides?: Overrides) => Promise<ServiceInstance<Context>>;

/**
 * Builds and runs a service from a parsed config (used by `main.ts` and by the dev stack). When its migrations fail
 * it runs not ready, `/ready` saying why (`notMigratedInstance`), rather than exiting.
 */
export async function startService<C extends BaseConfig>(
  name: string,
  config: C,
  factory: ServiceFactory<C>,
  options: { handleSignals?: boolean } = {},
): Promise<RunningService & { logger: Logger }> {
  const logger = createLogger(name, config.LOG_LEVEL);
  const { app, version, onShutdown, metrics } = await factory(config, logger).catch((err: unknown) => {
    if (!(err instanceof MigrationError)) throw err;
    logger.error({ err }, 'migrations failed: not ready until restarted');
    return notMigratedInstance(name, config, logger, err);
  });
  collectProcessMetrics(metrics.registry);
  logger.info({ version, node: process.version, config: redactConfig(config) }, 'starting');
  const running = await runService({
    app,
    port: config.PORT,
    host: config.HOST,
    logger,
    onShutdown,
    graceMs: config.SHUTDOWN_GRACE_MS,
    handleSignals: options.handleSignals,
  });
  releaseMemoryWhenIdle(running.server, {
    idleMs: config.IDLE_MEMORY_RELEASE_MS,
    logger,
    registry: metrics.registry,
  });
  return { ...running, logger };
}

/** The whole of a service's `main.ts`: config from the environment, then run; a bad config is one line and exit 1. */
export function main<S extends z.ZodType<BaseConfig>>(
  name: string,
  schema: S,
  factory: ServiceFactory<z.output<S>>,
): void {
  try {
    const config = loadConfig(schema);
    startService(name, config, factory).catch(exitOnStartupError);
  } catch (err) {
    exitOnStartupError(err);
  }
}
