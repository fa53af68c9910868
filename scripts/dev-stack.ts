/**
 * `npm start`: the whole platform on embedded defaults. anvil as Sepolia (chain id 11155111, ENS at Sepolia's
 * addresses, so clients configured for Sepolia work as they are) with demo names, a second anvil as Base Sepolia
 * (84532, a block every 2 s as Base) with our L2Registries of `l2.eth` (signed gateway) and `proven.eth` (storage
 * proofs against the L2 output roots a proposer posts on the L1 every PROPOSE_EVERY_MS), then the four services in
 * this process on PGlite and local blob storage under `.data/`.
 * The console (apps/console) is served on CONSOLE_PORT (3000). Writes `.data/dev-stack.json`; Ctrl-C stops everything, anvil included.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import path from 'node:path';
import type { z } from 'zod';
import {
  type BaseConfig,
  loadConfig,
  type RunningService,
  type ServiceContext,
  type ServiceFactory,
  startService,
} from '@nrp/server';
import { DEFAULT_EVM_COIN_TYPE, L2_NETWORK_CHAIN_IDS } from '@nrp/ens';
// The test kit's modules this script runs, not its index: that loads every test tool (fast-check, pg, …) first.
import { type AnvilNode, setIntervalMining, startAnvil } from '@nrp/testkit/src/anvil';
import { deployDevL2Parent, deployDevProvenL2Parent, type DevProvenL2Parent } from '@nrp/testkit/src/dev-l2';
import {
  DEV_L2_PARENT,
  DEV_PROVEN_L2_PARENT,
  type DevStackContext,
  type DevStackContribution,
  type DevStackHook,
} from '@nrp/testkit/src/dev-stack';
import { BASE_COIN_TYPE, deployEns, type EnsFixture } from '@nrp/testkit/src/ens-fixture';
import * as metadata from '../apps/metadata-svc/dev/dev-stack';
import * as metadataService from '../apps/metadata-svc/src/service';
import * as metadataConfig from '../apps/metadata-svc/src/config';
import * as mint from '../apps/mint-svc/dev/dev-stack';
import * as mintService from '../apps/mint-svc/src/service';
import * as mintConfig from '../apps/mint-svc/src/config';
import * as offchain from '../apps/offchain-svc/dev/dev-stack';
import * as offchainService from '../apps/offchain-svc/src/service';
import * as offchainConfig from '../apps/offchain-svc/src/config';
import * as resolver from '../apps/resolver-svc/dev/dev-stack';
import * as resolverService from '../apps/resolver-svc/src/service';
import * as resolverConfig from '../apps/resolver-svc/src/config';
import { buildConsolePage } from '../apps/console/scripts/build';
import { createConsoleServer } from '../apps/console/src/server';

/** Seconds between the L2's blocks once the stack runs, as on Base. */
const L2_BLOCK_SECONDS = 2;
/** How often the proposer posts the L2's latest output root on L1 (three 2-second L2 blocks). */
const PROPOSE_EVERY_MS = 6000;

export interface ServiceModule {
  key: keyof DevStackContext['services'];
  name: string;
  port: number;
  hook: DevStackHook;
  /** Parses `env` with the service's config schema and runs its `createService`. */
  start(env: Record<string, string | undefined>): Promise<RunningService>;
}

function serviceModule<S extends z.ZodType<BaseConfig>>(
  module: Omit<ServiceModule, 'start'> & { schema: S; factory: ServiceFactory<z.output<S>, ServiceContext> },
): ServiceModule {
  const { schema, factory, ...rest } = module;
  return {
    ...rest,
    start: (env) => startService(module.name, loadConfig(schema, env), factory, { handleSignals: false }),
  };
}

function port(variable: string, fallback: number): number {
  const value = Number(process.env[variable] ?? fallback);
  if (!Number.isInteger(value) || value < 1 || value > 65535) {
    console.error(`Invalid configuration: ${variable} must be a port number (got ${process.env[variable]})`);
    process.exit(1);
  }
  return value;
}

