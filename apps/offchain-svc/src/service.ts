import { createNonceStore, startNonceSweeper } from '@nrp/auth';
import {
  createL2Providers,
  createNetworkProviders,
  L2ParentDirectory,
  l2NetworksFromEnv,
  networksFromEnv,
} from '@nrp/chain';
import {
  createApp,
  createServiceMetrics,
  redisFromConfig,
  startPeriodic,
  startUpSteps,
  type ServiceFactory,
  type ServiceOverrides,
} from '@nrp/server';
import type { Config } from './config';
import { migrateDatabase, openDatabase } from './data/database';
import type { OffchainDatabase } from './data/schema';
import { upsertApiKey } from './data/api-keys';
import { pruneEvents } from './data/events';
import { pruneIdempotencyKeys } from './data/idempotency';
import { NONCE_TABLE } from './data/migrations';
import { pruneSessions } from './data/sessions';
import type { OffchainContext, WebhookSettings } from './context';
import { eventRecorder } from './webhooks/events';
import { cachedNameControl } from './keys/name-control';
import { revokeKeysOfLostNames } from './keys/api-keys';
import { keyRoutes } from './keys/routes';
import { AnswerCache } from './gateway/answer-cache';
import { createL2RecordReader } from './gateway/l2-records';
import { createL2Provers } from './proofs/provers';
import { GatewayRecordReads } from './gateway/record-reads';
import { gatewayRoutes } from './gateway/routes';
import { recordChanges } from './subnames/record-changes';
import { subnameRoutes } from './subnames/routes';
import { webhookRoutes } from './webhooks/routes';
import { webhookDispatcher } from './webhooks/delivery';
import { version } from '../package.json';
import { commonProblems } from '@nrp/validation';

export const SERVICE_NAME = 'offchain-svc';

const description = `Offchain subname service: subnames with records behind API keys, search, and a CCIP-Read gateway.

Choices made where the contract is silent:
- **API keys** are issued by the operator command \`npm run -w apps/offchain-svc keys -- create --parent <name>\`,
  shown once, stored as SHA-256 hashes and compared in constant time. A key is valid for exactly the parent names it
  was issued for (not for deeper descendants, unless it was issued with \`includeDescendants\`). 401
  \`UNAUTHORIZED\` without a live key, 403 \`PARENT_NOT_ALLOWED\` for another parent.
- **Self-serve keys**: a name owner signs in (EIP-4361: \`POST /api/v1/auth/nonce\`, \`POST /api/v1/auth/session\` →
  bearer token) and issues keys (\`POST /api/v1/keys\`) for the names it controls on chain: the NameWrapper owner of a
  wrapped name, else its registry owner. Such a key follows control: 401 \`KEY_OWNER_CHANGED\` once its issuer no
  longer controls the name (within NAME_CONTROL_CACHE_MS); a key with webhooks is revoked by a periodic check within
  NAME_CONTROL_CACHE_MS, so its webhooks stop although the key is not used. \`GET /api/v1/parents/{parentName}/setup\` lists the
  transactions that point the name at our offchain resolver.
- **Create or update** (\`POST /api/v1/subnames\`) answers 201 when created and 200 when updated; lists that are
  present replace the stored ones, absent fields are kept, \`null\` clears \`owner\`, \`contenthash\` or \`ttl\`.
  Duplicate keys (or coin types) inside one list are a 400. Limits: 100 text records (key ≤ 255, value ≤ 4096
  characters), 50 address records (each valid for its coin type, stored in canonical form, e.g. EIP-55), 20
  metadata entries (key ≤ 64, value ≤ 256, the whole map ≤ 1024 bytes as JSON: it is kept in an index for fast
  counts), contenthash ≤ 512 characters and encodable (ipfs, ipns, bzz, sia, ar), ttl 0 to 2^31-1 seconds. A label
  is one ENSIP-15 label of at most 255 bytes.
- **Records**: \`addresses\` is keyed by coin type (decimal); \`owner\`, \`contenthash\` and \`ttl\` are null when unset.
- **Delete** answers 204 with no body.
- **Search** orders by label (then parent name); \`page\` is at most 10000.
- **Gateway** (EIP-3668): unknown names answer every record as unset (zero address, empty bytes or string), signed.
- **L2 gateway** (\`/api/v1/gateway/l2/{network}/{registry}\`): records of subnames on Base read from our L2Registry
  at the L2's latest block (at most L2_MAX_BLOCK_AGE_SECONDS old), cached L2_ANSWER_CACHE_MS, signed with the same key;
  an unreachable, stale, lying or garbage-answering L2 RPC node is a 503 or 502, never a signed answer.
- **Webhooks** (\`/api/v1/webhooks\`) belong to an API key and receive the events of its parents: \`subname.*\` from
  this service, \`image.*\` from metadata-svc and \`mint.signed\` from mint-svc, which write them to their own
  outbox in the transaction of the change and relay them to \`POST /internal/v1/events\` (no service reads another's
  tables). Standard Webhooks signatures, at least once, retried with backoff for 24 hours; see the routes.
- **Bulk import and export**: \`POST /api/v1/subnames/bulk\` (1,000 items, atomic by default, Idempotency-Key) and
  \`GET /api/v1/subnames/export\` (NDJSON, resumable with a label cursor).
- **Rate limits** per client IP (RATE_LIMIT_PER_MINUTE) are shared by the replicas through Redis when REDIS_URL is set;
  the gateway routes have a larger per-client share (GATEWAY_CLIENT_RATE_LIMIT_PER_MINUTE) under one ceiling for all
  clients (GATEWAY_RATE_LIMIT_PER_MINUTE) instead: batch gateways carry many users' lookups from a few addresses.
  Invalid gateway requests count against their client's share only.
- **Caches**: gateway answers and subname reads are cached per replica for ANSWER_CACHE_SECONDS (in ANSWER_CACHE_MB);
  every committed write drops its name's answers in every replica at once (Redis pub/sub), so a read after a write
  sees it; a lost invalidation is stale for at most ANSWER_CACHE_SECONDS.`;

