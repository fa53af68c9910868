import type { ChildProcess } from 'node:child_process';

/** Resolves once `child` has exited (at once if it already has). */
export function exitOf(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

/**
 * Asks `child` to stop with `signal` (its graceful shutdown, which stops what it started: the dev stack stops its
 * anvil), then SIGKILL after `graceMs`; resolves once it is gone. A process killed outright leaves its own children
 * running, so tests stop their processes with this, not with a bare SIGKILL.
 */
export async function stopChild(
  child: ChildProcess,
  { signal = 'SIGTERM', graceMs = 5000 }: { signal?: NodeJS.Signals; graceMs?: number } = {},
): Promise<void> {
  const gone = exitOf(child);
  if (child.exitCode !== null || child.signalCode !== null) return gone;
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
  await gone;
  clearTimeout(timer);
}
