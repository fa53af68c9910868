import { once } from 'node:events';
import type { Response } from 'express';
import { assertKeyAllowsParent } from './api-keys';
import type { ApiKeyRow } from './data/api-keys';
import type { OffchainDb } from './data/database';
import { listSubnamesAfter } from './data/subnames';

/** Records read per query, and written to the response per chunk. */
export const EXPORT_PAGE_SIZE = 1000;

/** Resolves when `res` can take more (or the client went away), leaving no listener behind. */
async function drainedOrClosed(res: Response): Promise<void> {
  const done = new AbortController();
  try {
    await Promise.race([
      once(res, 'drain', { signal: done.signal }),
      once(res, 'close', { signal: done.signal }),
    ]);
  } finally {
    done.abort();
  }
}

/**
 * Streams every subname of `parentName` (a parent the key may manage, 403 otherwise) after label `cursor` as NDJSON:
 * one keyset page at a time, waiting for the client to drain each chunk, so memory stays one page whatever the
 * number of subnames. Stops when the client goes away. A failure after the first byte aborts the connection (the
 * client then resumes with its last label).
 */
export async function exportSubnames(
  db: OffchainDb,
  apiKey: ApiKeyRow,
  { parentName, cursor }: { parentName: string; cursor?: string },
  res: Response,
): Promise<void> {
  assertKeyAllowsParent(apiKey, parentName);
  res.status(200).type('application/x-ndjson');
  res.setHeader('cache-control', 'no-store');
  let after = cursor;
  try {
    for (;;) {
      const page = await listSubnamesAfter(db, parentName, after, EXPORT_PAGE_SIZE);
      if (page.length > 0 && !res.write(page.map((s) => `${JSON.stringify(s)}\n`).join(''))) {
        await drainedOrClosed(res);
      }
      if (res.destroyed) return;
      if (page.length < EXPORT_PAGE_SIZE) break;
      after = page.at(-1)?.label;
    }
  } catch (err) {
    if (!res.headersSent) throw err;
    res.destroy(err instanceof Error ? err : new Error(String(err)));
    return;
  }
  res.end();
}
