/**
 * The sources of GET /ens/v2/names/{address} for real: mint-svc (indexing the L1 test chain and a Base Sepolia
 * anvil with an L2Registry and L2MintController) and offchain-svc, started in-process through their own test helpers
 * and listening on HTTP like in production. The holder (account 3) holds bob.idx.eth (minted on the L1, its primary
 * name), alpha.l2n.eth and beta.l2n.eth (minted on base-sepolia) and bob.offchain.eth (offchain).
 */
import { createServer, type RequestListener, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { devChainEnv, startL2Chain, type L2Chain } from '@nrp/testkit';
import { until } from '@nrp/testkit/src/until';
import {
  accountAt,
  approveController,
  listDirect,
  mintArgs,
  sendMint,
  startMintService,
  walletAt,
  type MintService,
} from '../../mint-svc/test/helpers';
import { deployL2Parent, mintOnL2, type L2ParentContracts } from '../../mint-svc/test/l2-chain';
import { startOffchainService, type OffchainService } from '../../offchain-svc/test/helpers';

export const L2_PARENT = 'l2n.eth';
export const HOLDER_L2_NAMES = ['alpha.l2n.eth', 'beta.l2n.eth'];

export async function listen(handler: RequestListener): Promise<{ server: Server; url: string }> {
  const server = createServer(handler);
  server.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

export const closeServer = (server: Server) => new Promise((resolve) => server.close(resolve));

export interface NamesEnv {
  mint: MintService;
  l2: L2Chain;
  offchain: OffchainService;
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
  let l2Parent: L2ParentContracts | undefined;
  const servers: Server[] = [];
  let mint: MintService | undefined;
  let offchain: OffchainService | undefined;
  const close = async () => {
    await Promise.all(servers.map(closeServer));
    await offchain?.close();
    await mint?.close();
    await l2.stop();
  };
  try {
    mint = await startMintService(async (chain) => {
      const parent = await deployL2Parent(l2, L2_PARENT, accountAt(chain, 9).address);
      l2Parent = parent;
      return {
        BASE_SEPOLIA_RPC_URL: l2.anvil.rpcUrl,
        BASE_SEPOLIA_L2_MINT_CONTROLLERS: parent.controller,
        INDEX_CONFIRMATIONS: '0',
        INDEX_INTERVAL_MS: '50',
      };
    });
    offchain = await startOffchainService();
    const mintServer = await listen(mint.app);
    const offchainServer = await listen(offchain.app);
    servers.push(mintServer.server, offchainServer.server);
    const key = await offchain.keyFor('offchain.eth');
    const service = offchain;
    const createOffchain = async (label: string, owner: string) => {
      await request(service.app)
        .post('/api/v1/subnames')
        .set('x-auth-token', key)
        .send({ parentName: 'offchain.eth', label, owner })
        .expect(201);
    };

    const env = mint;
    const holder = accountAt(env.chain, 3).address;
    const parentOwner = accountAt(env.chain, 1).address;
    const signMint = async (body: Record<string, unknown>) => {
      const signed = await request(env.app).post('/api/v1/mint').send(body).expect(200);
      const { content } = signed.body;
      return {
        args: mintArgs(signed.body),
        value: BigInt(content.price) + BigInt(content.fee),
        expiry: content.expiry as number | null,
      };
    };
    await env.chain.ens.registerEthName('idx', parentOwner);
    await env.chain.ens.registerEthName('l2n', parentOwner);
    await approveController(env, 1, false);
    await listDirect(env, 'idx.eth', { paymentReceiver: parentOwner });
    await listDirect(env, L2_PARENT, { paymentReceiver: parentOwner }, null, 'base-sepolia');
    const l1 = await signMint({
      isTestnet: true,
      parentName: 'idx.eth',
      label: 'bob',
      minterAddress: holder,
      expiryInYears: 1,
    });
    await sendMint(env, walletAt(env, 3), l1.args, l1.value);
    const controller = l2Parent?.controller;
    if (!controller) throw new Error('the L2 parent was not deployed');
    const l2Expiries: Record<string, number | null> = {};
    for (const name of HOLDER_L2_NAMES) {
      const label = name.split('.')[0];
      const minted = await signMint({
        network: 'base-sepolia',
        parentName: L2_PARENT,
        label,
        minterAddress: holder,
      });
      await mintOnL2(l2, l2.account(3), controller, minted.args, minted.value);
      l2Expiries[name] = minted.expiry;
    }
    await env.chain.ens.setAddr('bob.idx.eth', holder);
    await env.chain.ens.setReverseName(accountAt(env.chain, 3).privateKey, 'bob.idx.eth');
    await createOffchain('bob', holder);
    const indexed = async (network: string, count: number) =>
      (await request(env.app).get('/api/v1/names').query({ network, owner: holder })).body.items?.length ===
      count;
    await until(() => indexed('sepolia', 1), 'bob.idx.eth indexed', 30_000);
    await until(() => indexed('base-sepolia', HOLDER_L2_NAMES.length), 'the L2 names indexed', 30_000);

    return {
      mint: env,
      l2,
      offchain: service,
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
