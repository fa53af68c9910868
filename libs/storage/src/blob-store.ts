export interface StoredBlob {
  bytes: Buffer;
  contentType: string;
}

/** Minimal blob storage used by the services; implemented over S3 and over a local directory. */
export interface BlobStore {
  put(key: string, bytes: Buffer, contentType: string): Promise<void>;
  /** Null when the key does not exist. */
  get(key: string): Promise<StoredBlob | null>;
  /** Deleting a missing key is not an error. */
  delete(key: string): Promise<void>;
  /** All keys starting with `prefix`, sorted. */
  list(prefix: string): Promise<string[]>;
  /**
   * The same keys in pages of at most `pageSize`, read page by page (optional; use `listBlobKeyPages`, which
   * validates its arguments and falls back to `list` for stores without it).
   */
  listPages?(prefix: string, pageSize: number): AsyncIterable<string[]>;
  /** Resolves when the store is reachable and usable; rejects with StorageError otherwise. */
  ping(): Promise<void>;
}

export type StorageOperation = 'put' | 'get' | 'delete' | 'list' | 'ping';

export class StorageError extends Error {
  override readonly name = 'StorageError';
  constructor(
    readonly operation: StorageOperation,
    readonly key: string | undefined,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(`storage ${operation}${key === undefined ? '' : ` "${key}"`} failed: ${message}`, options);
  }
}

/**
 * A key, prefix, content type or page size the caller built wrongly: a programming error (500), not storage being
 * away (StorageError, 503).
 */
export class BlobArgumentError extends TypeError {
  override readonly name = 'BlobArgumentError';
}

const KEY_SEGMENT = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Keys are `/`-separated segments of [A-Za-z0-9._-], each starting with a letter or digit (so no `.`,
 * `..`, hidden files, empty segments or absolute paths), at most 512 characters.
 */
export function assertBlobKey(key: string, operation: StorageOperation = 'put'): string {
  const ok = key.length > 0 && key.length <= 512 && key.split('/').every((s) => KEY_SEGMENT.test(s));
  if (!ok) throw new BlobArgumentError(`storage ${operation}: invalid key ${JSON.stringify(key)}`);
  return key;
}

/** Prefixes may end with `/` or be empty; otherwise they follow the key rules. */
export function assertBlobPrefix(prefix: string): string {
  const trimmed = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  if (trimmed !== '') assertBlobKey(trimmed, 'list');
  return prefix;
}

export function assertContentType(contentType: string, key: string): string {
  if (!/^[\x21-\x7e][\x20-\x7e]{0,254}$/.test(contentType)) {
    throw new BlobArgumentError(`storage put "${key}": invalid content type ${JSON.stringify(contentType)}`);
  }
  return contentType;
}

export const errorMessage = (err: unknown): string => (err instanceof Error ? err.message : String(err));
