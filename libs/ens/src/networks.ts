/** The Ethereum networks whose ENS deployment the platform serves; every service and the client accept these. */
export const NETWORK_NAMES = ['mainnet', 'sepolia'] as const;
export type NetworkName = (typeof NETWORK_NAMES)[number];

/** Chain ids of the networks: the `chainId` of their providers and of the sign-in messages for them. */
export const NETWORK_CHAIN_IDS: Readonly<Record<NetworkName, number>> = { mainnet: 1, sepolia: 11155111 };

/**
 * The L2s our subname registries live on. Their names resolve from the L1 they settle on (`settlementOf`)
 * through CCIP-Read, so ENS clients see them with no special code.
 */
export const L2_NETWORK_NAMES = ['base', 'base-sepolia'] as const;
export type L2NetworkName = (typeof L2_NETWORK_NAMES)[number];

export const L2_NETWORK_CHAIN_IDS: Readonly<Record<L2NetworkName, number>> = {
  base: 8453,
  'base-sepolia': 84532,
};

/** The L1 each L2 settles on: where the parent's resolver, and so its subnames' resolution, lives. */
const L2_SETTLEMENT_NETWORK: Readonly<Record<L2NetworkName, NetworkName>> = {
  base: 'mainnet',
  'base-sepolia': 'sepolia',
};

/** Every network a name can be minted or held on: the L1s, then the L2s. */
export const MINT_NETWORK_NAMES = [...NETWORK_NAMES, ...L2_NETWORK_NAMES] as const;
export type AnyNetworkName = NetworkName | L2NetworkName;

export function isL2Network(network: AnyNetworkName): network is L2NetworkName {
  return (L2_NETWORK_NAMES as readonly string[]).includes(network);
}

/** The L1 `network` settles on: an L2's L1 (where its names resolve and its parents are owned), an L1 itself. */
export function settlementOf(network: AnyNetworkName): NetworkName {
  return isL2Network(network) ? L2_SETTLEMENT_NETWORK[network] : network;
}

/** The L2s that settle on the L1 `network`, in the order of L2_NETWORK_NAMES. */
export function l2sSettlingOn(network: NetworkName): L2NetworkName[] {
  return L2_NETWORK_NAMES.filter((l2) => L2_SETTLEMENT_NETWORK[l2] === network);
}

/** Chain id of any network, L1 or L2. */
export function chainIdOf(network: AnyNetworkName): number {
  return isL2Network(network) ? L2_NETWORK_CHAIN_IDS[network] : NETWORK_CHAIN_IDS[network];
}

/** One value per network, built by `build`: each network's providers, contracts or context. */
export function perNetwork<T>(build: (network: NetworkName) => T): Record<NetworkName, T> {
  return Object.fromEntries(NETWORK_NAMES.map((network) => [network, build(network)])) as Record<
    NetworkName,
    T
  >;
}

/** One value per L2 network. */
export function perL2Network<T>(build: (network: L2NetworkName) => T): Record<L2NetworkName, T> {
  return Object.fromEntries(L2_NETWORK_NAMES.map((network) => [network, build(network)])) as Record<
    L2NetworkName,
    T
  >;
}
