import type { Logger } from '@nrp/server';

export interface PeriodicTask {
  stop(): Promise<void>;
}

/**
 * Runs `task` every `intervalMs` (never two runs at once; 0 disables). `stop` clears the timer and waits for a
 * run in progress, so shutdown never closes the database under it.
 */
export function startPeriodic(
  name: string,
  intervalMs: number,
  task: () => Promise<unknown>,
  logger: Logger,
): PeriodicTask {
  if (intervalMs <= 0) return { stop: async () => undefined };
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