export const services: ServiceModule[] = [
  // The offchain service first: its hook deploys the resolver of offchain.eth that the others may resolve through.
  serviceModule({
    key: 'offchain',
    name: offchainService.SERVICE_NAME,
    port: port('OFFCHAIN_PORT', 3003),
    hook: offchain.prepareDevStack,
    schema: offchainConfig.configSchema,
    factory: offchainService.createService,
  }),
  serviceModule({
    key: 'resolver',
    name: resolverService.SERVICE_NAME,
    port: port('RESOLVER_PORT', 3004),
    hook: resolver.prepareDevStack,
    schema: resolverConfig.configSchema,
    factory: resolverService.createService,
  }),
  serviceModule({
    key: 'mint',
    name: mintService.SERVICE_NAME,
    port: port('MINT_PORT', 3002),
    hook: mint.prepareDevStack,
    schema: mintConfig.configSchema,
    factory: mintService.createService,
  }),
  serviceModule({
    key: 'metadata',
    name: metadataService.SERVICE_NAME,
    port: port('METADATA_PORT', 3001),
    hook: metadata.prepareDevStack,
    schema: metadataConfig.configSchema,
    factory: metadataService.createService,
  }),
];

/** A 1×1 SVG: the demo avatar record is an ENSIP-12 `data:` URI, shown as is by every client. */
const DEMO_AVATAR =
  'data:image/svg+xml;base64,' +
  Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><rect width="1" height="1" fill="#5298ff"/></svg>',
  ).toString('base64');

/**
 * demo.eth: records, and the primary name of account 0 on Ethereum (`addr.reverse`) and, through the ENSIP-19
 * default EVM name, on every EVM chain (Base included: its own registrar falls back to the default one).
 */
async function seedDemoNames(ens: Awaited<ReturnType<typeof deployEns>>, owner: string): Promise<void> {
  await ens.registerEthName('demo', owner);
  await ens.setText('demo.eth', 'avatar', DEMO_AVATAR);
  await ens.setText('demo.eth', 'description', 'The demo name of the Name Records Platform');
  await ens.setText('demo.eth', 'url', 'https://example.com');
  await ens.setText('demo.eth', 'com.twitter', 'ensdomains');
  await ens.setText('demo.eth', 'com.github', 'ensdomains');
  await ens.setText('demo.eth', 'name', 'Demo');
  await ens.setAddr('demo.eth', owner);
  await ens.setContenthash(
    'demo.eth',
    '0xe3010170122029f2d17be6139079dc48696d1f582a8530eb9805b561eda517e22a892c7e3f1f',
  );
  await ens.setAddrForCoin('demo.eth', DEFAULT_EVM_COIN_TYPE, owner);
  await ens.setAddrForCoin('demo.eth', BASE_COIN_TYPE, owner);
  await ens.setReverseName(owner, 'demo.eth');
  await ens.setReverseName(owner, 'demo.eth', DEFAULT_EVM_COIN_TYPE);
}

/** The dev stack's two chains: L1 (Sepolia) and the L2 (Base Sepolia). */
export interface DevChains {
  l1: AnvilNode;
  l2: AnvilNode;
}

/**
 * Both anvils of the dev stack, mining a block per transaction while the stack sets itself up (a setup transaction
 * on the L2 would otherwise wait up to 2 s for its block); {@link startL2BlockTime} then gives the L2 Base's blocks.
 */
export async function startDevChains(ports: { l1?: number; l2?: number } = {}): Promise<DevChains> {
  const l1 = await startAnvil({ port: ports.l1 });
  try {
    const l2 = await startAnvil({ port: ports.l2, chainId: L2_NETWORK_CHAIN_IDS['base-sepolia'] });
    return { l1, l2 };
  } catch (err) {
    await l1.stop();
    throw err;
  }
}

/** Once the stack is set up: the L2 mines a block every 2 s as Base does, so its state is never stale. */
export async function startL2BlockTime(chains: DevChains): Promise<void> {
  await setIntervalMining(chains.l2, L2_BLOCK_SECONDS);
}

export async function stopDevChains(chains: DevChains): Promise<void> {
  await Promise.all([chains.l1.stop(), chains.l2.stop()]);
}

export interface DevChain {
  ctx: DevStackContext;
  /** `proven.eth`: its registry, resolver and the rollup whose proposer `npm start` runs. */
  provenL2: DevProvenL2Parent;
  /** What each service's hook added, in `services` order. */
  contributions: Map<ServiceModule, DevStackContribution>;
}

