import { perNetwork } from '@nrp/ens';
import type { NetworkName, NetworksConfig } from './networks';
import { createProvider, type ChainProvider } from './provider';
import { observeRpcCalls, type RpcCall } from './rpc-calls';

export type NetworkProviders = Record<NetworkName, ChainProvider>;

/**
 * A service's providers, one per network, built once at start: each reports its JSON-RPC calls to
 * `rpcCallsOf(network)` (the service's RPC metrics) and is destroyed by `onShutdown`. The provider carries its
 * network's config (`provider.config`).
 */
export function createNetworkProviders(
  networks: NetworksConfig,
  rpcCallsOf: (network: NetworkName) => (call: RpcCall) => void,
  onShutdown: Array<() => Promise<void>>,
): NetworkProviders {
  const build = (name: NetworkName): ChainProvider => {
    const provider = createProvider(networks[name]);
    observeRpcCalls(provider, rpcCallsOf(name));
    return provider;
  };
  const providers: NetworkProviders = perNetwork(build);
  onShutdown.push(async () => {
    for (const provider of Object.values(providers)) provider.destroy();
  });
  return providers;
}
