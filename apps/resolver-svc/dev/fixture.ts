/**
 * One local chain for a test file (or the bench): ENS with names that cover every resolution path, our
 * SignedOffchainResolver behind the test gateway (CCIP-Read, wildcard on its parent, ENSIP-22), ENSIP-19 primary
 * names on Base, and a counting RPC proxy.
 */
import { Wallet } from 'ethers';
import { chainByName, encodeAddress, encodeContenthash } from '@nrp/ens';
import {
  createTestRedis,
  devChainEnv,
  startEnsChain,
  startRpcProxy,
  startTestGateway,
  startTestService,
  type EnsChain,
  type RpcProxy,
  type TestGateway,
  type TestRedis,
  type TestService,
} from '@nrp/testkit';
import { configSchema, type Config } from '../src/config';
import type { ResolverContext } from '../src/context';
import { createService } from '../src/service';

export const IPFS_URI = 'ipfs://bafybeibj6lixxzqtsb45ysdjnupvqkufgdvzqbnvmhw2kf7cfkesy7r7d4';
export const BTC_ADDRESS = 'bc1qar0srrr7xfkvy5l643lydnw9re59gtzzwf5mdq';
export const SOL_ADDRESS = 'So11111111111111111111111111111111111111112';
export const BTC_LEGACY = '1A1zP1eP5QGefi2DMPTfTL5SLmv7DivfNa';
export const BASE_COIN = chainByName('base')?.coinType ?? 0;

export interface ResolverFixture {
  chain: EnsChain;
  gateway: TestGateway;
  /** Counting proxy in front of anvil; services built with `env()` talk to the chain through it. */
  proxy: RpcProxy;
  redis: TestRedis | undefined;
  offchainResolver: string;
  accounts: {
    /** Owns alice.eth; its reverse record is alice.eth (verified). */
    alice: string;
    /** Reverse record says alice.eth, but alice.eth does not point back (unverified). */
    impostor: string;
    /** No reverse record for coin type 60; its Base primary name is nobody.eth (ENSIP-19, verified). */
    nobody: string;
    /** Reverse record bob.offchain.eth, verified through CCIP-Read. */
    bob: string;
  };
  /** Environment of a resolver-svc for this chain (through the proxy), with overrides. */
  env(overrides?: Record<string, string>): Record<string, string>;
  stop(): Promise<void>;
}

export async function startResolverFixture(): Promise<ResolverFixture> {
  const chain = await startEnsChain();
  const { ens } = chain;
  const [deployer, alice, impostor, nobody, bob] = chain.accounts.map((a) => a.address);
  if (!deployer || !alice || !impostor || !nobody || !bob) throw new Error('anvil accounts missing');

  await ens.registerEthName('alice', alice);
  await ens.setText('alice.eth', 'avatar', 'https://example.com/alice.png');
  await ens.setText('alice.eth', 'name', 'Alice');
  await ens.setText('alice.eth', 'description', 'Alice in ENS land');
  await ens.setText('alice.eth', 'com.twitter', 'alice');
  await ens.setAddr('alice.eth', alice);
  await ens.setAddrForCoin('alice.eth', 0, encodeAddress(0, BTC_ADDRESS));
  await ens.setAddrForCoin('alice.eth', 501, encodeAddress(501, SOL_ADDRESS));
  await ens.setAddrForCoin('alice.eth', BASE_COIN, alice.toLowerCase());
  await ens.setContenthash('alice.eth', encodeContenthash(IPFS_URI));
  await ens.setReverseName(alice, 'alice.eth');
  await ens.setReverseName(impostor, 'alice.eth');

  await ens.registerEthName('wrapped', alice);
  await ens.wrapName('wrapped.eth', alice);
  await ens.setText('wrapped.eth', 'name', 'Wrapped');
  await ens.setAddr('wrapped.eth', alice);

  await ens.registerEthName('noresolver', deployer, { resolver: null });
  // a resolver contract without any record function: every call reverts with no data
  await ens.registerEthName('bare', deployer, { resolver: await ens.deployErc1271Wallet(deployer) });
  await ens.setReverseName(alice, 'alice.eth', BASE_COIN);
  await ens.registerEthName('nobody', nobody);
  await ens.setAddrForCoin('nobody.eth', BASE_COIN, nobody);
  await ens.setReverseName(nobody, 'nobody.eth', BASE_COIN);

  const gateway = await startTestGateway({
    signerKey: Wallet.createRandom().privateKey,
    records: {
      'bob.offchain.eth': {
        addr: bob,
        addresses: { '0': encodeAddress(0, BTC_LEGACY) },
        texts: { avatar: 'https://example.com/bob.png', description: 'Bob, offchain', name: 'Bob' },
        contenthash: encodeContenthash(IPFS_URI),
      },
    },
  });
  const offchainResolver = await ens.deployOffchainResolver(gateway.url, [gateway.signerAddress]);
  await ens.registerEthName('offchain', deployer, { resolver: offchainResolver });
  await ens.setReverseName(bob, 'bob.offchain.eth');
  // ENS's own OffchainResolver (no ENSIP-22): the universal resolver batches its lookups through the batch gateway
  const legacyResolver = await ens.deployEnsOffchainResolver(gateway.url, [gateway.signerAddress]);
  await ens.registerEthName('legacy', deployer, { resolver: legacyResolver });
  gateway.records['bob.legacy.eth'] = { texts: { name: 'Bob (batched)' } };

  const proxy = await startRpcProxy(chain.anvil.rpcUrl);
  const redis = await createTestRedis();
  return {
    chain,
    gateway,
    proxy,
    redis,
    offchainResolver,
    accounts: { alice, impostor, nobody, bob },
    env: (overrides = {}) => ({
      LOG_LEVEL: 'silent',
      DEFAULT_NETWORK: 'sepolia',
      ...devChainEnv(chain.contracts, proxy.url),
      RATE_LIMIT_PER_MINUTE: '1000000',
      NO_CACHE_RATE_LIMIT_PER_MINUTE: '1000000',
      RPC_TIMEOUT_MS: '5000',
      // the test gateway is plain http on 127.0.0.1: the CCIP-Read URL policy refuses it unless allow-listed
      CCIP_READ_ALLOWED_ORIGINS: `http://127.0.0.1:${gateway.port}`,
      ...(redis ? { REDIS_URL: process.env.REDIS_URL ?? '', CACHE_REDIS_PREFIX: redis.prefix } : {}),
      ...overrides,
    }),
    stop: async () => {
      await redis?.close();
      await proxy.stop();
      await gateway.stop();
      await chain.stop();
    },
  };
}

export type ResolverService = TestService<Config, ResolverContext>;

/** A resolver-svc built from `env` (not listening: use supertest). */
export function startResolverService(env: Record<string, string>): Promise<ResolverService> {
  return startTestService({ createService, configSchema, env });
}
