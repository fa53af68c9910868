import { Wallet } from 'ethers';
import { listingInputSchema, type ListingInput, type MintNetwork } from '@nrp/api';
import { namehash } from '@nrp/ens';
import {
  buildSignInMessage,
  createTestClock,
  devChainEnv,
  issueNonce,
  MINT_SIGNER_KEY,
  signSignInMessage,
  startMintControllerChain,
  startTestServiceOnDatabase,
  type EnsChain,
  type MintControllerChain,
  type TestClock,
  type TestDatabase,
  type TestService,
} from '@nrp/testkit';
import { configSchema, type Config } from '../src/config';
import type { MintDatabase } from '../src/data/schema';
import { createService } from '../src/service';
import type { MintContext } from '../src/context';
import { upsertListing } from '../src/data/listings';

export const SIWE_DOMAIN = 'mint.test';

export interface MintService extends TestService<Config, MintContext>, Omit<MintControllerChain, 'stop'> {
  db: TestDatabase<MintDatabase>;
  /** The service's clock: `offsetMs` is added to the wall clock. */
  clock: TestClock;
}

export function serviceEnv(chain: EnsChain, extra: Record<string, string> = {}): Record<string, string> {
  return {
    LOG_LEVEL: 'silent',
    ...devChainEnv(chain.contracts, chain.anvil.rpcUrl),
    // Mainnet points at a closed port: nothing in these tests may reach a real node.
    MAINNET_RPC_URL: 'http://127.0.0.1:9',
    SIGNER_PRIVATE_KEY: MINT_SIGNER_KEY,
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

/**
 * anvil + ENS + a MintController (treasury: anvil account 9) + the service on a test database; `close()` stops the
 * service, then the chain.
 */
export async function startMintService(
  extraEnv:
    | Record<string, string>
    | ((
        chain: EnsChain,
        controllerAddress: string,
      ) => Record<string, string> | Promise<Record<string, string>>) = {},
): Promise<MintService> {
  const { stop, ...onChain } = await startMintControllerChain();
  try {
    const { chain, controllerAddress, treasury } = onChain;
    const clock = createTestClock();
    const service = await startTestServiceOnDatabase({
      createService,
      configSchema,
      env: serviceEnv(chain, {
        SEPOLIA_MINT_CONTROLLER: controllerAddress,
        TREASURY_ADDRESS: treasury,
        ...(typeof extraEnv === 'function' ? await extraEnv(chain, controllerAddress) : extraEnv),
      }),
      overrides: { now: clock.now },
    });
    return {
      ...service,
      ...onChain,
      clock,
      close: async () => {
        await service.close();
        await stop();
      },
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** Lists `parentName` directly in the repository (bypasses the signed API; for mint-flow tests). */
export async function listDirect(
  env: MintService,
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

/**
 * A signed EIP-4361 sign-in for the service (an app, or the URL of a service process), with a nonce of `scope`
 * fetched from it.
 */
export async function signIn(
  app: MintService['app'] | string,
  wallet: { address: string; privateKey: string },
  opts: {
    scope: 'listing' | 'minter';
    chainId?: number;
    domain?: string;
    issuedAt?: Date;
    expirationTime?: Date;
    /** The message's URI; default the page of the dapp (`https://{SIWE_DOMAIN}`), which binds nothing. */
    uri?: string;
    /** A smart account signs instead of `wallet`: its address, and how it signs. */
    account?: { address: string; sign: (message: string) => string };
  },
): Promise<{ siweMessage: string; siweSignature: string; address: string }> {
  const address = opts.account?.address ?? wallet.address;
  const nonce = await issueNonce(app, '/api/v1/auth/nonce', address, opts.scope);
  const message = buildSignInMessage({
    domain: opts.domain ?? SIWE_DOMAIN,
    address,
    statement: 'Manage my mint listing',
    uri: opts.uri ?? `https://${SIWE_DOMAIN}`,
    chainId: opts.chainId ?? 11155111,
    nonce,
    issuedAt: opts.issuedAt,
    expirationTime: opts.expirationTime,
  });
  const siweSignature = opts.account
    ? opts.account.sign(message)
    : await signSignInMessage(new Wallet(wallet.privateKey), message);
  // Exactly the signed-request fields: bodies are strict, so tests spread this into theirs.
  return { siweMessage: message, siweSignature, address };
}