/** Events (and their deliveries) are kept this long once no delivery is pending. */
export const EVENT_RETENTION_DAYS = 30;
/** Idempotency keys of bulk imports are remembered this long. */
export const IDEMPOTENCY_KEY_HOURS = 24;
const RETENTION_INTERVAL_MS = 3600_000;

/** What tests hand in instead of the database the config names; it is migrated, and never closed here. */
export type OffchainOverrides = Pick<ServiceOverrides<OffchainDatabase>, 'database' | 'now'>;

export const createService: ServiceFactory<Config, OffchainContext, OffchainOverrides> = async (
  config,
  logger,
  overrides = {},
) => {
  // The handle owns the connection: it is pinged and closed here; everything else queries its Kysely, `db`.
  const database = overrides.database ?? openDatabase(config);
  const { db } = database;
  const onShutdown: Array<() => Promise<void>> = overrides.database ? [] : [() => database.close()];
  await startUpSteps(onShutdown, async () => {
    await migrateDatabase(database);
    if (config.BOOTSTRAP_API_KEY_HASH) {
      const parents = config.BOOTSTRAP_API_KEY_PARENTS ?? [];
      await upsertApiKey(db, {
        keyHash: config.BOOTSTRAP_API_KEY_HASH.toLowerCase(),
        parents,
        note: 'bootstrap (BOOTSTRAP_API_KEY_HASH)',
      });
      logger.info({ parents }, 'bootstrap API key installed');
    }
  });
  if (!config.GATEWAY_SIGNER_KEY)
    logger.warn('GATEWAY_SIGNER_KEY is not set: the CCIP-Read gateway answers 503');
  // Redis (when configured) shares the rate-limit counters between replicas.
  const redis = redisFromConfig(config, logger, onShutdown);
  const readiness: Record<string, () => Promise<unknown>> = { database: () => database.ping() };
  const webhookSettings: WebhookSettings = {
    allowedOrigins: config.WEBHOOK_ALLOWED_ORIGINS ?? [],
    retryBaseMs: config.WEBHOOK_RETRY_BASE_MS,
    retryWindowMs: config.WEBHOOK_RETRY_WINDOW_MS,
    timeoutMs: config.WEBHOOK_TIMEOUT_MS,
  };
  const metrics = createServiceMetrics(SERVICE_NAME);
  const providers = createNetworkProviders(networksFromEnv(config), metrics.rpcCallsOf, onShutdown);
  const now = overrides.now ?? (() => new Date());
  const nonces = createNonceStore(db, { table: NONCE_TABLE, ttlMs: config.NONCE_TTL_MS });
  const cacheLimits = {
    maxBytes: config.ANSWER_CACHE_MB * 1024 * 1024,
    ttlMs: config.ANSWER_CACHE_SECONDS * 1000,
    now: Date.now,
  };
  const caches: OffchainContext['caches'] = {
    gateway: new AnswerCache(cacheLimits),
    subnames: new AnswerCache(cacheLimits),
  };
  const l2Networks = l2NetworksFromEnv(config);
  const l2Providers = createL2Providers(l2Networks, metrics.rpcCallsOf, onShutdown);
  const l2Gateway: OffchainContext['l2Gateway'] = {
    reader: createL2RecordReader(l2Networks, l2Providers, {
      maxBlockAgeSeconds: config.L2_MAX_BLOCK_AGE_SECONDS,
      now: () => now().getTime(),
    }),
    // Its own cache: no key can meet an offchain answer, and offchain writes never drop L2 answers.
    cache: new AnswerCache({ ...cacheLimits, ttlMs: config.L2_ANSWER_CACHE_MS, now: () => now().getTime() }),
  };
  const changes = recordChanges(Object.values(caches), logger, redis, onShutdown);
  const context: OffchainContext = {
    config,
    logger,
    db,
    events: eventRecorder(config.WEBHOOK_RETRY_WINDOW_MS, changes),
    webhooks: webhookSettings,
    providers,
    nonces,
    nameControl: cachedNameControl(providers, config.NAME_CONTROL_CACHE_MS, () => now().getTime()),
    now,
    caches,
    gatewayReads: new GatewayRecordReads(db, () => caches.gateway.generation()),
    gatewaySigning: {
      signerKey: config.GATEWAY_SIGNER_KEY,
      ttlSeconds: config.GATEWAY_TTL_SECONDS,
      now: () => now().getTime(),
    },
    l2Gateway,
    l2Networks,
    l2ParentNames: new L2ParentDirectory(l2Providers),
    l2Provers: createL2Provers(config, l2Networks, providers, l2Providers),
  };

  const routes = [
    ...subnameRoutes(context),
    ...keyRoutes(context),
    ...webhookRoutes(context),
    ...gatewayRoutes(context, {
      redis,
      onAnswer: (outcome) => metrics.gatewayAnswers.inc({ outcome }),
    }),
  ];
  const app = createApp({
    service: SERVICE_NAME,
    version,
    description,
    logger,
    // Every route reads the database: 503 SERVICE_UNAVAILABLE while it is down.
    everyRouteProblems: [commonProblems.SERVICE_UNAVAILABLE],
    routes,
    readiness,
    config,
    redis,
    metrics,
  });
  const dispatcher = webhookDispatcher(context);
  const deliveries = startPeriodic(
    'webhook-deliveries',
    config.WEBHOOK_DELIVERY_INTERVAL_MS,
    () => dispatcher.deliverDue(),
    logger,
  );
  // Webhooks of a self-serve key stop once its issuer lost the name, within the control cache's life (each second
  // when the cache is off).
  const keyControl = startPeriodic(
    'key-control',
    config.NAME_CONTROL_CACHE_MS || 1000,
    () => revokeKeysOfLostNames(context),
    logger,
  );
  const retention = startPeriodic(
    'webhook-retention',
    RETENTION_INTERVAL_MS,
    async () => ({
      events: await pruneEvents(db, EVENT_RETENTION_DAYS),
      idempotencyKeys: await pruneIdempotencyKeys(db, IDEMPOTENCY_KEY_HOURS),
      sessions: await pruneSessions(db, now()),
    }),
    logger,
  );
  // Workers stop first, so nothing runs against a closed database.
  onShutdown.unshift(
    () => deliveries.stop(),
    () => keyControl.stop(),
    () => dispatcher.stop(),
    () => retention.stop(),
    startNonceSweeper(nonces, config.NONCE_SWEEP_INTERVAL_MS, logger, now),
  );
  return {
    app,
    version,
    onShutdown,
    routes,
    context,
    metrics,
  };
};
