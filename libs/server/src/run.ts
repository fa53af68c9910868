import type { Server } from 'node:http';
import type { Express } from 'express';
import { clientErrorHandler } from './client-error';
import { ConfigError } from './config';
import type { Logger } from './logger';

export interface RunOptions {
  app: Express;
  port: number;
  host: string;
  logger: Logger;
  /** Closed in order after the server has drained: pools, clients, workers. */
  onShutdown?: Array<() => Promise<void>>;
  graceMs: number;
  /** Default true. The dev stack runs several services in one process and handles signals itself. */
  handleSignals?: boolean;
}

export interface RunningService {
  server: Server;
  url: string;
  shutdown(signal?: string): Promise<void>;
}

/** Listens, and on SIGTERM/SIGINT stops accepting, drains in-flight requests, then closes dependencies. */
export async function runService(options: RunOptions): Promise<RunningService> {
  const { app, logger } = options;
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(options.port, options.host, () => resolve(s));
    s.once('error', reject);
  });
  server.on('clientError', clientErrorHandler(logger));
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : options.port;
  const url = `http://${options.host === '0.0.0.0' ? '127.0.0.1' : options.host}:${port}`;
  logger.info({ url }, 'listening');

  let closing: Promise<void> | undefined;
  const shutdown = (signal = 'shutdown'): Promise<void> => {
    closing ??= (async () => {
      logger.info({ signal }, 'draining');
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      const timer = setTimeout(() => server.closeAllConnections(), options.graceMs);
      await drained;
      clearTimeout(timer);
      for (const close of options.onShutdown ?? []) {
        try {
          await close();
        } catch (err) {
          logger.error({ err }, 'error while closing a dependency');
        }
      }
      logger.info('stopped');
    })();
    return closing;
  };
  if (options.handleSignals ?? true) {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      process.once(signal, () => {
        void shutdown(signal).then(() => process.exit(0));
      });
    }
  }
  return { server, url, shutdown };
}

/** For `main.ts`: a config error is one line on stderr and exit code 1; anything else is logged with its stack. */
export function exitOnStartupError(err: unknown): never {
  if (err instanceof ConfigError) {
    console.error(err.message);
  } else {
    console.error('Failed to start:', err);
  }
  process.exit(1);
}
