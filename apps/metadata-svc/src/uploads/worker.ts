import { startPeriodic } from '@nrp/server';
import { listLivePending } from '../data/images';
import type { Image, ImageTarget } from '../data/schema';
import { sweepOrphans } from './orphans';
import { confirmPendingGroup, sweepExpiredPending, type UploadDeps } from './uploads';

const targetKey = (t: ImageTarget): string => `${t.network}/${t.node}/${t.kind}`;

/** One pass of the worker: discard expired pending uploads, then check the live ones, one group per name and kind. */
export async function processPending(ctx: UploadDeps): Promise<{ discarded: number; confirmed: number }> {
  const discarded = await sweepExpiredPending(ctx);
  const groups = new Map<string, Image[]>();
  for (const row of await listLivePending(ctx.db, ctx.now())) {
    const key = targetKey(row);
    groups.set(key, [...(groups.get(key) ?? []), row]);
  }
  let confirmed = 0;
  for (const rows of groups.values()) {
    try {
      if ((await confirmPendingGroup(ctx, rows)).status === 'confirmed') confirmed++;
    } catch (err) {
      ctx.logger.warn({ err, ids: rows.map((r) => r.id) }, 'checking pending uploads failed');
    }
  }
  return { discarded, confirmed };
}

/**
 * The background work of the upload lifecycle: the pending pass every PENDING_CHECK_INTERVAL_MS and the orphan
 * sweep every ORPHAN_SWEEP_INTERVAL_MS (0 disables either). Returns what stops both.
 */
export function startUploadWorkers(ctx: UploadDeps): Array<() => Promise<void>> {
  const pending = startPeriodic(
    'pending-uploads',
    ctx.config.PENDING_CHECK_INTERVAL_MS,
    () => processPending(ctx),
    ctx.logger,
  );
  const orphans = startPeriodic(
    'orphan-sweep',
    ctx.config.ORPHAN_SWEEP_INTERVAL_MS,
    () => sweepOrphans(ctx),
    ctx.logger,
  );
  return [() => pending.stop(), () => orphans.stop()];
}
