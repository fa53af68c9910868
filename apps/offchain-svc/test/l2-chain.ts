/**
 * The L2 of the L2 gateway tests: @nrp/testkit's startL2Chain carrying the L2Registry of `l2.eth`, its owner (anvil
 * account 0) a controller registering directly (as an L2MintController does), behind an RPC proxy that can lie.
 */
import type { Address } from 'viem';
import { namehash } from '@nrp/ens';
import { l2RegistryAbi, startL2Chain, startRpcProxy, type RpcProxy } from '@nrp/testkit';

const L2_PARENT = 'l2.eth';

export interface GatewayL2 {
  /** The service's `BASE_SEPOLIA_RPC_URL`. */
  proxy: RpcProxy;
  registry: Address;
  /** Registers `label.l2.eth` to the registry's owner for a year. */
  register(label: string): Promise<void>;
  /** Sends a record call (`setText`, `setAddr`, `setContenthash`) for `name` from its holder, the owner. */
  setRecord(functionName: string, name: string, args: readonly unknown[]): Promise<unknown>;
  /** The raw JSON-RPC block the node has (bypassing the proxy). */
  block(tag: 'latest' | number): Promise<Record<string, unknown>>;
  stop(): Promise<void>;
}

export async function startGatewayL2(): Promise<GatewayL2> {
  const l2 = await startL2Chain();
  const proxy = await startRpcProxy(l2.anvil.rpcUrl);
  const registry = await l2.deployRegistry(L2_PARENT, { ownerIsController: true });
  const holder = l2.account(0);
  return {
    proxy,
    registry,
    register: async (label) => l2.register(registry, label, holder.address, (await l2.now()) + 365n * 86400n),
    setRecord: (functionName, name, args) =>
      l2.send(holder, registry, l2RegistryAbi, functionName, [namehash(name), ...args]),
    block: (tag) =>
      l2.client.request({
        method: 'eth_getBlockByNumber',
        params: [tag === 'latest' ? tag : `0x${tag.toString(16)}`, false],
      }) as unknown as Promise<Record<string, unknown>>,
    stop: async () => {
      await proxy.stop();
      await l2.stop();
    },
  };
}
