import { z } from 'zod';
import { l2NetworksEnvSchema, networksEnvSchema, originListSchema } from '@nrp/chain';
import { databaseEnvSchema, databaseSchemaEnv, requireDatabaseUrlInProduction } from '@nrp/db';
import { baseConfigSchema, hostList, MAX_ANSWER_BYTES, nonNegativeInt, positiveInt } from '@nrp/server';
import { eventRelayEnvSchema } from '@nrp/outbox';
import { blobStoreEnvSchema, requireS3InProduction } from '@nrp/storage';

export const configSchema = baseConfigSchema(3001)
  .extend(networksEnvSchema.shape)
  /** <L2>_RPC_URL and <L2>_L2_REGISTRIES: the L2 registries whose tokens are described. */
  .extend(l2NetworksEnvSchema.shape)
  .extend(blobStoreEnvSchema.shape)
  .extend(eventRelayEnvSchema.shape)
  .extend({
    /** DATABASE_URL (PGlite in PGLITE_DATA_DIR, or memory, when unset), DATABASE_SCHEMA, DATABASE_POOL_MAX. */
    ...databaseEnvSchema.shape,
    DATABASE_SCHEMA: databaseSchemaEnv('metadata'),
    /** Base URL clients reach this service at; the stable image URLs start with it. */
    PUBLIC_BASE_URL: z
      .url()
      .default('http://localhost:3001')
      .transform((u) => u.replace(/\/+$/, '')),
    /** `host[:port]` values accepted in the first line of sign-in messages. */
    SIWE_DOMAINS: hostList.default(['localhost:3001', 'localhost', 'localhost:3000']),
    /** Offchain subname service base URL (ownership and token lookup of offchain subnames). */
    OFFCHAIN_URL: z.url().optional(),
    OFFCHAIN_TIMEOUT_MS: positiveInt.default(5000),
    NONCE_TTL_MS: positiveInt.default(5 * 60_000),
    /** How often expired nonces are deleted (0 disables). */
    NONCE_SWEEP_INTERVAL_MS: nonNegativeInt.default(10 * 60_000),
    PENDING_WINDOW_MS: positiveInt.default(5 * 60_000),
    /** Live pending uploads one address may have (all names, kinds and networks); beyond: 429. */
    PENDING_UPLOADS_PER_UPLOADER: positiveInt.default(20),
    /** Live pending uploads of one name and kind by addresses other than its owner; beyond: 409. */
    PENDING_UPLOADS_PER_NAME: positiveInt.default(10),
    /** How often the background worker checks pending uploads (0 disables the worker). */
    PENDING_CHECK_INTERVAL_MS: nonNegativeInt.default(5000),
    /** How often stored bytes without a database row are looked for (0 disables). */
    ORPHAN_SWEEP_INTERVAL_MS: nonNegativeInt.default(10 * 60_000),
    /** Bytes younger than this are never treated as orphans (an upload may be between its two writes). */
    // Much shorter than the sweep interval: an orphan then lives at most grace + interval.
    ORPHAN_GRACE_MS: nonNegativeInt.default(2 * 60_000),
    AVATAR_MAX_BYTES: positiveInt.default(2 * 1024 * 1024),
    HEADER_MAX_BYTES: positiveInt.default(5 * 1024 * 1024),
    /** Pixel budget of one decoded image (width × height × frames; uploads, fetched avatars, renders). */
    MAX_IMAGE_PIXELS: positiveInt.default(4096 * 4096),
    /** Time budget of one decode, transform or render of an image (whole seconds for rasters; SVG renders are killed). */
    IMAGE_WORK_TIMEOUT_MS: positiveInt.default(5000),
    /** Image decodes (uploads included), transforms and renders run at once per process; the others wait. */
    IMAGE_WORK_CONCURRENCY: positiveInt.default(2),
    /** Image work allowed to wait for a slot; beyond this 503 with Retry-After. */
    IMAGE_WORK_QUEUE_MAX: nonNegativeInt.default(8),
    /** Uploads read and processed at once per process; the others wait unread (bounds memory). */
    UPLOAD_CONCURRENCY: positiveInt.default(4),
    /** Uploads allowed to wait for a slot; beyond this 503 with Retry-After. */
    UPLOAD_QUEUE_MAX: nonNegativeInt.default(200),
    NONCE_RATE_LIMIT_PER_MINUTE: positiveInt.default(30),
    UPLOAD_RATE_LIMIT_PER_MINUTE: positiveInt.default(20),
    DELETE_RATE_LIMIT_PER_MINUTE: positiveInt.default(10),
    /** Per client IP and kind: explicit confirmations of pending uploads (each reads the record, maybe the owner). */
    CONFIRM_RATE_LIMIT_PER_MINUTE: positiveInt.default(20),
    /** How long token metadata and rendered images are cached in process memory. */
    METADATA_CACHE_TTL_MS: nonNegativeInt.default(60_000),
    /** IPFS HTTP gateway for ipfs:// and ipns:// avatars (`/ipfs/<cid>`, `/ipns/<name>`). */
    IPFS_GATEWAY_URL: z.url().default('https://ipfs.io'),
    /** Arweave gateway for ar:// avatars (`/<txid>`). */
    ARWEAVE_GATEWAY_URL: z.url().default('https://arweave.net'),
    /** Exact origins (scheme://host[:port]) avatar fetches may reach although private or plain http (development). */
    IMAGE_FETCH_ALLOWED_ORIGINS: originListSchema.default([]),
    /** Whole time of one fetch of an avatar image or NFT metadata, redirects included. */
    IMAGE_FETCH_TIMEOUT_MS: positiveInt.default(10_000),
    /** Largest avatar image or NFT metadata document fetched: at most an answer's budget, as it may be served whole. */
    IMAGE_FETCH_MAX_BYTES: positiveInt.max(MAX_ANSWER_BYTES).default(MAX_ANSWER_BYTES),
    /** How long a resolved avatar/header (record, image, or failure) is reused before the record is read again. */
    AVATAR_CACHE_TTL_MS: nonNegativeInt.default(60_000),
    /** Per client IP: avatar and header requests with `noCache=true`, which always read the record on chain. */
    NO_CACHE_RATE_LIMIT_PER_MINUTE: positiveInt.default(60),
    /** ENS app URL used for the `url` member of token metadata. */
    NAME_URL_BASE: z.url().default('https://app.ens.domains'),
  })
  .superRefine(requireDatabaseUrlInProduction)
  .superRefine(requireS3InProduction);

export type Config = z.output<typeof configSchema>;
