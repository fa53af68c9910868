/**
 * The sources of GET /ens/v2/names/{address} for real: mint-svc (indexing the L1 test chain and a Base Sepolia
 * anvil with an L2Registry and L2MintController) and offchain-svc, each built in-process by its own createService on
 * its own database and listening on HTTP like in production. The holder (account 3) holds bob.idx.eth (minted on the
 * L1, its primary name), alpha.l2n.eth and beta.l2n.eth (minted on base-sepolia) and bob.offchain.eth (offchain).
 * l2n.eth is a parent on ProvenL2Resolver (the testkit's rollup and prover): its names resolve on the L1 through
 * storage proofs, and alpha.l2n.eth has records its holder set on the L2.
 */
import { writeFileSync, mkdtempSync } from 'node:fs';
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import request from 'supertest';
import { hashApiKey } from '@nrp/auth';
import { namehash } from '@nrp/ens';
import {
  accountAt,
  approveController,
  deployL2Parent,
  devChainEnv,
  l2RegistryAbi,
  MINT_SIGNER_KEY,
  mintArgs,
  mintOnL2,
  sendMint,
  startL2Chain,
  startMintControllerChain,
  startProvenL2Parent,
  startTestServiceOnDatabase,
  walletAt,
  type L2Chain,
  type MintControllerChain,
  type ProvenL2Parent,
} from '@nrp/testkit';
import { until } from '@nrp/testkit/src/until';
import { configSchema as mintConfigSchema } from '../../mint-svc/src/config';
import { createService as createMintService } from '../../mint-svc/src/service';
import { configSchema as offchainConfigSchema } from '../../offchain-svc/src/config';
import { PGLITE_EXTENSIONS } from '../../offchain-svc/src/data/database';
import { createService as createOffchainService } from '../../offchain-svc/src/service';

export const L2_PARENT = 'l2n.eth';
export const HOLDER_L2_NAMES = ['alpha.l2n.eth', 'beta.l2n.eth'];
/** The records the holder set on the L2 for alpha.l2n.eth. */
export const ALPHA_DESCRIPTION = 'alpha, proven from base-sepolia';

