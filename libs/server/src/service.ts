import type { Express } from 'express';
import type { z } from 'zod';
import { type BaseConfig, loadConfig, redactConfig } from './config';
import { createLogger, type Logger } from './logger';
import type { RouteDefinition } from './route';
import { exitOnStartupError, runService, type RunningService } from './run';

/** What a service's factory builds from its config: the app, its build version and what must be closed when it stops. */
export interface ServiceInstance {
  app: Express;
  /** The service package's version, logged at start. */
  version: string;
  onShutdown: Array<() => Promise<void>>;
  /** The routes the app serves (besides the shared endpoints), for tests that exercise every one. */
  routes: RouteDefinition[];
}

export type ServiceFactory<C extends BaseConfig> = (config: C, logger: Logger) => Promise<ServiceInstance>;

/** Builds and runs a service from a parsed config (used by `main.ts` and by the dev stack). */
export async function startService<C extends BaseConfig>(
  name: string,
  config: C,
  factory: ServiceFactory<C>,
  options: { handleSignals?: boolean } = {},
): Promise<RunningService & { logger: Logger }> {
  const logger = createLogger(name, config.LOG_LEVEL);
  const { app, version, onShutdown } = await factory(config, logger);
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
