import { z } from 'zod';
import { normalizeName } from '@nrp/ens';
import { databaseEnvSchema, requireDatabaseUrlInProduction } from '@nrp/db';
import { l2NetworksEnvSchema, l2ProofsEnvSchema, networksEnvSchema, originListSchema } from '@nrp/chain';
import { baseConfigSchema, hostList, nonNegativeInt, positiveInt } from '@nrp/server';
import { ethAddress } from '@nrp/validation';

const nameList = z.string().transform((value, ctx) => {
  const names: string[] = [];
  for (const part of value.split(',').map((s) => s.trim())) {
    if (!part) continue;
    try {
      names.push(normalizeName(part));
    } catch {
      ctx.addIssue({ code: 'custom', message: `"${part}" is not a valid ENS name` });
      return z.NEVER;
    }
  }
  return names;
});

export const configSchema = baseConfigSchema(3003)
  .extend(networksEnvSchema.shape)
  .extend(l2NetworksEnvSchema.shape)
  .extend(l2ProofsEnvSchema.shape)
  .extend({
    /** DATABASE_URL (PGlite in PGLITE_DATA_DIR, or memory, when unset), DATABASE_SCHEMA, DATABASE_POOL_MAX. */
    ...databaseEnvSchema.shape,
    /** Private key (0x + 64 hex) that signs CCIP-Read answers; its address is a signer of the OffchainResolver. */
    GATEWAY_SIGNER_KEY: z
      .string()
      .regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x followed by 64 hex digits')
      .optional(),
    /** Validity of a signed gateway answer, in seconds. */
    GATEWAY_TTL_SECONDS: z.coerce.number().int().min(1).max(604_800).default(300),
    /**
     * One ceiling for every client of the CCIP-Read gateway, per minute (shared by replicas through Redis): its
     * callers are batch gateways that carry every user's lookups from a few addresses, so a per-IP limit would
     * refuse them. It replaces the per-IP RATE_LIMIT_PER_MINUTE on the gateway routes.
     */
    GATEWAY_RATE_LIMIT_PER_MINUTE: positiveInt.default(60_000),
    /**
     * Each client's share of that ceiling, per minute and client IP (default a quarter): large enough for a batch
     * gateway that carries many users from one address, small enough that a few clients cannot take the whole
     * ceiling. Requests the gateway refuses as invalid count here only, never against the ceiling.
     */
    GATEWAY_CLIENT_RATE_LIMIT_PER_MINUTE: positiveInt.default(15_000),
    /**
     * How long a cached answer (a signed gateway answer, a subname read) is served, in seconds; 0 turns the caches
     * off. Writes drop their names' answers at once in every replica (Redis pub/sub when REDIS_URL is set), so this
     * bounds staleness only when that message is lost. Less than GATEWAY_TTL_SECONDS: a cached signature is served
     * with at least GATEWAY_TTL_SECONDS - ANSWER_CACHE_SECONDS of validity left.
     */
    ANSWER_CACHE_SECONDS: z.coerce.number().int().min(0).max(300).default(10),
    /**
     * L2 gateway: an L2 whose latest block is older than this (seconds) is stale, answered 503 L2_STALE, never
     * signed (Base makes a block every 2 s: a minute means its RPC node stopped following the chain).
     */
    L2_MAX_BLOCK_AGE_SECONDS: positiveInt.max(3600).default(60),
    /**
     * L2 gateway: how long a signed answer read from the L2 is served again to the identical request, in ms (0: off;
     * default one Base block). The bound on what the cache adds to staleness; less than GATEWAY_TTL_SECONDS.
     */
    L2_ANSWER_CACHE_MS: nonNegativeInt.max(60_000).default(2000),
    /** Memory of each answer cache (gateway answers, subname reads) in MiB. */
    ANSWER_CACHE_MB: positiveInt.max(4096).default(32),
    /** SHA-256 (hex) of an API key to install at start-up (e.g. from a secret), valid for BOOTSTRAP_API_KEY_PARENTS. */
    BOOTSTRAP_API_KEY_HASH: z
      .string()
      .regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex digits (SHA-256)')
      .optional(),
    BOOTSTRAP_API_KEY_PARENTS: nameList.optional(),
    /** Comma-separated origins (`http://127.0.0.1:4000`) exempt from the webhook URL policy; development only. */
    WEBHOOK_ALLOWED_ORIGINS: originListSchema.optional(),
    /** How often the delivery worker looks for due attempts (0 disables it in this replica). */
    WEBHOOK_DELIVERY_INTERVAL_MS: nonNegativeInt.default(1000),
    /** Wait before the first retry (jittered down to half); doubles per attempt up to an hour. At most a minute. */
    WEBHOOK_RETRY_BASE_MS: positiveInt.max(60_000).default(30_000),
    /** Failed attempts are retried for this long after the event (24 h), then the delivery is failed. */
    WEBHOOK_RETRY_WINDOW_MS: positiveInt.default(24 * 3600_000),
    /** An attempt without an answer within this long failed. */
    WEBHOOK_TIMEOUT_MS: positiveInt.max(60_000).default(10_000),
    /** Bearer token of POST /internal/v1/events (the same value in metadata-svc and mint-svc); unset: 503. */
    EVENTS_INGEST_TOKEN: z.string().min(32, 'must be at least 32 characters').optional(),
    /** Base URL clients reach this service at; a bound sign-in message names `{PUBLIC_BASE_URL}/api/v1/auth/session`. */
    PUBLIC_BASE_URL: z
      .url()
      .default('http://localhost:3003')
      .transform((u) => u.replace(/\/+$/, '')),
    /** `host[:port]` values accepted in the first line of sign-in messages. */
    SIWE_DOMAINS: hostList.default(['localhost:3003', 'localhost', 'localhost:3000']),
    NONCE_TTL_MS: positiveInt.default(5 * 60_000),
    /** How often expired nonces are deleted (0 disables). */
    NONCE_SWEEP_INTERVAL_MS: nonNegativeInt.default(10 * 60_000),
    NONCE_RATE_LIMIT_PER_MINUTE: positiveInt.default(30),
    /** Lifetime of a sign-in session (its bearer token), in seconds; never beyond the message's Expiration Time. */
    SESSION_TTL_SECONDS: positiveInt.default(24 * 3600),
    /**
     * How long who-controls-a-name is remembered, per replica (at most a minute): a self-serve key stops working at
     * most this long after its issuer lost control of its name. Issuing a key always reads the chain afresh.
     */
    NAME_CONTROL_CACHE_MS: nonNegativeInt.max(60_000).default(30_000),
    /** Live self-serve keys one address may hold; bounds `GET /api/v1/keys`. */
    KEYS_PER_ADDRESS: positiveInt.max(1000).default(100),
    /** Our offchain resolver per network: what `GET /api/v1/parents/{name}/setup` points a name at (unset: 503). */
    MAINNET_OFFCHAIN_RESOLVER: ethAddress.optional(),
    SEPOLIA_OFFCHAIN_RESOLVER: ethAddress.optional(),
    /**
     * The L1 verifier (Unruggable Gateways) a ProvenL2Resolver of a parent on this L2 is deployed with: what the
     * setup offers as the proven option (unset: that option is not offered for the L2's parents).
     */
    BASE_PROOF_VERIFIER: ethAddress.optional(),
    BASE_SEPOLIA_PROOF_VERIFIER: ethAddress.optional(),
  })
  .superRefine(requireDatabaseUrlInProduction)
  .superRefine((config, ctx) => {
    if (config.ANSWER_CACHE_SECONDS >= config.GATEWAY_TTL_SECONDS) {
      ctx.addIssue({
        code: 'custom',
        path: ['ANSWER_CACHE_SECONDS'],
        message: 'must be less than GATEWAY_TTL_SECONDS',
      });
    }
    if (config.L2_ANSWER_CACHE_MS >= config.GATEWAY_TTL_SECONDS * 1000) {
      ctx.addIssue({
        code: 'custom',
        path: ['L2_ANSWER_CACHE_MS'],
        message: 'must be less than GATEWAY_TTL_SECONDS (in ms)',
      });
    }
  });

export type Config = z.output<typeof configSchema>;
