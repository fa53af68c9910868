import { Wallet, type Provider } from 'ethers';
import { createNonceStore, startNonceSweeper } from '@nrp/auth';
import {
  createL2Providers,
  createNetworkProviders,
  isUpstreamError,
  l2EnvPrefix,
  l2NetworksFromEnv,
  mintControllerInterface,
  networksFromEnv,
  perNetwork,
  readView,
  type NetworkName,
  type NetworkProviders,
} from '@nrp/chain';
import { perL2Network, type L2NetworkName } from '@nrp/ens';
import { createEventOutbox, eventRelayEnabled, startEventRelay } from '@nrp/outbox';
import {
  ConfigError,
  createApp,
  createServiceMetrics,
  NotReady,
  redisFromConfig,
  startUpSteps,
  type ServiceFactory,
  type ServiceOverrides,
} from '@nrp/server';
import { DEFAULT_BASE_REGISTRAR, type Config } from './config';
import type { MintNetworkContext, MintServiceContext } from './context';
import { migrateDatabase, openDatabase } from './data/database';
import { EVENT_OUTBOX_TABLE, NONCE_TABLE, type MintDatabase } from './data/schema';
import { L2ParentDirectory } from './l2-parents';
import { loadListingFile } from './listing-file';
import { mintNonceRoute, verifyMinterRoute } from './routes/auth';
import { estimateRoute } from './routes/estimate';
import { listingRoutes } from './routes/listings';
import { mintRoute } from './routes/mint';
import { namesRoute } from './routes/names';
import { startNameIndexers } from './name-indexers';
import { version } from '../package.json';
import { commonProblems } from '@nrp/validation';
import { Gauge } from 'prom-client';

export const SERVICE_NAME = 'mint-svc';

const description = `Mint service: listings, estimates and EIP-712 signed mint parameters.

- **Networks**: mainnet (chain id 1) and sepolia (11155111), and the L2s base (8453, settling on mainnet) and
  base-sepolia (84532, settling on sepolia). Estimates and mints take \`network\`, or \`isTestnet\` (Namespace's SDK):
  \`network\` decides, an \`isTestnet\` contradicting it is 400; with only \`isTestnet\` (default false) the listing is
  looked up on the L1 of that kind, then on its L2.
- **L2 parents**: a parent's subnames on an L2 are the ERC-721 tokens of its L2Registry, minted by an L2MintController
  (\`BASE_L2_MINT_CONTROLLERS\`, \`BASE_SEPOLIA_L2_MINT_CONTROLLERS\`; the parent each serves is read from chain: its
  \`registry()\`, then the registry's \`parentName()\`). The parent is owned, listed and signed in for on the L1 the
  L2 settles on; the signature is for the L2 controller and chain id.
- **Amounts** are wei as decimal strings (\`price\`, \`fee\`, listing prices): digits only, no sign, exponent,
  fraction or leading zero, below 2^256 (\`1e3\`, \`1.5\`, \`-0\` are 400 before any sign-in check); the estimate's
  ether numbers are the nearest doubles to the exact amounts, which it also returns as
  \`estimatedPriceWei\`/\`estimatedFeeWei\`.
  \`price\` is the listing's yearly price for the label's length (code points) times \`expiryInYears\` (whole years,
  1 to 100); the fee is the fixed standard fee per mint, or a share (basis points, rounded down) of the price.
- **Times**: \`expiry\` and \`signatureExpiry\` are Unix seconds; \`expiry\` is capped at the parent's expiry
  (NameWrapper \`getData\`, and the .eth registrar expiry of its second-level name). An expired parent is 410.
- **Signature**: EIP-712 \`MintContext(address owner,string label,bytes32 parentNode,uint256 price,uint256 fee,
  address paymentReceiver,uint64 expiry,uint256 signatureExpiry,address verifiedMinter,uint32 fuses)\`, domain
  \`{ name: "NameRecordsMint", version: "1", chainId, verifyingContract: <mint controller> }\`.
  \`verifiedMinter\` is \`minterAddress\`: only that address can send the mint transaction.
- **Listings** are managed by the parent's on-chain owner with sign-in messages (nonce scope \`listing\` from
  \`POST /api/v1/auth/nonce\`), or loaded by the operator from LISTINGS_FILE at start. A listing made through the
  API lapses (404) once its signer no longer owns the parent. \`POST /api/v1/mint\` answers 409
  \`PARENT_NOT_APPROVED\` while the parent's owner has not approved the mint controller.
- **Verified minters**: a listing with \`requireVerifiedMinter\` only mints to addresses that proved control of
  their key with a sign-in (nonce scope \`minter\`, \`POST /api/v1/minters/verify\`); \`minterAddress\` itself is
  always required (400 when missing).
- **Events**: every signed mint emits \`mint.signed\` (data: network, chainId, name, parentName, the signed
  parameters without the signature), written to this service's outbox (table mint_event_outbox) before the answer
  and relayed at least once to offchain-svc (OFFCHAIN_URL + /internal/v1/events, bearer EVENTS_INGEST_TOKEN), which
  delivers it to the webhooks of the parent. Without OFFCHAIN_URL or EVENTS_INGEST_TOKEN no events are written.
- **Names index**: each network with a mint controller is indexed from its \`*_INDEX_START_BLOCK\` (the controller's
  \`SubnameMinted\`, then each name's holder and NameWrapper expiry; on an L2 the L2MintControllers' mints and their
  registries' \`Transfer\` and \`NameRegistered\`), INDEX_CONFIRMATIONS blocks under the head, one
  replica per network at a time (a lease in the database), each batch of blocks written whole with its cursor. A
  reorganisation of indexed blocks is undone (names minted there go, holders return to their state before). Every
  mint emits \`name.minted\` and every change of holder \`name.transferred\` (data: network, chainId, name,
  parentName, owner or from/to, wrapped, expiry, txHash, blockNumber), through the same outbox; an event of a block
  later reorganised away is not withdrawn. \`GET /api/v1/names\` lists the index.`;

