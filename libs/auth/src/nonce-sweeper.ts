import type { PgNonceStore } from './nonce-store';

/** What the sweeper logs; a pino logger fits. */
export interface SweeperLogger {
  debug(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/**
 * Deletes expired nonces every `intervalMs` (0 disables), so the nonce table stays the size of the live nonces.
 * Never two sweeps at once; a failed sweep is logged and the next one runs on time. The returned function stops
 * the timer and waits for a sweep in progress, so shutdown can close the database afterwards.
 */
export function startNonceSweeper(
  store: Pick<PgNonceStore, 'sweepExpired'>,
  intervalMs: number,
  logger: SweeperLogger,
  now: () => Date = () => new Date(),
): () => Promise<void> {
  if (!Number.isInteger(intervalMs) || intervalMs < 0) {
    throw new RangeError('intervalMs must be a non-negative integer');
  }
  if (intervalMs === 0) return async () => undefined;
  let running: Promise<void> | undefined;
  let stopped = false;
  const timer = setInterval(() => {
    if (running || stopped) return;
    running = store
      .sweepExpired(now())
      .then(
        (deleted) => logger.debug({ deleted }, 'expired nonces swept'),
        (err: unknown) => logger.error({ err }, 'nonce sweep failed'),
      )
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return async () => {
    stopped = true;
    clearInterval(timer);
    await running;
  };
}
