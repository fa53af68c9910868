import { randomUUID } from 'node:crypto';
import type { NetworkName } from '@nrp/chain';
import type { MetadataContext } from '../context';
import type { Image } from '../data/schema';

/** Where uploaded bytes live in the blob store (fetched avatars and their transforms have prefixes of their own). */
export const BLOB_PREFIX = 'img/';

/** A fresh key: written once, never reused; its time part lets the orphan sweep spare in-flight uploads. */
export function newBlobKey(network: NetworkName, now: Date): string {
  return `${BLOB_PREFIX}${network}/${String(now.getTime()).padStart(13, '0')}-${randomUUID()}`;
}

/** Milliseconds since the epoch encoded in a blob key, or undefined for a key this service did not write. */
export function blobKeyTime(key: string): number | undefined {
  const match = /\/(\d{13})-[0-9a-f-]{36}$/.exec(key);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/** Deletes the bytes of rows already deleted; a failure only logs (the orphan sweep removes them later). */
export async function dropBytes(
  ctx: Pick<MetadataContext, 'blobs' | 'logger'>,
  rows: Array<Image | undefined>,
): Promise<void> {
  for (const row of rows) {
    if (!row) continue;
    try {
      await ctx.blobs.delete(row.blob_key);
    } catch (err) {
      // The row is gone, so nothing can show these bytes; the orphan sweep removes them later.
      ctx.logger.warn({ err, key: row.blob_key }, 'could not delete image bytes; left for the orphan sweep');
    }
  }
}

/** Writes the bytes under a fresh key, then the row; if the row cannot be written the bytes are removed again. */
export async function storeRow(
  ctx: Pick<MetadataContext, 'blobs' | 'logger'>,
  row: Image,
  bytes: Buffer,
  write: (row: Image) => Promise<Image | undefined>,
): Promise<Image | undefined> {
  await ctx.blobs.put(row.blob_key, bytes, row.content_type);
  let replaced: Image | undefined;
  try {
    replaced = await write(row);
  } catch (err) {
    await dropBytes(ctx, [row]);
    throw err;
  }
  await dropBytes(ctx, [replaced]);
  return replaced;
}
