/** The Ethereum networks whose ENS deployment the platform serves; every service and the client accept these. */
export const NETWORK_NAMES = ['mainnet', 'sepolia'] as const;
export type NetworkName = (typeof NETWORK_NAMES)[number];
