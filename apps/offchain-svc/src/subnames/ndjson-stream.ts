import { once } from 'node:events';
import type { Response } from 'express';
import { NDJSON_CONTENT_TYPE } from '@nrp/api';

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
 * Answers 200 NDJSON from `pages` (each a page's pieces): a page is written, then the next is asked for only once
 * the client took it, so memory stays one page. Stops asking when the client goes away. A failure after the first
 * byte aborts the connection (the client then resumes with its last complete line); one before it is answered as
 * any error.
 */
export async function streamNdjson(res: Response, pages: AsyncIterable<string[]>): Promise<void> {
  res.status(200).type(NDJSON_CONTENT_TYPE);
  res.setHeader('cache-control', 'no-store');
  try {
    for await (const pieces of pages) {
      let writable = true;
      for (const piece of pieces) writable = res.write(piece);
      if (!writable) await drainedOrClosed(res);
      if (res.destroyed) return;
    }
  } catch (err) {
    if (!res.headersSent) throw err;
    res.destroy(err instanceof Error ? err : new Error(String(err)));
    return;
  }
  res.end();
}
