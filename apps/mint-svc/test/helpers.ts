import { Contract, JsonRpcProvider, NonceManager, Wallet, ZeroAddress, type Signer } from 'ethers';
import type { Express } from 'express';
import { listingInputSchema, type ListingInput, type MintNetwork } from '@nrp/api';
import {
  deployMintController,
  mintControllerArtifact,
  type MintContext as MintParameters,
} from '@nrp/contracts';
import { namehash } from '@nrp/ens';
import type { RouteDefinition } from '@nrp/server';
import {
  buildSignInMessage,
  createTestClock,
  createTestDatabase,
  devChainEnv,
  issueNonce,
  signSignInMessage,
  startEnsChain,
  startTestService,
  type EnsChain,
  type TestClock,
} from '@nrp/testkit';
import type { DatabaseHandle } from '@nrp/db';
import { configSchema } from '../src/config';
import type { MintDatabase } from '../src/data/schema';
import { createService } from '../src/service';
import type { MintContext } from '../src/context';
import { upsertListing } from '../src/data/listings';

export const SIGNER_KEY = '0x' + '11'.repeat(32);
export const SIWE_DOMAIN = 'mint.test';

export interface MintTestEnv {
  chain: EnsChain;
  provider: JsonRpcProvider;
  controller: Contract;
  controllerAddress: string;
  treasury: string;
  app: Express;
  routes: RouteDefinition[];
  context: MintContext;
  db: DatabaseHandle<MintDatabase>;
  /** The service's clock: `offsetMs` is added to the wall clock. */
  clock: TestClock;
  stop(): Promise<void>;
}

export function serviceEnv(chain: EnsChain, extra: Record<string, string> = {}): Record<string, string> {
  return {
    LOG_LEVEL: 'silent',
    ...devChainEnv(chain.contracts, chain.anvil.rpcUrl),
    // Mainnet points at a closed port: nothing in these tests may reach a real node.
    MAINNET_RPC_URL: 'http://127.0.0.1:9',
    SIGNER_PRIVATE_KEY: SIGNER_KEY,
    SIWE_DOMAINS: SIWE_DOMAIN,
    STANDARD_FEE_WEI: '1000',
    RATE_LIMIT_PER_MINUTE: '100000',
    MINT_RATE_LIMIT_PER_MINUTE: '100000',
    NONCE_RATE_LIMIT_PER_MINUTE: '100000',
    // Rate-limit counters in Redis when the run provides one (the second way of running the suite).
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    // The names index writes in the background: only the tests of the index run it.
    INDEX_INTERVAL_MS: '0',
    ...extra,
  };
}

/** anvil + ENS + a MintController (treasury: anvil account 9) + the service on a test database. */
export async function startMintTestEnv(
  extraEnv:
    | Record<string, string>
    | ((
        chain: EnsChain,
        controllerAddress: string,
      ) => Record<string, string> | Promise<Record<string, string>>) = {},
): Promise<MintTestEnv> {
  const chain = await startEnsChain();
  try {
    const provider = new JsonRpcProvider(chain.anvil.rpcUrl, undefined, {
      staticNetwork: true,
      pollingInterval: 50,
    });
    const deployer = chain.ens.deployer;
    const treasury = accountAt(chain, 9).address;
    const controller = await deployMintController(deployer, {
      registry: chain.contracts.ensRegistry,
      nameWrapper: chain.contracts.nameWrapper,
      resolver: chain.contracts.publicResolver,
      treasury,
      signer: new Wallet(SIGNER_KEY).address,
      owner: accountAt(chain, 0).address,
    });
    const controllerAddress = await controller.getAddress();
    const db = await createTestDatabase<MintDatabase>();
    const clock = createTestClock();
    const service = await startTestService({
      createService,
      configSchema,
      env: serviceEnv(chain, {
        SEPOLIA_MINT_CONTROLLER: controllerAddress,
        TREASURY_ADDRESS: treasury,
        ...(typeof extraEnv === 'function' ? await extraEnv(chain, controllerAddress) : extraEnv),
      }),
      overrides: { database: db, now: clock.now },
      handedIn: [db],
    });
    return {
      chain,
      provider,
      controller: new Contract(controllerAddress, mintControllerArtifact.abi, provider),
      controllerAddress,
      treasury,
      app: service.app,
      routes: service.routes,
      context: service.context,
      db,
      clock,
      stop: async () => {
        await service.close();
        provider.destroy();
        await chain.stop();
      },
    };
  } catch (err) {
    await chain.stop();
    throw err;
  }
}