/**
 * ENS and the demo names on `anvil` (and the names `seed` registers, as the demo names' owner), then every
 * service's hook, for services that will listen at `urls`. Used by `npm start`, the benches and the image smoke
 * test (`scripts/images-smoke.ts`), so all run the same chain.
 */
export async function prepareDevChain(
  chains: DevChains,
  urls: DevStackContext['services'],
  dataDir: string,
  host: string,
  seed?: (ens: EnsFixture, owner: string) => Promise<void>,
): Promise<DevChain> {
  const { l1: anvil, l2 } = chains;
  const [owner, , , , , , , rollupOperator] = anvil.accounts;
  if (!owner || !rollupOperator) throw new Error('anvil started without accounts');
  const ens = await deployEns(anvil.rpcUrl, owner.privateKey);
  try {
    await seedDemoNames(ens, owner.address);
    await seed?.(ens, owner.address);
    const l2Registry = await deployDevL2Parent(ens, l2, owner);
    const provenL2 = await deployDevProvenL2Parent(
      ens,
      chains,
      owner,
      rollupOperator,
      `${urls.offchain}/api/v1/proofs/base-sepolia`,
    );
    const contracts: Record<string, string> = {
      ...ens.addresses,
      l2Registry,
      provenL2Registry: provenL2.registry,
      provenL2Resolver: provenL2.resolver,
      l2OutputOracle: provenL2.rollup.l2OutputOracle,
      optimismPortal: provenL2.rollup.optimismPortal,
      l2OutputFinder: provenL2.rollup.outputFinder,
      provenL2Verifier: provenL2.rollup.verifier,
    };
    const ctx: DevStackContext = {
      rpcUrl: anvil.rpcUrl,
      chainId: anvil.chainId,
      network: 'sepolia',
      l2: { rpcUrl: l2.rpcUrl, chainId: l2.chainId, network: 'base-sepolia' },
      contracts,
      accounts: anvil.accounts,
      services: urls,
      dataDir,
      env: {
        LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
        HOST: host,
        SEPOLIA_RPC_URL: anvil.rpcUrl,
        SEPOLIA_ENS_REGISTRY: ens.addresses.ensRegistry,
        SEPOLIA_NAME_WRAPPER: ens.addresses.nameWrapper,
        SEPOLIA_PUBLIC_RESOLVER: ens.addresses.publicResolver,
        SEPOLIA_REVERSE_REGISTRAR: ens.addresses.reverseRegistrar,
        SEPOLIA_UNIVERSAL_RESOLVER: ens.addresses.universalResolver,
        BASE_SEPOLIA_RPC_URL: l2.rpcUrl,
        BASE_SEPOLIA_L2_REGISTRIES: `${l2Registry},${provenL2.registry}`,
        // offchain-svc proves proven.eth's records against the dev rollup's output oracle, read at the latest block.
        BASE_SEPOLIA_PROOF_OPTIMISM_PORTAL: provenL2.rollup.optimismPortal,
        BASE_SEPOLIA_PROOF_OUTPUT_FINDER: provenL2.rollup.outputFinder,
        // The verifier offchain-svc's parent setup offers for a ProvenL2Resolver of a base-sepolia parent.
        BASE_SEPOLIA_PROOF_VERIFIER: provenL2.rollup.verifier,
        L2_PROOF_L1_BLOCK_TAG: 'latest',
        L2_PROOF_COMMIT_POLL_MS: '1000',
        // offchain-svc's CCIP-Read gateway is plain http on a local host: exempt it from the URL policy
        CCIP_READ_ALLOWED_ORIGINS: new URL(urls.offchain).origin,
        // metadata-svc and mint-svc relay their webhook events to offchain-svc with this token (fresh per run).
        EVENTS_INGEST_TOKEN: randomBytes(24).toString('hex'),
      },
    };
    const contributions = new Map<ServiceModule, DevStackContribution>();
    for (const service of services) {
      const contribution = await service.hook(ctx);
      Object.assign(contracts, contribution.contracts);
      contributions.set(service, contribution);
    }
    return { ctx, contributions, provenL2 };
  } finally {
    ens.destroy();
  }
}