const SIGNER_KEY = /^0x[0-9a-fA-F]{64}$/;

/** The signing wallet, or a ConfigError that never echoes the key. */
function signerFromConfig(key: string | undefined): Wallet {
  if (!key)
    throw new ConfigError(
      'SIGNER_PRIVATE_KEY: required (0x + 64 hex digits); the service does not start without it',
    );
  if (!SIGNER_KEY.test(key)) {
    throw new ConfigError('SIGNER_PRIVATE_KEY: must be 0x followed by 64 hex digits (value not shown)');
  }
  try {
    return new Wallet(key);
  } catch {
    throw new ConfigError('SIGNER_PRIVATE_KEY: not a valid secp256k1 private key (value not shown)');
  }
}

function networkContexts(
  config: Config,
  providers: NetworkProviders,
): Record<NetworkName, MintNetworkContext> {
  const build = (name: NetworkName): MintNetworkContext => {
    const provider = providers[name];
    const net = provider.config;
    const prefix = name.toUpperCase() as Uppercase<NetworkName>;
    return {
      config: net,
      provider,
      contracts: {
        ensRegistry: net.ens.ensRegistry,
        nameWrapper: net.ens.nameWrapper,
        baseRegistrar: config[`${prefix}_BASE_REGISTRAR`] ?? DEFAULT_BASE_REGISTRAR,
      },
      mintController: config[`${prefix}_MINT_CONTROLLER`],
    };
  };
  return perNetwork(build);
}

/** The L2 mint controllers of `network` (`<L2>_L2_MINT_CONTROLLERS`). */
function l2MintControllers(config: Config, network: L2NetworkName): string[] {
  return config[`${l2EnvPrefix(network) as 'BASE' | 'BASE_SEPOLIA'}_L2_MINT_CONTROLLERS`];
}

/**
 * Readiness of a configured L2 controller: NotReady naming `<L2>_L2_MINT_CONTROLLERS` and the address when it does not
 * answer as an L2MintController (no contract there, another contract, a registry without a parent name); a node
 * that does not answer is reported as unreachable, not as a bad address.
 */
async function assertL2MintController(directory: L2ParentDirectory, controller: string): Promise<void> {
  try {
    await directory.parentOf(controller);
  } catch (err) {
    if (!isUpstreamError(err) || err.upstreamCode === 'UNREACHABLE' || err.upstreamCode === 'TIMEOUT')
      throw err;
    throw new NotReady(
      `${l2EnvPrefix(directory.network)}_L2_MINT_CONTROLLERS: ${controller} is not an L2 mint controller on ` +
        `${directory.network} (${err.upstreamMessage})`,
    );
  }
}

/** The env prefix of a network's names index settings. */
type IndexPrefix = 'MAINNET' | 'SEPOLIA' | 'BASE' | 'BASE_SEPOLIA';

/** What tests hand in instead of the database and clock the config describes; never closed here. */
export type MintOverrides = Pick<ServiceOverrides<MintDatabase>, 'database' | 'now'>;

