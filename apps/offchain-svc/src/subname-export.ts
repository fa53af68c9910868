import { once } from 'node:events';
import type { Response } from 'express';
import { assertKeyAllowsParent } from './api-keys';
import type { ApiKeyRow } from './data/api-keys';
import type { OffchainDb } from './data/database';
import { readExportPage, type ExportPage } from './data/subname-export';
import { toSubname } from './data/subnames';

/** Records read per query, and written to the response per chunk: at most this many, and this many bytes. */
export const EXPORT_PAGE = { limit: 1000, maxBytes: 1024 * 1024 };
/**
 * Records whose size the first page looks at; later pages look at as many as the previous page's average size
 * lets fit (and one more), so that big records are not all measured to keep a few.
 */
const FIRST_PAGE_SCAN = 16;

/** Characters gathered before a write: small enough to stay out of V8's large-object space. */
const WRITE_CHARS = 32 * 1024;

/**
 * Writes a page as NDJSON in pieces of about WRITE_CHARS (the record shape of `toSubname`, texts in stored order): no
 * string of the size of a record is made. Answers what the last write
 * answered (false: wait for 'drain').
 */
function writePage(res: Response, { rows, texts }: ExportPage): boolean {
  let writable = true;
  let pending = '';
  const put = (piece: string): void => {
    pending += piece;
    if (pending.length < WRITE_CHARS) return;
    writable = res.write(pending);
    pending = '';
  };
  let next = 0;
  for (const row of rows) {
    const json = JSON.stringify(toSubname({ ...row, texts: {} }));
    // A string value cannot hold `"texts":{}` unescaped, so this is the texts field.
    const at = json.indexOf('"texts":{}') + '"texts":{'.length;
    put(json.slice(0, at));
    let first = true;
    for (let piece = texts[next]; piece?.label === row.label; next += 1, piece = texts[next]) {
      put(first ? piece.members : `,${piece.members}`);
      first = false;
    }
    put(`${json.slice(at)}\n`);
  }
  if (pending !== '') writable = res.write(pending);
  return writable;
}

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
 * one keyset page at a time (EXPORT_PAGE: bounded in records and in bytes), waiting for the client to drain each
 * chunk, so memory stays one page whatever the number and size of the subnames. Stops when the client goes away. A
 * failure after the first byte aborts the connection (the client then resumes with its last label).
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
  let scan = FIRST_PAGE_SCAN;
  try {
    for (;;) {
      const page = await readExportPage(db, parentName, after, {
        limit: scan,
        maxBytes: EXPORT_PAGE.maxBytes,
      });
      if (!page) break;
      const average = page.bytes / page.rows.length;
      scan = Math.min(EXPORT_PAGE.limit, Math.max(1, Math.floor(EXPORT_PAGE.maxBytes / average) + 1));
      if (!writePage(res, page)) await drainedOrClosed(res);
      if (res.destroyed) return;
      if (!page.more) break;
      after = page.rows.at(-1)?.label;
    }
  } catch (err) {
    if (!res.headersSent) throw err;
    res.destroy(err instanceof Error ? err : new Error(String(err)));
    return;
  }
  res.end();
}