export async function listen(handler: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export const closeServer = (server: Server) => new Promise((resolve) => server.close(resolve));

const OFFCHAIN_KEY = 'names-env-offchain-key-0123456789';

export interface NamesEnv {
  /** The L1 with the MintController mint-svc signs for. */
  mint: MintControllerChain;
  l2: L2Chain;
  /** l2n.eth's ProvenL2Resolver, rollup and prover. */
  provenParent: ProvenL2Parent;
  mintUrl: string;
  offchainUrl: string;
  /** Account 3: the holder of the names above. */
  holder: string;
  /** The L2Registry expiry of each of the holder's L2 names (Unix seconds; null: never), as signed. */
  l2Expiries: Record<string, number | null>;
  /** The resolver's env answering from these sources on sepolia, with `overrides`. */
  resolverEnv(overrides?: Record<string, string>): Record<string, string>;
  /** Creates `label`.offchain.eth owned by `owner`. */
  createOffchain(label: string, owner: string): Promise<void>;
  close(): Promise<void>;
}

export async function startNamesEnv(): Promise<NamesEnv> {
  const l2 = await startL2Chain();
  const servers: Server[] = [];
  let onL1: MintControllerChain | undefined;
  let provenParent: ProvenL2Parent | undefined;
  const started: Array<{ close(): Promise<void> }> = [];
  const close = async () => {
    await Promise.all(servers.map(closeServer));
    for (const service of started.reverse()) await service.close();
    await provenParent?.close();
    await onL1?.stop();
    await l2.stop();
  };
  try {
    const env = await startMintControllerChain();
    onL1 = env;
    const l2Parent = await deployL2Parent(l2, L2_PARENT, env.treasury);
    const holder = accountAt(env.chain, 3).address;
    const parentOwner = accountAt(env.chain, 1).address;
    // Listed by the operator's file, as in production.
    const listings = join(mkdtempSync(join(tmpdir(), 'names-env-')), 'listings.json');
    writeFileSync(
      listings,
      JSON.stringify(
        [
          ['sepolia', 'idx.eth'],
          ['base-sepolia', L2_PARENT],
        ].map(([network, parentName]) => ({
          network,
          parentName,
          listing: { basePriceWei: '0', paymentReceiver: parentOwner },
        })),
      ),
    );
    const mint = await startTestServiceOnDatabase({
      createService: createMintService,
      configSchema: mintConfigSchema,
      env: {
        ...devChainEnv(env.chain.contracts, env.chain.anvil.rpcUrl),
        MAINNET_RPC_URL: 'http://127.0.0.1:9',
        SIGNER_PRIVATE_KEY: MINT_SIGNER_KEY,
        SEPOLIA_MINT_CONTROLLER: env.controllerAddress,
        TREASURY_ADDRESS: env.treasury,
        BASE_SEPOLIA_RPC_URL: l2.anvil.rpcUrl,
        BASE_SEPOLIA_L2_MINT_CONTROLLERS: l2Parent.controller,
        LISTINGS_FILE: listings,
        INDEX_CONFIRMATIONS: '0',
        INDEX_INTERVAL_MS: '50',
        RATE_LIMIT_PER_MINUTE: '100000',
        MINT_RATE_LIMIT_PER_MINUTE: '100000',
      },
    });
    started.push(mint);
    const offchain = await startTestServiceOnDatabase({
      createService: createOffchainService,
      configSchema: offchainConfigSchema,
      env: {
        RATE_LIMIT_PER_MINUTE: '100000',
        BOOTSTRAP_API_KEY_HASH: hashApiKey(OFFCHAIN_KEY),
        BOOTSTRAP_API_KEY_PARENTS: 'offchain.eth',
      },
      database: { pgliteExtensions: PGLITE_EXTENSIONS },
    });
    started.push(offchain);
    const mintServer = await listen(mint.app);
    const offchainServer = await listen(offchain.app);
    servers.push(mintServer.server, offchainServer.server);
    const createOffchain = async (label: string, owner: string) => {
      await request(offchain.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', OFFCHAIN_KEY)
        .send({ parentName: 'offchain.eth', label, owner })
        .expect(201);
    };

    const signMint = async (body: Record<string, unknown>) => {
      const signed = await request(mint.app).post('/api/v1/mint').send(body).expect(200);
      const { content } = signed.body;
      return {
        args: mintArgs(signed.body),
        value: BigInt(content.price) + BigInt(content.fee),
        expiry: content.expiry as number | null,
      };
    };
    await env.chain.ens.registerEthName('idx', parentOwner);
    const operator = env.chain.accounts[9];
    if (!operator) throw new Error('anvil accounts');
    const proven = await startProvenL2Parent(env.chain, l2.anvil, {
      parentName: L2_PARENT,
      registry: l2Parent.registry,
      owner: parentOwner,
      operatorKey: operator.privateKey,
    });
    provenParent = proven;
    await approveController(env, 1, false);
    const l1 = await signMint({
      isTestnet: true,
      parentName: 'idx.eth',
      label: 'bob',
      minterAddress: holder,
      expiryInYears: 1,
    });
    await sendMint(env, walletAt(env, 3), l1.args, l1.value);
    const l2Expiries: Record<string, number | null> = {};
    for (const name of HOLDER_L2_NAMES) {
      const label = name.split('.')[0];
      const minted = await signMint({
        network: 'base-sepolia',
        parentName: L2_PARENT,
        label,
        minterAddress: holder,
      });
      await mintOnL2(l2, l2.account(3), l2Parent.controller, minted.args, minted.value);
      l2Expiries[name] = minted.expiry;
    }
    const alpha = namehash(HOLDER_L2_NAMES[0] ?? '');
    await l2.send(l2.account(3), l2Parent.registry, l2RegistryAbi, 'setText', [
      alpha,
      'description',
      ALPHA_DESCRIPTION,
    ]);
    await l2.send(l2.account(3), l2Parent.registry, l2RegistryAbi, 'setAddr', [alpha, holder]);
    await proven.propose();
    await env.chain.ens.setAddr('bob.idx.eth', holder);
    await env.chain.ens.setReverseName(accountAt(env.chain, 3).privateKey, 'bob.idx.eth');
    await createOffchain('bob', holder);
    const indexed = async (network: string, count: number) =>
      (await request(mint.app).get('/api/v1/names').query({ network, owner: holder })).body.items?.length ===
      count;
    await until(() => indexed('sepolia', 1), 'bob.idx.eth indexed', 30_000);
    await until(() => indexed('base-sepolia', HOLDER_L2_NAMES.length), 'the L2 names indexed', 30_000);

    return {
      mint: env,
      l2,
      provenParent: proven,
      mintUrl: mintServer.url,
      offchainUrl: offchainServer.url,
      holder,
      l2Expiries,
      resolverEnv: (overrides = {}) => ({
        LOG_LEVEL: 'silent',
        DEFAULT_NETWORK: 'sepolia',
        ...devChainEnv(env.chain.contracts, env.chain.anvil.rpcUrl),
        MAINNET_RPC_URL: 'http://127.0.0.1:9',
        RATE_LIMIT_PER_MINUTE: '1000000',
        NO_CACHE_RATE_LIMIT_PER_MINUTE: '1000000',
        MINT_URL: mintServer.url,
        OFFCHAIN_URL: offchainServer.url,
        NAMES_UPSTREAM_TIMEOUT_MS: '2000',
        CCIP_READ_ALLOWED_ORIGINS: new URL(proven.proverUrl).origin,
        ...overrides,
      }),
      createOffchain,
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
