import type { Dir } from 'node:fs';
import { opendir } from 'node:fs/promises';
import { join } from 'node:path';
import { ListObjectsCommand, type S3Client } from '@aws-sdk/client-s3';
import {
  assertBlobPrefix,
  BlobArgumentError,
  errorMessage,
  StorageError,
  type BlobStore,
} from './blob-store';

export const DEFAULT_LIST_PAGE_SIZE = 1000;

/**
 * The keys starting with `prefix`, in pages of at most `pageSize` keys, read from the store one page at a time:
 * memory holds one page, never the whole listing (S3: one ListObjectsV2 request per page; local directory: a
 * streamed walk of the directories under the prefix). Every key present for the whole iteration is yielded
 * exactly once; keys written or deleted meanwhile may or may not appear. Order: sorted within an S3 listing,
 * unspecified for a local directory. Stores without a paged listing fall back to `list`, sliced.
 */
export async function* listBlobKeyPages(
  store: BlobStore,
  prefix: string,
  options: { pageSize?: number } = {},
): AsyncGenerator<string[], void, undefined> {
  assertBlobPrefix(prefix);
  const pageSize = options.pageSize ?? DEFAULT_LIST_PAGE_SIZE;
  if (!Number.isInteger(pageSize) || pageSize < 1) {
    throw new BlobArgumentError(`storage list: page size must be a positive integer, got ${pageSize}`);
  }
  if (store.listPages) {
    yield* store.listPages(prefix, pageSize);
    return;
  }
  const keys = await store.list(prefix);
  for (let i = 0; i < keys.length; i += pageSize) yield keys.slice(i, i + pageSize);
}

/**
 * `listPages` of the S3 store: ListObjects with MaxKeys, each page starting after the last key of the one before
 * (`Marker`). Version 1 on purpose: s3rver, the S3 server of the tests, fails to make ListObjectsV2 continuation
 * tokens under OpenSSL 3 (DES), while Marker paging works the same on AWS S3, MinIO and s3rver.
 */
export async function* s3KeyPages(
  client: S3Client,
  bucket: string,
  prefix: string,
  pageSize: number,
): AsyncGenerator<string[], void, undefined> {
  let marker: string | undefined;
  for (;;) {
    let keys: string[];
    let truncated: boolean;
    try {
      const res = await client.send(
        new ListObjectsCommand({
          Bucket: bucket,
          Prefix: prefix || undefined,
          MaxKeys: pageSize,
          Marker: marker,
        }),
      );
      keys = (res.Contents ?? []).flatMap((obj) => (obj.Key === undefined ? [] : [obj.Key]));
      truncated = res.IsTruncated === true;
    } catch (err) {
      throw new StorageError('list', undefined, errorMessage(err), { cause: err });
    }
    if (keys.length > 0) yield keys;
    const last = keys[keys.length - 1];
    if (!truncated || last === undefined) return;
    marker = last;
  }
}

/** `listPages` of the local store: walks `<objects>/<prefix's directories>` with streamed directory reads. */
export async function* localKeyPages(
  objects: string,
  prefix: string,
  pageSize: number,
): AsyncGenerator<string[], void, undefined> {
  // Only the directory the prefix names (up to its last `/`) can hold matching keys.
  const base = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/') + 1) : '';
  let page: string[] = [];
  try {
    for await (const key of walk(join(objects, ...base.split('/').filter(Boolean)), base)) {
      if (!key.startsWith(prefix)) continue;
      page.push(key);
      if (page.length >= pageSize) {
        yield page;
        page = [];
      }
    }
  } catch (err) {
    throw err instanceof StorageError
      ? err
      : new StorageError('list', undefined, errorMessage(err), { cause: err });
  }
  if (page.length > 0) yield page;
}

async function* walk(dirPath: string, keyPrefix: string): AsyncGenerator<string, void, undefined> {
  let dir: Dir;
  try {
    dir = await opendir(dirPath);
  } catch (err) {
    if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR')) return;
    throw err;
  }
  // The async iterator closes the directory when it ends, throws or is left early.
  for await (const entry of dir) {
    const key = `${keyPrefix}${entry.name}`;
    if (entry.isDirectory()) yield* walk(join(dirPath, entry.name), `${key}/`);
    else if (entry.isFile()) yield key;
  }
}

function isCode(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}
