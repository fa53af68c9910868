export { BlobArgumentError, StorageError, assertBlobKey } from './blob-store';
export type { BlobStore, StoredBlob, StorageOperation } from './blob-store';
export { createLocalBlobStore } from './local';
export { createS3BlobStore } from './s3';
export type { S3BlobStoreOptions } from './s3';
export {
  blobStoreEnvSchema,
  parseBlobStoreConfig,
  createBlobStore,
  blobStoreFromEnv,
  requireS3InProduction,
} from './config';
export type { BlobStoreConfig } from './config';
export { DEFAULT_LIST_PAGE_SIZE, listBlobKeyPages } from './list-pages';
