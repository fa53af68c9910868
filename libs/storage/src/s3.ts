import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  ListObjectsV2Command,
  NoSuchKey,
  PutObjectCommand,
  S3Client,
  S3ServiceException,
} from '@aws-sdk/client-s3';
import {
  assertBlobKey,
  assertBlobPrefix,
  assertContentType,
  errorMessage,
  StorageError,
  type BlobStore,
  type StorageOperation,
} from './blob-store';
import { s3KeyPages } from './list-pages';

export interface S3BlobStoreOptions {
  /** Custom endpoint (MinIO, s3rver, ...); AWS when absent. */
  endpoint?: string;
  region: string;
  bucket: string;
  /** Static credentials; the SDK's default provider chain when absent. */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Path-style URLs (`endpoint/bucket/key`); default true, which S3-compatible servers need. */
  forcePathStyle?: boolean;
}

export function createS3BlobStore(opts: S3BlobStoreOptions): BlobStore {
  const client = new S3Client({
    region: opts.region,
    endpoint: opts.endpoint,
    forcePathStyle: opts.forcePathStyle ?? true,
    credentials:
      opts.accessKeyId && opts.secretAccessKey
        ? { accessKeyId: opts.accessKeyId, secretAccessKey: opts.secretAccessKey }
        : undefined,
    maxAttempts: 2,
  });
  const Bucket = opts.bucket;
  const fail = (op: StorageOperation, key: string | undefined, err: unknown) =>
    new StorageError(op, key, errorMessage(err), { cause: err });

  return {
    async put(key, bytes, contentType) {
      assertBlobKey(key, 'put');
      assertContentType(contentType, key);
      try {
        await client.send(new PutObjectCommand({ Bucket, Key: key, Body: bytes, ContentType: contentType }));
      } catch (err) {
        throw fail('put', key, err);
      }
    },

    async get(key) {
      assertBlobKey(key, 'get');
      try {
        const res = await client.send(new GetObjectCommand({ Bucket, Key: key }));
        if (!res.Body) throw new Error('empty response body');
        const bytes = Buffer.from(await res.Body.transformToByteArray());
        return { bytes, contentType: res.ContentType ?? 'application/octet-stream' };
      } catch (err) {
        if (
          err instanceof NoSuchKey ||
          (err instanceof S3ServiceException && err.$metadata.httpStatusCode === 404)
        ) {
          return null;
        }
        throw fail('get', key, err);
      }
    },

    async delete(key) {
      assertBlobKey(key, 'delete');
      try {
        await client.send(new DeleteObjectCommand({ Bucket, Key: key }));
      } catch (err) {
        throw fail('delete', key, err);
      }
    },

    async list(prefix) {
      assertBlobPrefix(prefix);
      const keys: string[] = [];
      try {
        let token: string | undefined;
        do {
          const res = await client.send(
            new ListObjectsV2Command({ Bucket, Prefix: prefix || undefined, ContinuationToken: token }),
          );
          for (const obj of res.Contents ?? []) if (obj.Key !== undefined) keys.push(obj.Key);
          token = res.IsTruncated ? res.NextContinuationToken : undefined;
        } while (token);
      } catch (err) {
        throw fail('list', undefined, err);
      }
      return keys.sort();
    },

    listPages: (prefix, pageSize) => s3KeyPages(client, Bucket, prefix, pageSize),

    async ping() {
      try {
        await client.send(new HeadBucketCommand({ Bucket }));
      } catch (err) {
        throw fail('ping', undefined, err);
      }
    },
  };
}
