import type { Kysely } from 'kysely';
import type { PgNonceStore } from '@nrp/auth';
import type { NetworkName } from '@nrp/chain';
import type { ServiceContext } from '@nrp/server';
import type { BlobStore } from '@nrp/storage';
import type { AvatarResolutions } from './avatars/avatars';
import type { ImageBudget, ImageWork } from './avatars/image-work';
import type { Config } from './config';
import type { MetadataDb } from './data/database';
import type { ImageEvents } from './data/images';
import type { NetworkAccess } from './ens-state';
import type { OffchainClient } from './offchain-client';
import type { TokenCache } from './token-cache';

/** Everything the routes and domain modules of this service use, built once in `createService`. */
export interface MetadataContext extends ServiceContext<Config> {
  db: Kysely<MetadataDb>;
  blobs: BlobStore;
  nonces: PgNonceStore;
  networks: Record<NetworkName, NetworkAccess>;
  offchain: OffchainClient;
  now: () => Date;
  /** Records `image.*` events in the transaction of the change (the event outbox, relayed to offchain-svc). */
  imageEvents: ImageEvents;
  /** What the token routes cache in this process; dropped per name when its images change. */
  tokenCache: TokenCache;
  /** The avatar and header resolutions cached in this process; dropped per name when its images change. */
  avatarResolutions: AvatarResolutions;
  /** Pixels and time one image may cost (MAX_IMAGE_PIXELS, IMAGE_WORK_TIMEOUT_MS). */
  imageBudget: ImageBudget;
  /** The concurrency limit of image decodes, transforms and renders other than uploads. */
  imageWork: ImageWork;
}
