import { createNonceStore, startNonceSweeper } from '@nrp/auth';
import { Gauge } from 'prom-client';
import {
  createL2Providers,
  createNetworkProviders,
  envPrefix,
  L2ParentDirectory,
  l2NetworksFromEnv,
  L2_NETWORK_NAMES,
  NETWORK_NAMES,
  networksFromEnv,
  perNetwork,
  type ChainProvider,
} from '@nrp/chain';
import { perL2Network } from '@nrp/ens';
import {
  createApp,
  createServiceMetrics,
  redisFromConfig,
  startUpSteps,
  type ServiceFactory,
  type ServiceOverrides,
} from '@nrp/server';
import { createEventOutbox, eventRelayEnabled, startEventRelay } from '@nrp/outbox';
import { createBlobStore, parseBlobStoreConfig } from '@nrp/storage';
import { commonProblems } from '@nrp/validation';
import { version } from '../package.json';
import { AvatarResolutions, VariantAnswers } from './avatars/caches';
import { avatarRoutes } from './avatars/routes';
import type { Config } from './config';
import type { MetadataContext } from './context';
import { migrateDatabase, openDatabase } from './data/database';
import { countPending } from './data/images';
import { EVENT_OUTBOX_TABLE, NONCE_TABLE, type MetadataDb } from './data/schema';
import { SvgPurifier } from './images/svg-purifier';
import { ImageWork, imageBudget } from './images/work';
import type { NetworkAccess } from './names/ens-state';
import { createOffchainClient } from './names/offchain-client';
import { signInRoutes } from './sign-in/routes';
import { NameRenderer } from './tokens/render';
import { contractTokenRoutes, tokenRoutes } from './tokens/routes';
import { TokenCache } from './tokens/token-cache';
import { imageEventsTo } from './uploads/events';
import { uploadRoutes } from './uploads/routes';
import { startUploadWorkers } from './uploads/worker';

export const SERVICE_NAME = 'metadata-svc';
/** The declared API version of the image and metadata service (`GET /`). */
export const API_VERSION = '1.0';

