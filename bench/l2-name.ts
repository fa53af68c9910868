/**
 * An L2 subname for the resolver bench, served as in production: `carol.l2.eth` registered on a Base Sepolia anvil
 * with records, offchain-svc's L2 gateway reading that registry, and the L1 `L2NameResolver` of l2.eth pointing at
 * the gateway. Counts the gateway's requests.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Wallet } from 'ethers';
import type { Address, Hex } from 'viem';
import { deployContract, l2NameResolverArtifact } from '@nrp/contracts';
import { chainByName, namehash } from '@nrp/ens';
import { createLogger, loadConfig } from '@nrp/server';
import { l2RegistryAbi, startL2Chain, type EnsChain } from '@nrp/testkit';
import { configSchema } from '../apps/offchain-svc/src/config';
import { createService } from '../apps/offchain-svc/src/service';

export const L2_NAME = 'carol.l2.eth';

export interface L2NameBench {
  /** The gateway's origin, for the resolver's CCIP_READ_ALLOWED_ORIGINS. */
  origin: string;
  /** Requests the gateway received so far. */
  requests(): number;
  stop(): Promise<void>;
}

export async function startL2Name(l1: EnsChain): Promise<L2NameBench> {
  const l2 = await startL2Chain();
  const registry = await l2.deployRegistry('l2.eth', { ownerIsController: true });
  const holder = l2.account(3);
  await l2.register(registry, 'carol', holder.address, (await l2.now()) + 365n * 86400n);
  const node = namehash(L2_NAME) as Hex;
  const set = (functionName: string, args: readonly unknown[]) =>
    l2.send(holder, registry, l2RegistryAbi, functionName, [node, ...args]);
  await set('setAddr', [holder.address]);
  await set('setAddr', [BigInt(chainByName('base')?.coinType ?? 0), holder.address.toLowerCase() as Hex]);
  await set('setText', ['description', 'An L2 subname']);
  await set('setText', ['avatar', 'https://example.com/carol.png']);

  const signer = Wallet.createRandom();
  const offchain = await createService(
    loadConfig(configSchema, {
      LOG_LEVEL: 'silent',
      GATEWAY_SIGNER_KEY: signer.privateKey,
      BASE_SEPOLIA_RPC_URL: l2.anvil.rpcUrl,
      BASE_SEPOLIA_L2_REGISTRIES: registry,
      // anvil mines only on transactions: its head is as old as the last one.
      L2_MAX_BLOCK_AGE_SECONDS: '3600',
    }),
    createLogger('bench-l2-gateway', 'silent'),
  );
  let requests = 0;
  const server = await new Promise<Server>((resolve) => {
    const s = createServer((req, res) => {
      requests += 1;
      offchain.app(req, res);
    }).listen(0, '127.0.0.1', () => resolve(s));
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = `${origin}/api/v1/gateway/l2/base-sepolia/${registry}/{sender}/{data}.json`;
  const resolver = await deployContract(l1.ens.deployer, l2NameResolverArtifact, [
    url,
    [signer.address],
    l2.anvil.chainId,
    registry as Address,
  ]);
  const owner = l1.accounts[0]?.address ?? '';
  await l1.ens.registerEthName('l2', owner, { resolver: await resolver.getAddress() });
  return {
    origin,
    requests: () => requests,
    stop: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      for (const step of offchain.onShutdown) await step();
      await l2.stop();
    },
  };
}
