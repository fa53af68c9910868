import { z } from 'zod';
import {
  NETWORK_CHAIN_IDS,
  NETWORK_NAMES,
  l2sSettlingOn,
  perNetwork,
  settlementOf,
  type AnyNetworkName,
  type NetworkName,
} from '@nrp/ens';
import { ethAddress, withoutEmptyVariables } from '@nrp/validation';
import { originListSchema } from './outbound-url-policy';

// The network list and which L1 each L2 settles on are ENS's (the client, which must not load this library, uses
// them too); re-exported here for the services, which build their chain access from this module.
export { NETWORK_NAMES, l2sSettlingOn, perNetwork, settlementOf, type NetworkName };

/** The prefix of a network's environment variables, as a type: `base-sepolia` → `BASE_SEPOLIA`. */
export type EnvPrefix<N extends string> = N extends `${infer Head}-${infer Tail}`
  ? `${Uppercase<Head>}_${EnvPrefix<Tail>}`
  : Uppercase<N>;

/** The prefix of a network's environment variables (`SEPOLIA_RPC_URL`, `BASE_SEPOLIA_L2_REGISTRIES`). */
export function envPrefix<N extends AnyNetworkName>(network: N): EnvPrefix<N> {
  return network.toUpperCase().replaceAll('-', '_') as EnvPrefix<N>;
}

/** The ENS contracts a network's services talk to. */
export interface EnsAddresses {
  ensRegistry: string;
  nameWrapper: string;
  publicResolver: string;
  reverseRegistrar: string;
  universalResolver: string;
}

/** ENSIP-21: in a universal resolver's gateway list, "run the batch gateway yourself" (viem, ensjs and we do). */
export const LOCAL_BATCH_GATEWAY_URL = 'x-batch-gateway:true';

export interface NetworkConfig {
  name: NetworkName;
  chainId: number;
  rpcUrl: string;
  /** Timeout of one RPC request and of one CCIP-Read gateway fetch. */
  rpcTimeoutMs: number;
  ens: EnsAddresses;
  /**
   * Origins (`http://127.0.0.1:3003`) whose CCIP-Read gateway URLs are fetched even when plain http or private;
   * every other gateway URL must be https to a public host. Unset: none.
   */
  ccipReadAllowedOrigins?: readonly string[];
  /**
   * ENSIP-21 batch gateways passed to the universal resolver (`resolveWithGateways`, `reverseWithGateways`):
   * `x-batch-gateway:true` runs the batch locally (each inner request under the CCIP-Read URL policy), an https
   * URL sends it to that gateway. Default: the local one only.
   */
  batchGatewayUrls: readonly string[];
}

export type NetworksConfig = Record<NetworkName, NetworkConfig>;

/** The real ENS deployments (docs.ens.domains/learn/deployments). */
export const DEFAULT_ENS_ADDRESSES: Record<NetworkName, EnsAddresses> = {
  mainnet: {
    ensRegistry: '0x00000000000C2E074eC69A0dFb2997BA6C7d2e1e',
    nameWrapper: '0xD4416b13d2b3a9aBae7AcD5D6C2BbDBE25686401',
    publicResolver: '0xF29100983E058B709F3D539b0c765937B804AC15',
    reverseRegistrar: '0xa58E81fe9b61B5c3fE2AFD33CF304c454AbFc7Cb',
    universalResolver: '0xeEeEEEeE14D718C2B47D9923Deab1335E144EeEe',
  },
  sepolia: {
    ensRegistry: '0x00000000000C2E074eC69A0dFb2997BA6C7d2e1e',
    nameWrapper: '0x0635513f179D50A207757E05759CbD106d7dFcE8',
    publicResolver: '0xE99638b40E4Fff0129D56f03b55b6bbC4BBE49b5',
    reverseRegistrar: '0xA0a1AbcDAe1a2a4A2EF8e9113Ff0e02DD81DC0C6',
    universalResolver: '0xeEeEEEeE14D718C2B47D9923Deab1335E144EeEe',
  },
};

/** Public RPC endpoints used when `<NETWORK>_RPC_URL` is unset (fine for development, set your own in production). */
export const DEFAULT_RPC_URLS: Record<NetworkName, string> = {
  mainnet: 'https://ethereum-rpc.publicnode.com',
  sepolia: 'https://ethereum-sepolia-rpc.publicnode.com',
};

export const DEFAULT_RPC_TIMEOUT_MS = 10_000;

const urlSchema = z.url({ protocol: /^https?$/ });

/** Comma-separated batch gateways: `x-batch-gateway:true` or http(s) URLs. */
const batchGatewayListSchema = z.string().transform((value, ctx) => {
  const urls = value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
  for (const url of urls) {
    if (url === LOCAL_BATCH_GATEWAY_URL || urlSchema.safeParse(url).success) continue;
    ctx.addIssue({ code: 'custom', message: `not ${LOCAL_BATCH_GATEWAY_URL} or an http(s) URL: ${url}` });
    return z.NEVER;
  }
  if (urls.length === 0) {
    ctx.addIssue({ code: 'custom', message: 'lists no batch gateway' });
    return z.NEVER;
  }
  return urls;
});