const description = `Image and metadata service: ERC-721/1155 token metadata and a rendered image per name, sign-in
nonces, and avatar/header uploads authorised by Sign-In with Ethereum (EIP-4361).

Choices where the contract is silent:
- Nonces live NONCE_TTL_MS (5 min), are single-use, bound to the address and scope; \`expiresAt\` is Unix ms.
- Sign-in failures are 401 with codes INVALID_SIGNATURE, INVALID_NONCE, EXPIRED_NONCE, NONCE_SCOPE_MISMATCH,
  ADDRESS_MISMATCH, CHAIN_MISMATCH, DOMAIN_MISMATCH, MESSAGE_EXPIRED; contract wallets sign with ERC-1271, smart
  accounts not deployed yet with ERC-6492 (checked by the universal validator in one eth_call). The
  message's domain is compared as \`host[:port]\`: a domain with user info (\`evil@localhost:3001\`) is DOMAIN_MISMATCH.
- Sign-in binding, the rule of every service: a message that lists Resources, or whose URI is any URL of this
  service (under {PUBLIC_BASE_URL}), is bound: it must name the image of the request
  ({PUBLIC_BASE_URL}/profile/{network}/{name}/{avatar|header}) and, where its statement or a #fragment names one, the
  operation (upload or delete); otherwise 401 RESOURCE_MISMATCH. A message with neither (the contract's layout) is
  unbound: it authorises the operation on any name of its signer, once, within its nonce's scope. Bind every message.
- Uploads: avatar ≤ 2 MB, header ≤ 5 MB (413 FILE_TOO_LARGE); a decoded image over MAX_IMAGE_PIXELS (default
  4096×4096, all frames together), or whose decode takes longer than IMAGE_WORK_TIMEOUT_MS, is 413
  IMAGE_TOO_LARGE; anything but jpeg/png/gif/webp/svg (by its bytes) is 415 INVALID_FILE_FORMAT; a missing file
  is 400 MISSING_FILE, an empty one 400 EMPTY_FILE, an undecodable one 400 INVALID_IMAGE.
- Rasters are re-encoded in their own format: EXIF (GPS), XMP, IPTC, ICC, comments and PNG text chunks of the file
  are never published; animated GIF/WebP stay animated; the pixel limit counts all frames.
- SVG is sanitised with DOMPurify: scripts, event handlers, \`foreignObject\`, \`<style>\`, \`<use>\` and every reference
  outside the document (href other than #id, url() other than url(#id), @import) are removed — data: images inside
  an SVG are dropped too, since a nested document could carry its own active content — and so are the filter
  primitives whose render cost an attribute multiplies (feTurbulence, feConvolveMatrix, feMorphology).
- Image budget: decodes, transforms and renders of fetched avatars and token images run at most
  IMAGE_WORK_CONCURRENCY at once (IMAGE_WORK_QUEUE_MAX waiting; then 503 with Retry-After), each within
  MAX_IMAGE_PIXELS and IMAGE_WORK_TIMEOUT_MS. Avatar transforms are a fixed set (see the avatar routes).
- Images are served at their stable URL with ETag (content hash), Cache-Control: public, max-age=60,
  X-Content-Type-Options: nosniff and Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; sandbox.
- Pending uploads are discarded (row and bytes) after PENDING_WINDOW_MS; a worker confirms them every
  PENDING_CHECK_INTERVAL_MS, and \`POST /profile/{network}/{name}/{kind}/confirm\` at once. Reads never change
  anything (no GET confirms, discards or deletes). Bytes are written under a fresh key before the row,
  and stored bytes that no row references are deleted by the orphan sweep once older than ORPHAN_GRACE_MS.
- Image changes emit \`image.pending\`, \`image.confirmed\`, \`image.discarded\` and \`image.deleted\` events: written
  to this service's outbox (table metadata_event_outbox) in the transaction of the change and relayed at least once
  to offchain-svc (OFFCHAIN_URL + /internal/v1/events, bearer EVENTS_INGEST_TOKEN), which delivers them to the
  webhooks of the name's parent. Without OFFCHAIN_URL or EVENTS_INGEST_TOKEN no events are written.
- Token metadata and images: by chain id (\`/metadata/network/{chainId}/token/{tokenId}\`, mainnet and sepolia) and by
  the ENS metadata service's path \`/{network}/{contractAddress}/{tokenId}\` (\`/image\`): the NameWrapper of mainnet or
  sepolia, or an L2Registry of base or base-sepolia served by this service (BASE_L2_REGISTRIES,
  BASE_SEPOLIA_L2_REGISTRIES; any other contract 404 UNKNOWN_CONTRACT). An L2 token not live (never registered,
  revoked, expired) is 404 TOKEN_NOT_FOUND.
- L1-only by nature: uploads, sign-in and \`/{network}/avatar|header/{name}\` take \`mainnet\` or \`sepolia\`. Records
  (and so avatars and headers) of an L2 name resolve on the L1 its L2 settles on (base → mainnet, base-sepolia →
  sepolia) through the parent's resolver, and sign-in messages name that chain: upload an L2 name's images under
  that L1. Its owner there is the holder of its token on the served L2 registry of its parent (when neither the L1
  nor offchain-svc has an owner for it).
- Rate limits per client IP: nonce 30/min, uploads 20/min per kind, deletes 10/min per kind, confirmations
  20/min per kind (shared through Redis when REDIS_URL is set).`;

/** What tests hand in instead of the database, blob store and clock the config describes; never closed here. */
export type MetadataOverrides = Pick<ServiceOverrides<MetadataDb>, 'database' | 'blobs' | 'now'>;

