import { listBlobKeyPages } from '@nrp/storage';
import type { MetadataContext } from '../context';
import { referencedKeys } from '../data/images';
import { BLOB_PREFIX, blobKeyTime } from './blobs';

/** Keys listed, and checked against the rows, per page of the orphan sweep. */
export const ORPHAN_SWEEP_PAGE_SIZE = 500;

/**
 * Deletes stored bytes that no row references and that are older than ORPHAN_GRACE_MS (a crash between writing
 * the bytes and the row leaves such keys; younger ones may belong to an upload still writing its row). Pages
 * through the store's listing, checking each page against the rows, so memory holds one page, not every key.
 * An orphan is deleted by the first sweep that runs at least ORPHAN_GRACE_MS after it was written, so it lives at
 * most ORPHAN_GRACE_MS + ORPHAN_SWEEP_INTERVAL_MS; with the grace shorter than the interval, at most one sweep
 * passes it by.
 */
export async function sweepOrphans(
  ctx: Pick<MetadataContext, 'config' | 'db' | 'blobs' | 'now'>,
  options: { pageSize?: number } = {},
): Promise<number> {
  const cutoff = ctx.now().getTime() - ctx.config.ORPHAN_GRACE_MS;
  let removed = 0;
  const pageSize = options.pageSize ?? ORPHAN_SWEEP_PAGE_SIZE;
  for await (const page of listBlobKeyPages(ctx.blobs, BLOB_PREFIX, { pageSize })) {
    const candidates = page.filter((key) => {
      const time = blobKeyTime(key);
      return time !== undefined && time <= cutoff;
    });
    if (candidates.length === 0) continue;
    const referenced = await referencedKeys(ctx.db, candidates);
    for (const key of candidates) {
      if (referenced.has(key)) continue;
      await ctx.blobs.delete(key);
      removed++;
    }
  }
  return removed;
}