export const createService: ServiceFactory<Config, MintServiceContext, MintOverrides> = async (
  config,
  logger,
  overrides = {},
) => {
  const signer = signerFromConfig(config.SIGNER_PRIVATE_KEY);
  // The handle owns the connection: it is pinged and closed here; everything else queries its Kysely, `db`.
  const database = overrides.database ?? openDatabase(config);
  const onShutdown: Array<() => Promise<void>> = [];
  if (!overrides.database) onShutdown.push(() => database.close());
  const metrics = createServiceMetrics(SERVICE_NAME);
  const networks = networkContexts(
    config,
    createNetworkProviders(networksFromEnv(config), metrics.rpcCallsOf, onShutdown),
  );
  const l2Providers = createL2Providers(l2NetworksFromEnv(config), metrics.rpcCallsOf, onShutdown);
  const l2 = perL2Network(
    (name) => new L2ParentDirectory(name, l2Providers[name], l2MintControllers(config, name)),
  );
  const nonces = createNonceStore(database.db, { table: NONCE_TABLE, ttlMs: config.NONCE_TTL_MS });
  const ctx: MintServiceContext = {
    config,
    logger,
    networks,
    l2,
    nonces,
    signer,
    db: database.db,
    events: createEventOutbox(EVENT_OUTBOX_TABLE, eventRelayEnabled(config, config.OFFCHAIN_URL)),
    now: overrides.now ?? (() => new Date()),
  };
  await startUpSteps(onShutdown, async () => {
    await migrateDatabase(database);
    if (config.LISTINGS_FILE) {
      const count = await loadListingFile(config.LISTINGS_FILE, ctx.db, ctx.now());
      logger.info({ file: config.LISTINGS_FILE, count }, 'listings loaded');
    }
  });

  // Expired nonces are deleted, so the nonce table stays the size of the live ones. Stops before the database closes.
  const eventRelay = startEventRelay(database.db, EVENT_OUTBOX_TABLE, config, config.OFFCHAIN_URL, logger);
  onShutdown.unshift(startNonceSweeper(nonces, config.NONCE_SWEEP_INTERVAL_MS, logger, ctx.now), () =>
    eventRelay.stop(),
  );

  const lagGauge = new Gauge({
    name: 'name_index_lag_blocks',
    help: 'Blocks between the confirmed head and the names index, by network.',
    labelNames: ['network'],
    registers: [metrics.registry],
  });
  const failuresGauge = new Gauge({
    name: 'name_index_failures',
    help: 'Failed runs in a row of the names index, by network (0 after a run that succeeded).',
    labelNames: ['network'],
    registers: [metrics.registry],
  });
  const indexers = startNameIndexers(
    ctx,
    (name) => ({
      startBlock: config[`${name.toUpperCase().replace('-', '_') as IndexPrefix}_INDEX_START_BLOCK`],
      confirmations: config.INDEX_CONFIRMATIONS,
      batchBlocks: config.INDEX_BATCH_BLOCKS,
      leaseMs: config.INDEX_LEASE_MS,
      intervalMs: config.INDEX_INTERVAL_MS,
      maxBackoffMs: config.INDEX_MAX_BACKOFF_MS,
    }),
    logger,
    (network) => ({
      lag: (blocks) => lagGauge.set({ network }, blocks),
      failures: (count) => failuresGauge.set({ network }, count),
    }),
  );
  onShutdown.unshift(() => indexers.stop());

  const readiness: Record<string, () => Promise<unknown>> = { database: () => database.ping() };
  for (const [name, index] of indexers.indexes) {
    readiness[`${name}-index`] = async () => {
      const lag = await index.lag();
      const { failures, retryInMs } = index.health();
      const failing = failures > 0 ? `; ${failures} failed runs in a row (next in ${retryInMs} ms)` : '';
      if (lag > config.INDEX_MAX_LAG_BLOCKS) {
        throw new NotReady(
          `the names index is ${lag} blocks behind (INDEX_MAX_LAG_BLOCKS ${config.INDEX_MAX_LAG_BLOCKS})${failing}`,
        );
      }
      return `ok, ${lag} blocks behind${failing}`;
    };
  }
  // Redis (when configured) shares the rate-limit counters between replicas.
  const redis = redisFromConfig(config, logger, onShutdown);
  const controllerReadiness = (provider: Provider, controllerAddress: string) => async () => {
    // Ready when the node answers and the controller trusts this service's signer (and pays our treasury).
    const read = <T extends readonly unknown[]>(fn: 'signers' | 'treasury', args: unknown[]) =>
      readView<T>(provider, {
        to: controllerAddress,
        abi: mintControllerInterface,
        fn,
        args,
        context: `mint controller ${fn}`,
      });
    const [[trusted], [treasury]] = await Promise.all([
      read<[boolean]>('signers', [signer.address]),
      read<[string]>('treasury', []),
    ]);
    if (trusted !== true) throw new NotReady(`the controller does not trust signer ${signer.address}`);
    if (config.TREASURY_ADDRESS && treasury.toLowerCase() !== config.TREASURY_ADDRESS.toLowerCase()) {
      throw new NotReady(`the controller's treasury ${treasury} is not TREASURY_ADDRESS`);
    }
  };
  for (const [name, net] of Object.entries(networks)) {
    if (net.mintController)
      readiness[`${name}-controller`] = controllerReadiness(net.provider, net.mintController);
  }
  for (const directory of Object.values(l2)) {
    for (const controller of directory.controllers) {
      const trustsSigner = controllerReadiness(directory.provider, controller);
      readiness[`${directory.network}-controller-${controller}`] = async () => {
        await assertL2MintController(directory, controller);
        await trustsSigner();
      };
    }
  }

  const routes = [
    estimateRoute(ctx),
    mintRoute(ctx, (network) => metrics.mintSignatures.inc({ network })),
    ...listingRoutes(ctx),
    mintNonceRoute(ctx),
    verifyMinterRoute(ctx),
    namesRoute(ctx),
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
  logger.info({ signer: signer.address }, 'mint signer ready');
  return { app, version, onShutdown, routes, context: ctx, metrics };
};
