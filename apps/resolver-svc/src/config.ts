import { z } from 'zod';
import { NETWORK_NAMES, networksEnvSchema } from '@nrp/chain';
import { baseConfigSchema, nonNegativeInt, positiveInt } from '@nrp/server';

export const configSchema = baseConfigSchema(3004).extend({
  ...networksEnvSchema.shape,
  /** Network used when a request has no `network` query parameter. */
  DEFAULT_NETWORK: z.enum(NETWORK_NAMES).default('mainnet'),
  /** Lifetime of a cached forward resolution (profile, addresses, texts); 0 disables caching. */
  FORWARD_CACHE_TTL_SECONDS: nonNegativeInt.default(300),
  /** Lifetime of a cached reverse resolution (address → verified primary name); 0 disables caching. */
  REVERSE_CACHE_TTL_SECONDS: nonNegativeInt.default(300),
  /** Entries of the in-process LRU cache. */
  CACHE_MAX_ENTRIES: positiveInt.default(10_000),
  /** Prefix of the Redis cache keys (when REDIS_URL is set). */
  CACHE_REDIS_PREFIX: z.string().min(1).default('resolver-svc:'),
  /** Upper bound of one resolution (RPC calls plus CCIP-Read gateway fetches); default 3 × RPC_TIMEOUT_MS. */
  RESOLVE_TIMEOUT_MS: positiveInt.optional(),
  /** Per client IP: requests with `noCache=true`, which always reach the RPC node, across all routes. */
  NO_CACHE_RATE_LIMIT_PER_MINUTE: positiveInt.default(60),
  /** mint-svc base URL: the names minted through our controller (GET /ens/v2/names/{address}); unset: none. */
  MINT_URL: z
    .url()
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /** offchain-svc base URL: the offchain subnames an address owns (GET /ens/v2/names/{address}); unset: none. */
  OFFCHAIN_URL: z
    .url()
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
  /** Lifetime of a cached names page of an address (complete answers only); 0 disables caching. */
  NAMES_CACHE_TTL_SECONDS: nonNegativeInt.default(60),
  /** Names asked of each source (mint-svc on the L1, on its L2, offchain-svc) for one page of an address's names. */
  NAMES_PAGE_SIZE_PER_SOURCE: positiveInt.max(100).default(50),
  /** Upper bound of one call to mint-svc or offchain-svc. */
  NAMES_UPSTREAM_TIMEOUT_MS: positiveInt.default(5000),
  /** Public base URL of metadata-svc; when set, reverse profiles carry `avatarUrl` (its resolved avatar route). */
  METADATA_PUBLIC_URL: z
    .url()
    .transform((u) => u.replace(/\/+$/, ''))
    .optional(),
});

export type Config = z.output<typeof configSchema>;