export const createService: ServiceFactory<Config, MetadataContext, MetadataOverrides> = async (
  config,
  logger,
  overrides = {},
) => {
  const onShutdown: Array<() => Promise<void>> = [];
  const database = overrides.database ?? openDatabase(config);
  if (!overrides.database) onShutdown.push(() => database.close());
  await startUpSteps(onShutdown, () => migrateDatabase(database));
  const blobs =
    overrides.blobs ??
    createBlobStore(
      parseBlobStoreConfig({
        S3_BUCKET: config.S3_BUCKET,
        S3_ENDPOINT: config.S3_ENDPOINT,
        S3_REGION: config.S3_REGION,
        S3_ACCESS_KEY_ID: config.S3_ACCESS_KEY_ID,
        S3_SECRET_ACCESS_KEY: config.S3_SECRET_ACCESS_KEY,
        BLOB_DIR: config.BLOB_DIR,
      }),
    );
  const metrics = createServiceMetrics(SERVICE_NAME);
  const providers = createNetworkProviders(networksFromEnv(config), metrics.rpcCallsOf, onShutdown);
  const access = (provider: ChainProvider): NetworkAccess => ({ config: provider.config, provider });
  const networks = perNetwork((name) => access(providers[name]));
  const l2Configs = l2NetworksFromEnv(config);
  const l2Providers = createL2Providers(l2Configs, metrics.rpcCallsOf, onShutdown);
  const l2Networks = perL2Network((name) => ({ config: l2Configs[name], provider: l2Providers[name] }));
  const redis = redisFromConfig(config, logger, onShutdown);

  const context: MetadataContext = {
    config,
    logger,
    db: database.db,
    blobs,
    nonces: createNonceStore(database.db, { table: NONCE_TABLE, ttlMs: config.NONCE_TTL_MS }),
    networks,
    l2Networks,
    l2ParentNames: new L2ParentDirectory(l2Providers),
    offchain: createOffchainClient(config.OFFCHAIN_URL, config.OFFCHAIN_TIMEOUT_MS),
    now: overrides.now ?? (() => new Date()),
    imageEvents: imageEventsTo(
      createEventOutbox(EVENT_OUTBOX_TABLE, eventRelayEnabled(config, config.OFFCHAIN_URL)),
      config.PUBLIC_BASE_URL,
    ),
    tokenCache: new TokenCache(config.METADATA_CACHE_TTL_MS),
    avatarResolutions: new AvatarResolutions(),
    variantAnswers: new VariantAnswers(),
    imageBudget: imageBudget(config.MAX_IMAGE_PIXELS, config.IMAGE_WORK_TIMEOUT_MS),
    imageWork: new ImageWork(config.IMAGE_WORK_CONCURRENCY, config.IMAGE_WORK_QUEUE_MAX),
    svgPurifier: new SvgPurifier(),
    nameRenderer: new NameRenderer(),
  };
  new Gauge({
    name: 'pending_uploads',
    help: 'Avatar and header uploads pending their on-chain record, by state (waiting, expired: not discarded yet).',
    labelNames: ['state'],
    registers: [metrics.registry],
    async collect() {
      try {
        const counts = await countPending(context.db, context.now());
        this.set({ state: 'waiting' }, counts.waiting);
        this.set({ state: 'expired' }, counts.expired);
      } catch (err) {
        // /metrics still answers; /ready reports the database.
        logger.warn({ err }, 'pending uploads could not be counted');
      }
    },
  });

  const readiness: Record<string, () => Promise<unknown>> = {
    database: () => database.ping(),
    storage: () => blobs.ping(),
  };
  for (const name of NETWORK_NAMES) {
    // Only networks given an RPC URL are checked: the public defaults are for development.
    if (config[`${envPrefix(name)}_RPC_URL`]) {
      readiness[`rpc:${name}`] = () => networks[name].provider.getBlockNumber();
    }
  }
  for (const name of L2_NETWORK_NAMES) {
    if (config[`${envPrefix(name)}_RPC_URL`]) {
      readiness[`rpc:${name}`] = () => l2Networks[name].provider.getBlockNumber();
    }
  }

  const routes = [
    ...signInRoutes(context),
    ...uploadRoutes(context),
    ...tokenRoutes(context),
    ...avatarRoutes(context),
    // After the avatar routes: `/{network}/{contractAddress}/{tokenId}` would take `/{network}/avatar/{name}`.
    ...contractTokenRoutes(context),
  ];
  const app = createApp({
    service: SERVICE_NAME,
    version: API_VERSION,
    description: `${description}\n\nBuild ${version}.`,
    logger,
    // Every route reads the database, the image routes blob storage: 503 SERVICE_UNAVAILABLE while one is down.
    everyRouteProblems: [commonProblems.SERVICE_UNAVAILABLE],
    routes,
    readiness,
    config,
    redis,
    metrics,
  });

  const stopUploadWorkers = startUploadWorkers(context);
  const stopNonceSweeper = startNonceSweeper(
    context.nonces,
    config.NONCE_SWEEP_INTERVAL_MS,
    logger,
    context.now,
  );
  const eventRelay = startEventRelay(database.db, EVENT_OUTBOX_TABLE, config, config.OFFCHAIN_URL, logger);
  // Workers stop first, so nothing runs against a closed database.
  onShutdown.unshift(...stopUploadWorkers, stopNonceSweeper, () => eventRelay.stop());
  return { app, version, onShutdown, routes, context, metrics };
};
