import type { Kysely } from 'kysely';
import { assertKeyAllowsParent } from '../keys/api-keys';
import type { ApiKeyRow } from '../data/api-keys';
import type { OffchainContext } from '../context';
import type { OffchainDatabase } from '../data/schema';
import { readExportPage, type ExportPage } from '../data/subname-export';
import { toSubname } from '../data/subnames';

/** Records read per query, and handed out per page: at most this many, and this many bytes. */
export const EXPORT_PAGE = { limit: 1000, maxBytes: 1024 * 1024 };
/**
 * Records whose size the first page looks at; later pages look at as many as the previous page's average size
 * lets fit (and one more), so that big records are not all measured to keep a few.
 */
const FIRST_PAGE_SCAN = 16;

/** Characters gathered in one piece (one write): small enough to stay out of V8's large-object space. */
const WRITE_CHARS = 32 * 1024;

/**
 * A page as NDJSON in pieces of about WRITE_CHARS (the record shape of `toSubname`, texts in stored order): no
 * string of the size of a record is made.
 */
function pagePieces({ rows, texts }: ExportPage): string[] {
  const pieces: string[] = [];
  let pending = '';
  const put = (piece: string): void => {
    pending += piece;
    if (pending.length < WRITE_CHARS) return;
    pieces.push(pending);
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
  if (pending !== '') pieces.push(pending);
  return pieces;
}

async function* exportPages(
  db: Kysely<OffchainDatabase>,
  parentName: string,
  cursor: string | undefined,
): AsyncGenerator<string[]> {
  let after = cursor;
  let scan = FIRST_PAGE_SCAN;
  for (;;) {
    const page = await readExportPage(db, parentName, after, { limit: scan, maxBytes: EXPORT_PAGE.maxBytes });
    if (!page) return;
    const average = page.bytes / page.rows.length;
    scan = Math.min(EXPORT_PAGE.limit, Math.max(1, Math.floor(EXPORT_PAGE.maxBytes / average) + 1));
    yield pagePieces(page);
    if (!page.more) return;
    after = page.rows.at(-1)?.label;
  }
}

/**
 * Every subname of `parentName` (a parent the key may manage: 403 at once otherwise) after label `cursor`, as NDJSON
 * pages: one keyset page read at a time (EXPORT_PAGE: bounded in records and in bytes), the next read only when the
 * caller asks for it, so a caller that waits for its client to take each page holds one page whatever the number and
 * size of the subnames.
 */
export function exportSubnames(
  { db }: Pick<OffchainContext, 'db'>,
  apiKey: ApiKeyRow,
  { parentName, cursor }: { parentName: string; cursor?: string },
): AsyncGenerator<string[]> {
  assertKeyAllowsParent(apiKey, parentName);
  return exportPages(db, parentName, cursor);
}
