import { startPeriodic, type PeriodicLogger } from '@nrp/server';
import type { PgNonceStore } from './nonce-store';

/**
 * Deletes expired nonces every `intervalMs` (0 disables) with the shared periodic loop (task `nonce-sweep`), so the
 * nonce table stays the size of the live nonces. The returned function stops the loop and waits for a sweep in
 * progress, so shutdown can close the database afterwards.
 */
export function startNonceSweeper(
  store: Pick<PgNonceStore, 'sweepExpired'>,
  intervalMs: number,
  logger: PeriodicLogger,
  now: () => Date = () => new Date(),
): () => Promise<void> {
  const task = startPeriodic('nonce-sweep', intervalMs, () => store.sweepExpired(now()), logger);
  return () => task.stop();
}
