import type { EnsDeployment } from './ens-fixture';

/**
 * The environment that points a service's `sepolia` network at a dev chain: its RPC URL (or a proxy in front of
 * it) and the ENS contracts deployed there.
 */
export function devChainEnv(contracts: EnsDeployment, rpcUrl: string): Record<string, string> {
  return {
    SEPOLIA_RPC_URL: rpcUrl,
    SEPOLIA_ENS_REGISTRY: contracts.ensRegistry,
    SEPOLIA_NAME_WRAPPER: contracts.nameWrapper,
    SEPOLIA_PUBLIC_RESOLVER: contracts.publicResolver,
    SEPOLIA_REVERSE_REGISTRAR: contracts.reverseRegistrar,
    SEPOLIA_UNIVERSAL_RESOLVER: contracts.universalResolver,
    SEPOLIA_BASE_REGISTRAR: contracts.baseRegistrar,
  };
}
