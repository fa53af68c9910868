import { createNonceStore, startNonceSweeper } from '@nrp/auth';
import {
  createL2Providers,
  createNetworkProviders,
  L2ParentDirectory,
  l2NetworksFromEnv,
  networksFromEnv,
} from '@nrp/chain';
import { createEventOutbox, eventRelayEnabled, startEventRelay } from '@nrp/outbox';
import {
  createApp,
  createServiceMetrics,
  redisFromConfig,
  startUpSteps,
  type ServiceFactory,
  type ServiceOverrides,
} from '@nrp/server';
import { commonProblems } from '@nrp/validation';
import { version } from '../package.json';
import type { Config } from './config';
import type { MintContext } from './context';
import { migrateDatabase, openDatabase } from './data/database';
import { EVENT_OUTBOX_TABLE, NONCE_TABLE, type MintDatabase } from './data/schema';
import { loadListingFile } from './listings/listing-file';
import { listingRoutes } from './listings/routes';
import { minterRoutes } from './minters/routes';
import { controllerReadiness, l2MintControllers, mintNetworks } from './mint/networks';
import { mintRoutes } from './mint/routes';
import { signerFromConfig } from './mint/signer';
import { startNameIndexers } from './names-index/indexers';
import { namesIndexRoutes } from './names-index/routes';
import { signInRoutes } from './sign-in/routes';

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

/** What tests hand in instead of the database and clock the config describes; never closed here. */
export type MintOverrides = Pick<ServiceOverrides<MintDatabase>, 'database' | 'now'>;

export const createService: ServiceFactory<Config, MintContext, MintOverrides> = async (
  config,
  logger,
  overrides = {},
) => {
  const signer = signerFromConfig(config.SIGNER_PRIVATE_KEY);
  const onShutdown: Array<() => Promise<void>> = [];
  // The handle owns the connection: it is pinged and closed here; everything else queries its Kysely, `db`.
  const database = overrides.database ?? openDatabase(config);
  if (!overrides.database) onShutdown.push(() => database.close());
  await startUpSteps(onShutdown, () => migrateDatabase(database));
  const metrics = createServiceMetrics(SERVICE_NAME);
  const providers = createNetworkProviders(networksFromEnv(config), metrics.rpcCallsOf, onShutdown);
  const l2Providers = createL2Providers(l2NetworksFromEnv(config), metrics.rpcCallsOf, onShutdown);
  const nonces = createNonceStore(database.db, { table: NONCE_TABLE, ttlMs: config.NONCE_TTL_MS });
  const ctx: MintContext = {
    config,
    logger,
    networks: mintNetworks(config, providers),
    l2: l2MintControllers(config, l2Providers, new L2ParentDirectory(l2Providers)),
    nonces,
    signer,
    db: database.db,
    events: createEventOutbox(EVENT_OUTBOX_TABLE, eventRelayEnabled(config, config.OFFCHAIN_URL)),
    now: overrides.now ?? (() => new Date()),
  };
  const listingFile = config.LISTINGS_FILE;
  if (listingFile) {
    await startUpSteps(onShutdown, async () => {
      const count = await loadListingFile(listingFile, ctx.db, ctx.now());
      logger.info({ file: listingFile, count }, 'listings loaded');
    });
  }

  // Expired nonces are deleted, so the nonce table stays the size of the live ones. Stops before the database closes.
  const eventRelay = startEventRelay(database.db, EVENT_OUTBOX_TABLE, config, config.OFFCHAIN_URL, logger);
  onShutdown.unshift(startNonceSweeper(nonces, config.NONCE_SWEEP_INTERVAL_MS, logger, ctx.now), () =>
    eventRelay.stop(),
  );
  const indexers = startNameIndexers(ctx, metrics.registry);
  onShutdown.unshift(() => indexers.stop());

  const readiness: Record<string, () => Promise<unknown>> = {
    database: () => database.ping(),
    ...indexers.readiness,
    ...controllerReadiness(ctx),
  };
  // Redis (when configured) shares the rate-limit counters between replicas.
  const redis = redisFromConfig(config, logger, onShutdown);

  const routes = [
    ...mintRoutes(ctx, (network) => metrics.mintSignatures.inc({ network })),
    ...listingRoutes(ctx),
    ...signInRoutes(ctx),
    ...minterRoutes(ctx),
    ...namesIndexRoutes(ctx),
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