export function accountAt(chain: EnsChain, index: number): { address: string; privateKey: string } {
  const account = chain.accounts[index];
  if (!account) throw new Error(`no anvil account ${index}`);
  return account;
}

/** A funded nonce-managed signer for anvil account `index`. */
export function walletAt(env: MintTestEnv, index: number): NonceManager {
  return env.chain.ens.signerOf(accountAt(env.chain, index).privateKey);
}

/** Lists `parentName` directly in the repository (bypasses the signed API; for mint-flow tests). */
export async function listDirect(
  env: MintTestEnv,
  parentName: string,
  settings: Partial<ListingInput> & { paymentReceiver: string },
  listedBy: string | null = null,
  network: MintNetwork = 'sepolia',
): Promise<void> {
  const parsed = listingInputSchema.parse({ basePriceWei: '0', ...settings });
  await upsertListing(env.context.db, {
    network,
    parentName,
    parentNode: namehash(parentName),
    settings: { ...parsed, paymentReceiver: settings.paymentReceiver },
    listedBy,
    source: listedBy === null ? 'file' : 'api',
  });
}

/** Approves the controller on the registry (unwrapped parent) or the NameWrapper (wrapped parent). */
export async function approveController(
  env: MintTestEnv,
  ownerIndex: number,
  wrapped: boolean,
): Promise<void> {
  const signer = walletAt(env, ownerIndex);
  const target = wrapped ? env.chain.ens.contract('nameWrapper') : env.chain.ens.contract('ensRegistry');
  await env.chain.ens.send(target, signer, 'setApprovalForAll', [env.controllerAddress, true]);
}

/**
 * A signed EIP-4361 sign-in for the service (an app, or the URL of a service process), with a nonce of `scope`
 * fetched from it.
 */
export async function signIn(
  app: Express | string,
  wallet: { address: string; privateKey: string },
  opts: {
    scope: 'listing' | 'minter';
    chainId?: number;
    domain?: string;
    issuedAt?: Date;
    expirationTime?: Date;
  },
): Promise<{ siweMessage: string; siweSignature: string; address: string }> {
  const nonce = await issueNonce(app, '/api/v1/auth/nonce', wallet.address, opts.scope);
  const message = buildSignInMessage({
    domain: opts.domain ?? SIWE_DOMAIN,
    address: wallet.address,
    statement: 'Manage my mint listing',
    uri: `https://${SIWE_DOMAIN}`,
    chainId: opts.chainId ?? 11155111,
    nonce,
    issuedAt: opts.issuedAt,
    expirationTime: opts.expirationTime,
  });
  const siweSignature = await signSignInMessage(new Wallet(wallet.privateKey), message);
  // Exactly the signed-request fields: bodies are strict, so tests spread this into theirs.
  return { siweMessage: message, siweSignature, address: wallet.address };
}

export type MintArgs = [MintParameters, string, string[], string];

/** The mint(...) arguments for a POST /api/v1/mint response body. */
export function mintArgs(
  body: {
    content: Record<string, unknown>;
    signature: string;
  },
  resolverData: string[] = [],
): MintArgs {
  const c = body.content;
  return [
    {
      owner: String(c.owner),
      label: String(c.label),
      parentNode: String(c.parentNode),
      price: BigInt(String(c.price)),
      fee: BigInt(String(c.fee)),
      paymentReceiver: String(c.paymentReceiver),
      expiry: BigInt(Number(c.expiry)),
      signatureExpiry: BigInt(Number(c.signatureExpiry)),
      verifiedMinter: String(c.verifiedMinter),
      fuses: Number(c.fuses),
    },
    body.signature,
    resolverData,
    '0x',
  ];
}

/** Sends mint(...) from `signer` with `value`; resolves to the receipt or rejects with the revert. */
export async function sendMint(env: MintTestEnv, signer: Signer, args: MintArgs, value: bigint) {
  const controller = env.controller.connect(signer) as Contract;
  try {
    const tx = await controller.getFunction('mint').send(...args, { value });
    return await tx.wait();
  } catch (err) {
    if ('reset' in signer && typeof signer.reset === 'function') signer.reset();
    throw err;
  }
}

/** The custom error name of a failed contract call, e.g. `SignatureExpired`. */
export function revertName(env: MintTestEnv, err: unknown): string | undefined {
  const data = (err as { data?: unknown }).data;
  if (typeof data !== 'string') return undefined;
  return env.controller.interface.parseError(data)?.name;
}

export { ZeroAddress };
