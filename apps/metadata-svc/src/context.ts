import type { Kysely } from 'kysely';
import type { PgNonceStore } from '@nrp/auth';
import type { L2NetworkName, L2ParentDirectory, NetworkName } from '@nrp/chain';
import type { ServiceContext } from '@nrp/server';
import type { BlobStore } from '@nrp/storage';
import type { AvatarResolutions, VariantAnswers } from './avatars/caches';
import type { Config } from './config';
import type { ImageEvents } from './data/images';
import type { MetadataDb } from './data/schema';
import type { SvgPurifier } from './images/svg-purifier';
import type { ImageBudget, ImageWork } from './images/work';
import type { NetworkAccess } from './names/ens-state';
import type { L2NetworkAccess } from './names/l2-registries';
import type { OffchainClient } from './names/offchain-client';
import type { NameRenderer } from './tokens/render';
import type { TokenCache } from './tokens/token-cache';

/**
 * Everything the routes and use cases of this service use, built once in `createService`: every per-process
 * object (caches, pools, the SVG purifier, the renderer's fonts) lives here, none in a module. Use cases take the
 * part they need as `Pick<MetadataContext, …>`.
 */
export interface MetadataContext extends ServiceContext<Config> {
  db: Kysely<MetadataDb>;
  blobs: BlobStore;
  nonces: PgNonceStore;
  networks: Record<NetworkName, NetworkAccess>;
  /** The L2s and the registries served there (token metadata of L2 subnames). */
  l2Networks: Record<L2NetworkName, L2NetworkAccess>;
  /** Parent names of the L2 registries, read once each (immutable on chain). */
  l2ParentNames: L2ParentDirectory;
  offchain: OffchainClient;
  now: () => Date;
  /** Records `image.*` events in the transaction of the change (the event outbox, relayed to offchain-svc). */
  imageEvents: ImageEvents;
  /** What the token routes cache in this process; dropped per name when its images change. */
  tokenCache: TokenCache;
  /** The avatar and header resolutions cached in this process; dropped per name when its images change. */
  avatarResolutions: AvatarResolutions;
  /** Served avatar variants in process memory, by blob key. */
  variantAnswers: VariantAnswers;
  /** Pixels and time one image may cost (MAX_IMAGE_PIXELS, IMAGE_WORK_TIMEOUT_MS). */
  imageBudget: ImageBudget;
  /** The concurrency limit of image decodes, transforms and renders other than uploads. */
  imageWork: ImageWork;
  /** The DOMPurify instance SVG uploads and fetched SVG avatars are sanitised with, built on first use. */
  svgPurifier: SvgPurifier;
  /** Renders token images, with the bundled fonts prepared on first use. */
  nameRenderer: NameRenderer;
}
