import { createNetworkProviders, networksFromEnv } from '@nrp/chain';
import {
  createApp,
  createServiceMetrics,
  noCacheRateLimit,
  redisFromConfig,
  type ServiceFactory,
} from '@nrp/server';
import { version } from '../package.json';
import { chainRoutes } from './chains/routes';
import type { Config } from './config';
import type { ResolverContext } from './context';
import { AddressNamesLookup } from './names/address-names';
import { namesRoutes } from './names/routes';
import { profileRoutes } from './profiles/routes';
import { recordRoutes } from './records/routes';
import { renderedAnswers } from './resolution/answers';
import { ResultCache } from './resolution/cache';
import { DEFAULT_CHAINS, DEFAULT_TEXT_KEYS } from './resolution/records';
import { Resolution } from './resolution/resolution';
import { reverseRoutes } from './reverse/routes';

export const SERVICE_NAME = 'resolver-svc';

const description = `Name resolution service: profiles, multichain addresses, text records and verified reverse profiles.

**Resolution.** Every lookup goes through the network's ENS universal resolver: ENSIP-10 wildcard resolvers and
EIP-3668 CCIP-Read (offchain resolvers) included. All records of one request are batched into one \`multicall\`,
so a cold profile costs one \`eth_call\` (two when a CCIP-Read gateway answers). Names are normalised with
ENSIP-15; responses carry the normalised name.

**Network.** Each request may pass \`network=mainnet|sepolia\`; without it the service's \`DEFAULT_NETWORK\`
(default \`mainnet\`) is used. Cache entries are per network.

**Defaults.** Without a selection a profile lists the text keys ${DEFAULT_TEXT_KEYS.join(', ')} and the
addresses of ${DEFAULT_CHAINS.join(', ')}. Every requested record is listed, \`exists: false\` with an empty value
when unset. Address values are in the chain's native format; a coin type without a known format, or bytes that do
not fit it, are returned as raw 0x-hex with \`exists: true\`. A contenthash whose codec has no URI scheme is raw
0x-hex too. A resolver answer that does not decode is an upstream failure (502, code BAD_DATA).

**Caching.** Forward answers are cached for FORWARD_CACHE_TTL_SECONDS and reverse answers (address → verified
primary name) for REVERSE_CACHE_TTL_SECONDS (5 minutes each by default), in process (LRU) and in Redis when
REDIS_URL is set. \`noCache=true\` resolves on chain and refreshes the cache; such requests have a stricter per-IP
limit of their own (NO_CACHE_RATE_LIMIT_PER_MINUTE, 60 by default, shared by all routes). Concurrent identical requests share
one upstream call. \`Cache-Control: public, max-age=<seconds left>\` fits the cached answer's remaining lifetime.

**Upstream failures.** An RPC node that is down, slower than RPC_TIMEOUT_MS or answers an error, and a CCIP-Read
gateway that fails, answer 502 \`UPSTREAM_ERROR\` whose \`upstream\` member holds the upstream's own \`message\` and
\`code\` (ethers code such as TIMEOUT, SERVER_ERROR, OFFCHAIN_FAULT, or the universal resolver's error name).
A name without resolver or an unknown name is not an error. Failures are never cached.

**Names of an address.** \`GET /ens/v2/names/{address}\` merges the names minted through our controller (mint-svc,
MINT_URL), on the network and on the L2 that settles on it (\`base-sepolia\` for \`sepolia\`, \`base\` for
\`mainnet\`), with the offchain subnames the address owns (offchain-svc, OFFCHAIN_URL); a source that fails is
reported in the answer (\`partial\`, \`failedSources\`), never as a 5xx.`;

export const createService: ServiceFactory<Config, ResolverContext> = async (config, logger) => {
  const onShutdown: Array<() => Promise<void>> = [];
  const redis = redisFromConfig(config, logger, onShutdown);
  const metrics = createServiceMetrics(SERVICE_NAME);
  const cache = new ResultCache({
    maxEntries: config.CACHE_MAX_ENTRIES,
    redis,
    prefix: config.CACHE_REDIS_PREFIX,
    logger,
    onLookup: (source) =>
      metrics.cacheLookups.inc({ cache: 'results', result: source === 'upstream' ? 'miss' : 'hit' }),
  });
  const resolution = new Resolution({
    providers: createNetworkProviders(networksFromEnv(config), metrics.rpcCallsOf, onShutdown),
    cache,
    forwardTtlMs: config.FORWARD_CACHE_TTL_SECONDS * 1000,
    reverseTtlMs: config.REVERSE_CACHE_TTL_SECONDS * 1000,
    resolveTimeoutMs: config.RESOLVE_TIMEOUT_MS,
    avatarBaseUrl: config.METADATA_PUBLIC_URL,
  });
  const ctx: ResolverContext = {
    config,
    logger,
    resolution,
    rendered: renderedAnswers(),
    addressNames: new AddressNamesLookup({
      mintUrl: config.MINT_URL,
      offchainUrl: config.OFFCHAIN_URL,
      timeoutMs: config.NAMES_UPSTREAM_TIMEOUT_MS,
      pageSize: config.NAMES_PAGE_SIZE_PER_SOURCE,
      ttlMs: config.NAMES_CACHE_TTL_SECONDS * 1000,
      cache,
      resolution,
      logger,
    }),
    noCacheLimit: noCacheRateLimit(config.NO_CACHE_RATE_LIMIT_PER_MINUTE),
  };
  const readiness: Record<string, () => Promise<unknown>> = {
    [`rpc:${config.DEFAULT_NETWORK}`]: () => resolution.provider(config.DEFAULT_NETWORK).getBlockNumber(),
  };

  const routes = [
    ...profileRoutes(ctx),
    ...recordRoutes(ctx),
    ...reverseRoutes(ctx),
    ...chainRoutes(),
    ...namesRoutes(ctx),
  ];
  const app = createApp({
    service: SERVICE_NAME,
    version,
    description,
    logger,
    routes,
    readiness,
    config,
    redis,
    metrics,
  });
  return { app, version, onShutdown, routes, context: ctx, metrics };
};
