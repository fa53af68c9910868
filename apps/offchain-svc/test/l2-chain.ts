/**
 * An L2 for the L2 gateway tests: anvil with chain id 84532 (Base Sepolia) carrying our L2Registry of `l2.eth`, the
 * deployer its controller (registering directly, as an L2MintController does), behind an RPC proxy that can lie.
 */
import {
  createPublicClient,
  createWalletClient,
  getAddress,
  http,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { l2RegistryArtifact } from '@nrp/contracts';
import { dnsEncode, namehash } from '@nrp/ens';
import { startAnvil, startRpcProxy, type AnvilNode, type RpcProxy } from '@nrp/testkit';

export const L2_CHAIN_ID = 84532;
export const L2_PARENT = 'l2.eth';
const registryAbi = l2RegistryArtifact.abi as Abi;

export interface L2Chain {
  anvil: AnvilNode;
  /** The service's `BASE_SEPOLIA_RPC_URL`. */
  proxy: RpcProxy;
  client: PublicClient;
  registry: Address;
  /** Registers `label.l2.eth` to the deployer for a year. */
  register(label: string): Promise<void>;
  /** Sends a record call (`setText`, `setAddr`, `setContenthash`) for `name` from its holder, the deployer. */
  setRecord(functionName: string, name: string, args: readonly unknown[]): Promise<void>;
  /** The raw JSON-RPC block the node has (bypassing the proxy). */
  block(tag: 'latest' | number): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

export async function startL2Chain(): Promise<L2Chain> {
  const anvil = await startAnvil({ chainId: L2_CHAIN_ID });
  const proxy = await startRpcProxy(anvil.rpcUrl);
  const client = createPublicClient({ transport: http(anvil.rpcUrl), pollingInterval: 20 });
  const key = anvil.accounts[0]?.privateKey;
  if (!key) throw new Error('anvil has no accounts');
  const deployer: PrivateKeyAccount = privateKeyToAccount(key as Hex);
  const wallet = createWalletClient({ account: deployer, transport: http(anvil.rpcUrl) });

  const mined = async (hash: Hex) => {
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (receipt.status !== 'success') throw new Error(`transaction ${hash} reverted`);
    return receipt;
  };
  const deployed = await mined(
    await wallet.deployContract({
      abi: registryAbi,
      bytecode: l2RegistryArtifact.bytecode as Hex,
      args: ['l2.eth subnames', 'L2ETH', namehash(L2_PARENT), dnsEncode(L2_PARENT), deployer.address],
      chain: null,
    }),
  );
  if (!deployed.contractAddress) throw new Error('L2Registry not deployed');
  const registry = getAddress(deployed.contractAddress);
  const send = async (functionName: string, args: readonly unknown[]) => {
    const { request } = await client.simulateContract({
      account: deployer,
      address: registry,
      abi: registryAbi,
      functionName,
      args,
    });
    await mined(await wallet.writeContract({ ...request, chain: null }));
  };
  await send('setController', [deployer.address, true]);

  return {
    anvil,
    proxy,
    client,
    registry,
    register: async (label) => {
      const { timestamp } = await client.getBlock();
      await send('register', [label, deployer.address, timestamp + 365n * 86400n, 0]);
    },
    setRecord: (functionName, name, args) => send(functionName, [namehash(name), ...args]),
    block: (tag) =>
      client.request({
        method: 'eth_getBlockByNumber',
        params: [tag === 'latest' ? tag : `0x${tag.toString(16)}`, false],
      }) as unknown as Promise<Record<string, unknown>>,
    stop: async () => {
      await proxy.stop();
      await anvil.stop();
    },
  };
}