async function main(): Promise<void> {
  const dataDir = path.resolve(process.env.DATA_DIR ?? '.data');
  mkdirSync(dataDir, { recursive: true });
  const host = '127.0.0.1';
  const chains = await startDevChains({ l1: port('ANVIL_PORT', 8545), l2: port('L2_ANVIL_PORT', 8546) });
  const { l1: anvil, l2 } = chains;
  const consolePort = port('CONSOLE_PORT', 3000);
  let consoleServer: Server | undefined;
  let provenL2: DevProvenL2Parent | undefined;
  const running: RunningService[] = [];
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    console.log('\nStopping…');
    provenL2?.rollup.stop();
    await Promise.all(running.map((service) => service.shutdown('SIGINT')));
    consoleServer?.closeAllConnections();
    consoleServer?.close();
    await stopDevChains(chains);
    process.exit(code);
  };
  process.once('SIGINT', () => void stop(0));
  process.once('SIGTERM', () => void stop(0));

  try {
    const urls = Object.fromEntries(
      services.map((s) => [s.key, `http://${host}:${s.port}`]),
    ) as DevStackContext['services'];
    const prepared = await prepareDevChain(chains, urls, dataDir, host);
    const { ctx, contributions } = prepared;
    provenL2 = prepared.provenL2;
    // proven.eth answers from the latest posted root: post one now, then every PROPOSE_EVERY_MS.
    await provenL2.rollup.propose();
    provenL2.rollup.startProposer(PROPOSE_EVERY_MS, (err) =>
      console.error('L2 output proposal failed:', err),
    );
    // Every variable given to `npm start` (SIWE_DOMAINS, CORS_ORIGINS, …) wins over the stack's own defaults;
    // the listen address and ports are the stack's (METADATA_PORT, … set those).
    const { HOST: _host, PORT: _port, ...given } = process.env;
    for (const service of services) {
      const env = { ...ctx.env, ...contributions.get(service)?.env, ...given, PORT: String(service.port) };
      running.push(await service.start(env));
    }
    for (const contribution of contributions.values()) await contribution.afterStart?.();
    await startL2BlockTime(chains);
    const consoleDir = path.join(dataDir, 'console');
    await buildConsolePage(consoleDir);
    consoleServer = createConsoleServer(consoleDir, { network: 'sepolia', services: ctx.services });
    await new Promise<void>((resolve, reject) =>
      consoleServer?.once('error', reject).listen(consolePort, host, resolve),
    );

    const all = [...contributions.values()];
    const stack = {
      services: ctx.services,
      console: `http://localhost:${consolePort}`,
      chains: {
        sepolia: { network: 'sepolia', chainId: anvil.chainId, rpcUrl: anvil.rpcUrl },
        'base-sepolia': { network: 'base-sepolia', chainId: l2.chainId, rpcUrl: l2.rpcUrl },
      },
      contracts: ctx.contracts,
      names: {
        onchain: 'demo.eth',
        l2Parent: DEV_L2_PARENT,
        provenL2Parent: DEV_PROVEN_L2_PARENT,
        ...Object.assign({}, ...all.map((c) => c.names)),
      },
      offchainApiKey: all.find((c) => c.offchainApiKey)?.offchainApiKey ?? null,
      accounts: anvil.accounts,
    };
    const file = path.join(dataDir, 'dev-stack.json');
    writeFileSync(file, `${JSON.stringify(stack, null, 2)}\n`);
    console.log(
      [
        'Name Records Platform is running (Ctrl-C stops everything):',
        `  console   http://localhost:${consolePort}`,
        ...Object.entries(ctx.services).map(
          ([name, url]) => `  ${name.padEnd(9)} ${url}   docs: ${url}/docs`,
        ),
        `  chain     ${anvil.rpcUrl} (chain id ${anvil.chainId}: Sepolia, ENS at Sepolia's addresses)`,
        `  L2        ${l2.rpcUrl} (chain id ${l2.chainId}: Base Sepolia, the registries of ${DEV_L2_PARENT} and ${DEV_PROVEN_L2_PARENT})`,
        `  rollup    output roots of the L2 posted on L1 every ${PROPOSE_EVERY_MS / 1000} s (${DEV_PROVEN_L2_PARENT} resolves through storage proofs)`,
        `  names     ${Object.values(stack.names).join(', ')}`,
        `  details   ${path.relative(process.cwd(), file)} (contracts, API key, demo accounts and keys)`,
      ].join('\n'),
    );
  } catch (err) {
    console.error('The dev stack failed to start:', err);
    await stop(1);
  }
}

if (require.main === module) void main();
