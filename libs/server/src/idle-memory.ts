import type { Server } from 'node:http';
import { Counter, type Registry } from 'prom-client';
import type { Logger } from './logger';

const MB = 1024 * 1024;

/**
 * Gives memory back to the system once a busy process falls idle. After a burst of expensive requests V8 keeps the
 * pages it grew (pooled, outside `heapTotal`) until its memory reducer happens to run, minutes later or not at all;
 * a full collection with `flavor: 'last-resort'` compacts and releases them at once (measured: offchain-svc 164 → 127
 * MB right after the bench:abuse attacks, where it otherwise stayed for two minutes). It runs only when requests were
 * served since the last one and none arrived for `idleMs`, so it never pauses a request. Needs `--expose-gc` (the
 * Deployments' NODE_OPTIONS); without it nothing is installed.
 */
export function releaseMemoryWhenIdle(
  server: Server,
  options: { idleMs: number; logger: Logger; registry: Registry },
): void {
  const gc = globalThis.gc;
  if (!gc || options.idleMs === 0) return;
  const releases = new Counter({
    name: 'process_idle_memory_releases_total',
    help: 'Full collections run because the process fell idle after serving requests.',
    registers: [options.registry],
  });
  let servedSinceRelease = 0;
  let lastRequestAt = Date.now();
  const onRequest = () => {
    servedSinceRelease += 1;
    lastRequestAt = Date.now();
  };
  server.on('request', onRequest);
  const timer = setInterval(
    () => {
      if (servedSinceRelease === 0 || Date.now() - lastRequestAt < options.idleMs) return;
      const before = process.memoryUsage.rss();
      gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
      releases.inc();
      options.logger.debug(
        {
          served: servedSinceRelease,
          rssBeforeMb: Math.round(before / MB),
          rssAfterMb: Math.round(process.memoryUsage.rss() / MB),
        },
        'idle: memory released',
      );
      servedSinceRelease = 0;
    },
    Math.max(50, Math.floor(options.idleMs / 2)),
  );
  timer.unref();
  server.once('close', () => clearInterval(timer));
}
