import { z } from 'zod';
import { addressListEnv, l2NetworksEnvSchema, networksEnvSchema } from '@nrp/chain';
import { databaseEnvSchema, databaseSchemaEnv, requireDatabaseUrlInProduction } from '@nrp/db';
import { eventRelayEnvSchema } from '@nrp/outbox';
import { baseConfigSchema, hostList, nonNegativeInt, positiveInt } from '@nrp/server';
import { ethAddress } from '@nrp/validation';

const optionalAddress = ethAddress.optional();

const weiString = z.string().regex(/^(0|[1-9]\d{0,77})$/, 'must be a whole number of wei in decimal');

/** ENS BaseRegistrarImplementation (.eth 2LD expiries); the same address on mainnet and sepolia. */
export const DEFAULT_BASE_REGISTRAR = '0x57f1887a8BF19b14fC0dF6Fd9B2acc9Af147eA85';

export const configSchema = baseConfigSchema(3002)
  .extend(networksEnvSchema.shape)
  .extend(l2NetworksEnvSchema.shape)
  .extend(eventRelayEnvSchema.shape)
  .extend({
    /** DATABASE_URL (PGlite in PGLITE_DATA_DIR, or memory, when unset), DATABASE_SCHEMA, DATABASE_POOL_MAX. */
    ...databaseEnvSchema.shape,
    DATABASE_SCHEMA: databaseSchemaEnv('mint'),
    /**
     * The service's EIP-712 signing key (0x + 64 hex). Required; checked in createService so that a bad
     * value is reported without echoing it.
     */
    SIGNER_PRIVATE_KEY: z.string().optional(),
    /** Receives the fees; must be the controller's treasury. */
    TREASURY_ADDRESS: optionalAddress,
    /** Mint controller per network; POST /api/v1/mint answers 503 for a network without one. */
    MAINNET_MINT_CONTROLLER: optionalAddress,
    SEPOLIA_MINT_CONTROLLER: optionalAddress,
    /**
     * L2MintController addresses per L2 (comma-separated); each mints the subnames of one parent, read from chain
     * (its `registry()`, then the registry's `parentName()`). An L2 parent without one is not listed.
     */
    BASE_L2_MINT_CONTROLLERS: addressListEnv.default([]),
    BASE_SEPOLIA_L2_MINT_CONTROLLERS: addressListEnv.default([]),
    MAINNET_BASE_REGISTRAR: optionalAddress,
    SEPOLIA_BASE_REGISTRAR: optionalAddress,
    /** The fixed fee (wei) of listings with the standard fee. */
    STANDARD_FEE_WEI: weiString.default('0').transform((v) => BigInt(v)),
    /** Lifetime of a signed mint (seconds from signing to `signatureExpiry`). */
    SIGNATURE_TTL_SECONDS: positiveInt.default(600),
    /** Base URL clients reach this service at; bound sign-in messages name listing URLs under it. */
    PUBLIC_BASE_URL: z
      .url()
      .default('http://localhost:3002')
      .transform((u) => u.replace(/\/+$/, '')),
    /** `host[:port]` values accepted in the first line of sign-in messages. */
    SIWE_DOMAINS: hostList.default(['localhost:3002', 'localhost', 'localhost:3000']),
    NONCE_TTL_MS: positiveInt.default(5 * 60_000),
    /** How often expired nonces are deleted (0 disables). */
    NONCE_SWEEP_INTERVAL_MS: nonNegativeInt.default(10 * 60_000),
    /** How long a verified minter (a sign-in with scope `minter`) stays verified. */
    MINTER_VERIFICATION_TTL_SECONDS: positiveInt.default(30 * 24 * 3600),
    /** JSON file of listings upserted at start (operator-managed listings). */
    LISTINGS_FILE: z.string().optional(),
    NONCE_RATE_LIMIT_PER_MINUTE: positiveInt.default(30),
    MINT_RATE_LIMIT_PER_MINUTE: positiveInt.default(60),
    /** How often each network's name index reads new blocks (0: this replica never indexes). */
    INDEX_INTERVAL_MS: nonNegativeInt.default(2000),
    /** Blocks a block must be under the head before it is indexed (a reorganisation deeper than this is undone). */
    INDEX_CONFIRMATIONS: nonNegativeInt.default(12),
    /** Blocks read per batch (one `eth_getLogs` per contract, one transaction). */
    INDEX_BATCH_BLOCKS: positiveInt.default(1000),
    /** How long a replica's claim to index a network lasts without being renewed. */
    INDEX_LEASE_MS: positiveInt.default(30_000),
    /** Longest wait between attempts while the node keeps failing (the wait doubles from INDEX_INTERVAL_MS). */
    INDEX_MAX_BACKOFF_MS: positiveInt.default(60_000),
    /** /ready fails while the index is more than this many blocks behind the confirmed head. */
    INDEX_MAX_LAG_BLOCKS: nonNegativeInt.default(1000),
    /** First block indexed (backfill start): the block the mint controller was deployed in. */
    MAINNET_INDEX_START_BLOCK: nonNegativeInt.default(0),
    SEPOLIA_INDEX_START_BLOCK: nonNegativeInt.default(0),
    /** The same for an L2: the block its first L2MintController was deployed in. */
    BASE_INDEX_START_BLOCK: nonNegativeInt.default(0),
    BASE_SEPOLIA_INDEX_START_BLOCK: nonNegativeInt.default(0),
    /** Offchain subname service base URL: \`mint.signed\` events are relayed to it (with EVENTS_INGEST_TOKEN). */
    OFFCHAIN_URL: z.url().optional(),
  })
  .superRefine(requireDatabaseUrlInProduction);

export type Config = z.output<typeof configSchema>;
