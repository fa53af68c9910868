/** What a periodic task logs; a pino logger fits. */
export interface PeriodicLogger {
  debug(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface PeriodicTask {
  /** Clears the timer and waits for a run in progress, so shutdown never closes the database under it. */
  stop(): Promise<void>;
}

/**
 * Runs `task` every `intervalMs` (0 disables): never two runs at once in this process, a failed run is logged and
 * the next one runs on time. The one background loop of every service (sweeps, pending checks, outbox relays,
 * webhook deliveries).
 */
export function startPeriodic(
  name: string,
  intervalMs: number,
  task: () => Promise<unknown>,
  logger: PeriodicLogger,
): PeriodicTask {
  if (!Number.isInteger(intervalMs) || intervalMs < 0) {
    throw new RangeError('intervalMs must be a non-negative integer');
  }
  if (intervalMs === 0) return { stop: async () => undefined };
  let running: Promise<void> | undefined;
  let stopped = false;
  const timer = setInterval(() => {
    if (running || stopped) return;
    running = task()
      .then(
        (result) => logger.debug({ task: name, result }, 'periodic task ran'),
        (err: unknown) => logger.error({ err, task: name }, 'periodic task failed'),
      )
      .finally(() => {
        running = undefined;
      });
  }, intervalMs);
  timer.unref();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await running;
    },
  };
}
