/** What the page reads from `/config.json`: where the services are and which network it works on. */
export interface ConsoleConfig {
  network: 'mainnet' | 'sepolia';
  services: { offchain: string; mint: string; metadata: string; resolver: string };
}

export const CHAIN_IDS: Record<ConsoleConfig['network'], number> = { mainnet: 1, sepolia: 11155111 };
