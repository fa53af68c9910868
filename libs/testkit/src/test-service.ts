import type { z } from 'zod';
import {
  createApp,
  createLogger,
  loadConfig,
  runService,
  type AppOptions,
  type BaseConfig,
  type RunningService,
  type ServiceContext,
  type ServiceFactory,
  type ServiceInstance,
  type ServiceOverrides,
} from '@nrp/server';
import { createTestDatabase, type TestDatabase, type TestDatabaseOptions } from './database';

/** A service clock the test moves: the wall clock plus `offsetMs`. */
export interface TestClock {
  offsetMs: number;
  now(): Date;
  advance(ms: number): void;
}

export function createTestClock(): TestClock {
  const clock: TestClock = {
    offsetMs: 0,
    now: () => new Date(Date.now() + clock.offsetMs),
    advance: (ms) => {
      clock.offsetMs += ms;
    },
  };
  return clock;
}

export interface StartTestServiceOptions<
  S extends z.ZodType<BaseConfig>,
  Context extends ServiceContext,
  Overrides extends object,
> {
  createService: ServiceFactory<z.output<S>, Context, Overrides>;
  configSchema: S;
  /** The service's environment; `LOG_LEVEL` is `silent` unless given. */
  env?: Record<string, string>;
  /** The database, blob store or clock the test hands in; the service does not close them. */
  overrides?: Overrides;
  /** What the test handed in and the harness closes after the service has stopped (its database, say). */
  handedIn?: Array<{ close(): Promise<void> }>;
}

export interface TestService<C extends BaseConfig, Context extends ServiceContext> {
  app: ServiceInstance<Context>['app'];
  config: C;
  context: Context;
  /** The routes the app serves besides the shared endpoints (the hostile-input tests send to every one). */
  routes: ServiceInstance<Context>['routes'];
  instance: ServiceInstance<Context>;
  /** The service's shutdown steps (workers, then what it opened), then what the test handed in. */
  close(): Promise<void>;
}

/** A service built by its own `createService` from `env`, not listening (use supertest, or `app.listen`). */
export async function startTestService<
  S extends z.ZodType<BaseConfig>,
  Context extends ServiceContext,
  Overrides extends object,
>(opts: StartTestServiceOptions<S, Context, Overrides>): Promise<TestService<z.output<S>, Context>> {
  const config = loadConfig(opts.configSchema, { LOG_LEVEL: 'silent', ...opts.env });
  const instance = await opts.createService(config, createLogger('test', 'silent'), opts.overrides);
  let closed: Promise<void> | undefined;
  return {
    app: instance.app,
    config,
    context: instance.context,
    routes: instance.routes,
    instance,
    close: () =>
      (closed ??= (async () => {
        for (const step of instance.onShutdown) await step();
        for (const resource of opts.handedIn ?? []) await resource.close();
      })()),
  };
}

/**
 * A service on a fresh test database of its own (`createTestDatabase(database)`: PostgreSQL from DATABASE_URL, or
 * PGlite), handed in as `overrides.database` and closed by `close()` after the service. The caller names the service
 * (`createService`, `configSchema`), so a service's tests can start a peer service without its test files.
 */
export async function startTestServiceOnDatabase<
  S extends z.ZodType<BaseConfig>,
  Context extends ServiceContext,
  DB,
>(
  opts: Omit<StartTestServiceOptions<S, Context, ServiceOverrides<DB>>, 'handedIn'> & {
    database?: TestDatabaseOptions;
  },
): Promise<TestService<z.output<S>, Context> & { db: TestDatabase<DB> }> {
  const db = await createTestDatabase<DB>(opts.database);
  try {
    const service = await startTestService({
      createService: opts.createService,
      configSchema: opts.configSchema,
      env: opts.env,
      overrides: { ...opts.overrides, database: db },
      handedIn: [db],
    });
    return { ...service, db };
  } catch (err) {
    await db.close();
    throw err;
  }
}

/**
 * `app` listening on 127.0.0.1 at a free port the way `runService` runs it in production (its client-error answers,
 * keep-alive, draining), for tests that send over the network; `shutdown()` stops it.
 */
export function listenForTests(app: ServiceInstance['app']): Promise<RunningService> {
  return runService({
    app,
    port: 0,
    host: '127.0.0.1',
    logger: createLogger('test', 'silent'),
    graceMs: 1000,
    handleSignals: false,
  });
}

/**
 * The kit's app around `routes` for tests of the kit and of middleware: a silent logger, CORS for every origin, no
 * trusted proxy and a limit no test reaches, unless `options` say otherwise.
 */
export function createTestApp(
  options: Partial<AppOptions> & Pick<AppOptions, 'routes'>,
): ServiceInstance['app'] {
  return createApp({
    service: 'test',
    version: '0',
    description: '',
    logger: createLogger('test', 'silent'),
    config: { CORS_ORIGINS: ['*'], TRUST_PROXY: 'false', RATE_LIMIT_PER_MINUTE: 100_000 },
    ...options,
  });
}
