/**
 * The contract between `scripts/dev-stack.ts` (`npm start`) and each service's `dev/dev-stack.ts` hook.
 * The script starts anvil with ENS and the demo names, asks every service's hook what it adds (contracts it
 * deploys, names it creates, environment it needs), starts the four services in this one process, runs the
 * hooks' `afterStart` steps, and writes `.data/dev-stack.json`.
 */
export interface DevAccount {
  address: string;
  privateKey: string;
}

export interface DevStackContext {
  rpcUrl: string;
  chainId: number;
  network: 'sepolia';
  /** ENS contracts deployed by the test kit (ensRegistry, publicResolver, reverseRegistrar, …). */
  contracts: Record<string, string>;
  /** anvil's well-known accounts; the first owns demo.eth, the last has no reverse record. */
  accounts: DevAccount[];
  /** Base URLs the four services will listen on. */
  services: { metadata: string; mint: string; offchain: string; resolver: string };
  /** Root of the embedded data (`.data/`): each service keeps its PGlite and blobs below it. */
  dataDir: string;
  /** Environment every service gets (RPC URL and ENS addresses for `sepolia`). */
  env: Record<string, string>;
}

export interface DevStackContribution {
  /** Environment for this service only (merged over `ctx.env`). */
  env?: Record<string, string>;
  contracts?: Record<string, string>;
  names?: Record<string, string>;
  offchainApiKey?: string;
  /** Runs once every service listens, e.g. to create demo records through the service's own API. */
  afterStart?: () => Promise<void>;
}

export type DevStackHook = (ctx: DevStackContext) => Promise<DevStackContribution>;
