import { FetchRequest, Interface, JsonRpcProvider, Network } from 'ethers';
import { z } from 'zod';
import { L2_NETWORK_CHAIN_IDS, L2_NETWORK_NAMES, perL2Network, type L2NetworkName } from '@nrp/ens';
import { ethAddress } from '@nrp/validation';
import { DEFAULT_RPC_TIMEOUT_MS, envPrefix } from './networks';
import { observeRpcCalls, type RpcCall } from './rpc-calls';

export { L2_NETWORK_NAMES, type L2NetworkName };

/**
 * One L2 our subname registries live on: where to read it, and which of our L2Registry contracts (one per parent)
 * the services serve there. An L2 name resolves from the L1 it settles on (`settlementOf`) through the parent's
 * L2NameResolver.
 */
export interface L2NetworkConfig {
  name: L2NetworkName;
  chainId: number;
  rpcUrl: string;
  rpcTimeoutMs: number;
  /** Our L2Registry addresses on this L2 (checksummed as given); the gateway and metadata serve only these. */
  registries: readonly string[];
}

export type L2NetworksConfig = Record<L2NetworkName, L2NetworkConfig>;

/** Public endpoints used when `<L2>_RPC_URL` is unset (fine for development, set your own in production). */
const DEFAULT_L2_RPC_URLS: Record<L2NetworkName, string> = {
  base: 'https://mainnet.base.org',
  'base-sepolia': 'https://sepolia.base.org',
};

const urlSchema = z.url({ protocol: /^https?$/ });
/** A comma-separated list of addresses in an env var (blanks and empty items dropped). */
export const addressListEnv = z
  .string()
  .transform((value) =>
    value
      .split(',')
      .map((part) => part.trim())
      .filter((part) => part !== ''),
  )
  .pipe(z.array(ethAddress));

/**
 * zod schema of the L2 env vars: `<L2>_RPC_URL` and `<L2>_L2_REGISTRIES` (comma-separated L2Registry addresses)
 * for L2 in BASE, BASE_SEPOLIA. Timeouts are the L1's `RPC_TIMEOUT_MS`. Services merge its `.shape` into their
 * config schema beside `networksEnvSchema`.
 */
export const l2NetworksEnvSchema = z.object({
  BASE_RPC_URL: urlSchema.optional(),
  BASE_L2_REGISTRIES: addressListEnv.optional(),
  BASE_SEPOLIA_RPC_URL: urlSchema.optional(),
  BASE_SEPOLIA_L2_REGISTRIES: addressListEnv.optional(),
  RPC_TIMEOUT_MS: z.coerce.number().int().positive().default(DEFAULT_RPC_TIMEOUT_MS),
});
type L2NetworksEnv = z.infer<typeof l2NetworksEnvSchema>;

export function l2NetworksFromEnv(parsed: L2NetworksEnv): L2NetworksConfig {
  const env = parsed as Record<string, unknown>;
  return perL2Network((name) => {
    const prefix = envPrefix(name);
    const rpcUrl = env[`${prefix}_RPC_URL`];
    const registries = env[`${prefix}_L2_REGISTRIES`];
    return {
      name,
      chainId: L2_NETWORK_CHAIN_IDS[name],
      rpcUrl: typeof rpcUrl === 'string' ? rpcUrl : DEFAULT_L2_RPC_URLS[name],
      rpcTimeoutMs: parsed.RPC_TIMEOUT_MS,
      registries: Array.isArray(registries) ? registries.map(String) : [],
    };
  });
}

/** A plain JSON-RPC provider of an L2 (static network, request timeout): L2 reads need no ENS and no CCIP-Read. */
function createL2Provider(config: L2NetworkConfig): JsonRpcProvider {
  const request = new FetchRequest(config.rpcUrl);
  request.timeout = config.rpcTimeoutMs;
  const network = new Network(config.name, config.chainId);
  return new JsonRpcProvider(request, network, { staticNetwork: network });
}

export type L2Providers = Record<L2NetworkName, JsonRpcProvider>;

/**
 * A service's L2 providers, one per L2, built once at start like `createNetworkProviders`: each reports its calls
 * to `rpcCallsOf(network)` and is destroyed by `onShutdown`.
 */
export function createL2Providers(
  networks: L2NetworksConfig,
  rpcCallsOf: (network: L2NetworkName) => (call: RpcCall) => void,
  onShutdown: Array<() => Promise<void>>,
): L2Providers {
  const providers = perL2Network((name) => {
    const provider = createL2Provider(networks[name]);
    observeRpcCalls(provider, rpcCallsOf(name));
    return provider;
  });
  onShutdown.push(async () => {
    for (const provider of Object.values(providers)) provider.destroy();
  });
  return providers;
}

/** The registry reads every service makes (ERC-721 + L2Registry views; records are ENS resolver calls). */
const L2_REGISTRY_ABI = [
  'function parentNode() view returns (bytes32)',
  'function parentName() view returns (bytes)',
  'function available(string label) view returns (bool)',
  'function labels(uint256 tokenId) view returns (string)',
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function owner(bytes32 node) view returns (address)',
  'function expiries(uint256 tokenId) view returns (uint64)',
  'function fuses(uint256 tokenId) view returns (uint32)',
  'function controllers(address controller) view returns (bool)',
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
  'event NameRegistered(bytes32 indexed node, string label, address indexed owner, uint64 expiry, uint32 fuses)',
  'event NameRevoked(bytes32 indexed node)',
] as const;

/** The L2 mint controller's reads beyond MintController's: the one registry it registers on. */
const L2_MINT_CONTROLLER_ABI = [
  'function registry() view returns (address)',
  'function parentNode() view returns (bytes32)',
] as const;

export const l2RegistryInterface = new Interface(L2_REGISTRY_ABI);
export const l2MintControllerInterface = new Interface(L2_MINT_CONTROLLER_ABI);
