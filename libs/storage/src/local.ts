import { randomBytes } from 'node:crypto';
import { mkdir, readFile, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve, sep } from 'node:path';
import {
  assertBlobKey,
  assertBlobPrefix,
  assertContentType,
  errorMessage,
  StorageError,
  type BlobStore,
  type StoredBlob,
} from './blob-store';
import { localKeyPages } from './list-pages';

/**
 * Each blob is one file `<dir>/objects/<key>`: a first line holding the content type, then the bytes.
 * Keeping both in one file makes a put atomic (write a temp file in `<dir>/tmp`, then rename over).
 */
export function createLocalBlobStore(dir: string): BlobStore {
  const root = resolve(dir);
  const objects = join(root, 'objects');
  const tmp = join(root, 'tmp');
  const pathOf = (key: string): string => join(objects, ...key.split('/'));

  const fail = (op: 'put' | 'get' | 'delete' | 'list' | 'ping', key: string | undefined, err: unknown) =>
    err instanceof StorageError ? err : new StorageError(op, key, errorMessage(err), { cause: err });

  return {
    async put(key, bytes, contentType) {
      assertBlobKey(key, 'put');
      assertContentType(contentType, key);
      const target = pathOf(key);
      const temp = join(tmp, `${randomBytes(8).toString('hex')}.tmp`);
      try {
        await mkdir(tmp, { recursive: true });
        await mkdir(dirname(target), { recursive: true });
        await writeFile(temp, Buffer.concat([Buffer.from(`${contentType}\n`), bytes]));
        await rename(temp, target);
      } catch (err) {
        await rm(temp, { force: true }).catch(() => undefined);
        throw fail('put', key, err);
      }
    },

    async get(key): Promise<StoredBlob | null> {
      assertBlobKey(key, 'get');
      let data: Buffer;
      try {
        data = await readFile(pathOf(key));
      } catch (err) {
        if (isCode(err, 'ENOENT') || isCode(err, 'ENOTDIR') || isCode(err, 'EISDIR')) return null;
        throw fail('get', key, err);
      }
      const newline = data.indexOf(0x0a);
      if (newline < 0) throw new StorageError('get', key, 'corrupt blob file (no content-type header)');
      return { contentType: data.subarray(0, newline).toString('latin1'), bytes: data.subarray(newline + 1) };
    },

    async delete(key) {
      assertBlobKey(key, 'delete');
      try {
        await rm(pathOf(key), { force: true });
      } catch (err) {
        if (isCode(err, 'ENOTDIR') || isCode(err, 'EISDIR')) return;
        throw fail('delete', key, err);
      }
    },

    async list(prefix) {
      assertBlobPrefix(prefix);
      try {
        const entries = await readdir(objects, { recursive: true, withFileTypes: true });
        return entries
          .filter((e) => e.isFile())
          .map((e) => relative(objects, join(e.parentPath, e.name)).split(sep).join('/'))
          .filter((key) => key.startsWith(prefix))
          .sort();
      } catch (err) {
        if (isCode(err, 'ENOENT')) return [];
        throw fail('list', undefined, err);
      }
    },

    listPages: (prefix, pageSize) => localKeyPages(objects, prefix, pageSize),

    async ping() {
      const probe = join(tmp, `ping-${randomBytes(4).toString('hex')}`);
      try {
        await mkdir(tmp, { recursive: true });
        await mkdir(objects, { recursive: true });
        await writeFile(probe, '');
        await rm(probe);
      } catch (err) {
        throw fail('ping', undefined, err);
      }
    },
  };
}

function isCode(err: unknown, code: string): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: unknown }).code === code;
}
