import { z } from 'zod';
import { requiredInProduction, withoutEmptyVariables } from '@nrp/validation';
import type { BlobStore } from './blob-store';
import { createLocalBlobStore } from './local';
import { createS3BlobStore } from './s3';

/** Environment for blob storage: S3 when S3_BUCKET is set, else a local directory (BLOB_DIR). */
export const blobStoreEnvSchema = z.object({
  S3_BUCKET: z.string().optional(),
  S3_ENDPOINT: z.url().optional(),
  S3_REGION: z.string().optional(),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  BLOB_DIR: z.string().optional(),
});

/** For a config's superRefine: with NODE_ENV=production, blobs must live in S3, not on one pod's disk. */
export const requireS3InProduction = requiredInProduction('S3_BUCKET', 'a local blob directory');

export type BlobStoreConfig =
  | {
      kind: 's3';
      bucket: string;
      endpoint?: string;
      region: string;
      accessKeyId?: string;
      secretAccessKey?: string;
    }
  | { kind: 'local'; dir: string };

export function parseBlobStoreConfig(env: Record<string, string | undefined>): BlobStoreConfig {
  const e = blobStoreEnvSchema.parse(withoutEmptyVariables(env));
  if (e.S3_BUCKET) {
    return {
      kind: 's3',
      bucket: e.S3_BUCKET,
      endpoint: e.S3_ENDPOINT,
      region: e.S3_REGION ?? 'us-east-1',
      accessKeyId: e.S3_ACCESS_KEY_ID,
      secretAccessKey: e.S3_SECRET_ACCESS_KEY,
    };
  }
  return { kind: 'local', dir: e.BLOB_DIR ?? '.data/blobs' };
}

export function createBlobStore(config: BlobStoreConfig): BlobStore {
  return config.kind === 's3' ? createS3BlobStore(config) : createLocalBlobStore(config.dir);
}

export const blobStoreFromEnv = (env: Record<string, string | undefined> = process.env): BlobStore =>
  createBlobStore(parseBlobStoreConfig(env));