const ENV_SUFFIXES = {
  ensRegistry: 'ENS_REGISTRY',
  nameWrapper: 'NAME_WRAPPER',
  publicResolver: 'PUBLIC_RESOLVER',
  reverseRegistrar: 'REVERSE_REGISTRAR',
  universalResolver: 'UNIVERSAL_RESOLVER',
} as const satisfies Record<keyof EnsAddresses, string>;

/**
 * zod schema of the chain env vars: `<NETWORK>_RPC_URL`, `<NETWORK>_ENS_REGISTRY`, `<NETWORK>_NAME_WRAPPER`,
 * `<NETWORK>_PUBLIC_RESOLVER`, `<NETWORK>_REVERSE_REGISTRAR`, `<NETWORK>_UNIVERSAL_RESOLVER` for NETWORK in
 * MAINNET, SEPOLIA, `RPC_TIMEOUT_MS`, `CCIP_READ_ALLOWED_ORIGINS` (comma-separated origins exempt from the
 * CCIP-Read URL policy, for development) and `BATCH_GATEWAY_URLS` (ENSIP-21 batch gateways, default
 * `x-batch-gateway:true`). Services merge its `.shape` into their own config schema.
 */
export const networksEnvSchema = z.object({
  MAINNET_RPC_URL: urlSchema.optional(),
  MAINNET_ENS_REGISTRY: ethAddress.optional(),
  MAINNET_NAME_WRAPPER: ethAddress.optional(),
  MAINNET_PUBLIC_RESOLVER: ethAddress.optional(),
  MAINNET_REVERSE_REGISTRAR: ethAddress.optional(),
  MAINNET_UNIVERSAL_RESOLVER: ethAddress.optional(),
  SEPOLIA_RPC_URL: urlSchema.optional(),
  SEPOLIA_ENS_REGISTRY: ethAddress.optional(),
  SEPOLIA_NAME_WRAPPER: ethAddress.optional(),
  SEPOLIA_PUBLIC_RESOLVER: ethAddress.optional(),
  SEPOLIA_REVERSE_REGISTRAR: ethAddress.optional(),
  SEPOLIA_UNIVERSAL_RESOLVER: ethAddress.optional(),
  RPC_TIMEOUT_MS: z.coerce.number().int().positive().default(DEFAULT_RPC_TIMEOUT_MS),
  CCIP_READ_ALLOWED_ORIGINS: originListSchema.optional(),
  BATCH_GATEWAY_URLS: batchGatewayListSchema.optional(),
});

export type NetworksEnv = z.infer<typeof networksEnvSchema>;

export class NetworkConfigError extends Error {
  override name = 'NetworkConfigError';
}

/** Builds both networks' config from parsed env (the output of `networksEnvSchema`). */
export function networksFromEnv(parsed: NetworksEnv): NetworksConfig {
  const build = (name: NetworkName): NetworkConfig => {
    const p = envPrefix(name);
    const env = parsed as Record<string, unknown>;
    const ens = { ...DEFAULT_ENS_ADDRESSES[name] };
    for (const key of Object.keys(ENV_SUFFIXES) as Array<keyof EnsAddresses>) {
      const value = env[`${p}_${ENV_SUFFIXES[key]}`];
      if (typeof value === 'string') ens[key] = value;
    }
    const rpcUrl = env[`${p}_RPC_URL`];
    return {
      name,
      chainId: NETWORK_CHAIN_IDS[name],
      rpcUrl: typeof rpcUrl === 'string' ? rpcUrl : DEFAULT_RPC_URLS[name],
      rpcTimeoutMs: parsed.RPC_TIMEOUT_MS,
      ens,
      ccipReadAllowedOrigins: parsed.CCIP_READ_ALLOWED_ORIGINS ?? [],
      batchGatewayUrls: parsed.BATCH_GATEWAY_URLS ?? [LOCAL_BATCH_GATEWAY_URL],
    };
  };
  return perNetwork(build);
}

/** Reads and validates the chain env vars (see `networksEnvSchema`); throws NetworkConfigError listing bad vars. */
export function loadNetworksConfig(env: NodeJS.ProcessEnv = process.env): NetworksConfig {
  const result = networksEnvSchema.safeParse(withoutEmptyVariables(env));
  if (!result.success) {
    const issues = result.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    throw new NetworkConfigError(`invalid chain configuration: ${issues}`);
  }
  return networksFromEnv(result.data);
}

export function isNetworkName(value: unknown): value is NetworkName {
  return typeof value === 'string' && (NETWORK_NAMES as readonly string[]).includes(value);
}

export function networkByChainId(
  config: NetworksConfig,
  chainId: number | bigint,
): NetworkConfig | undefined {
  return Object.values(config).find((n) => BigInt(n.chainId) === BigInt(chainId));
}
