import type { NetworkName } from '@nrp/ens';

/** What the page reads from `/config.json`: where the services are and which network it works on. */
export interface ConsoleConfig {
  network: NetworkName;
  services: { offchain: string; mint: string; metadata: string; resolver: string };
}
