/** The Ethereum networks whose ENS deployment the platform serves; every service and the client accept these. */
export const NETWORK_NAMES = ['mainnet', 'sepolia'] as const;
export type NetworkName = (typeof NETWORK_NAMES)[number];

/** Chain ids of the networks: the `chainId` of their providers and of the sign-in messages for them. */
export const NETWORK_CHAIN_IDS: Readonly<Record<NetworkName, number>> = { mainnet: 1, sepolia: 11155111 };

/** One value per network, built by `build`: each network's providers, contracts or context. */
export function perNetwork<T>(build: (network: NetworkName) => T): Record<NetworkName, T> {
  return Object.fromEntries(NETWORK_NAMES.map((network) => [network, build(network)])) as Record<
    NetworkName,
    T
  >;
}
