/**
 * The contract between `scripts/dev-stack.ts` (`npm start`) and each service's `dev/dev-stack.ts` hook.
 * The script starts anvil with ENS and the demo names (and a second anvil as the L2 with our registry of `l2.eth`), asks every service's hook what it adds (contracts it
 * deploys, names it creates, environment it needs), starts the four services in this one process, runs the
 * hooks' `afterStart` steps, and writes `.data/dev-stack.json`.
 */
/** The dev stack's L2 parent: its subnames are ERC-721 tokens on the L2, resolved from L1 through CCIP-Read. */
export const DEV_L2_PARENT = 'l2.eth';
/**
 * The dev stack's proven L2 parent: subnames on the same L2, resolved from L1 through ProvenL2Resolver, which checks
 * storage proofs against the output roots the dev rollup posts (no signer trusted).
 */
export const DEV_PROVEN_L2_PARENT = 'proven.eth';

export interface DevAccount {
  address: string;
  privateKey: string;
}

export interface DevStackContext {
  rpcUrl: string;
  chainId: number;
  network: 'sepolia';
  /** The L2 beside it: anvil as Base Sepolia, carrying our L2Registry of `l2.eth` (`contracts.l2Registry`). */
  l2: { rpcUrl: string; chainId: number; network: 'base-sepolia' };
  /** ENS contracts deployed by the test kit (ensRegistry, publicResolver, reverseRegistrar, …). */
  contracts: Record<string, string>;
  /** anvil's well-known accounts; the first owns demo.eth, the last has no reverse record. */
  accounts: DevAccount[];
  /** Base URLs the four services will listen on. */
  services: { metadata: string; mint: string; offchain: string; resolver: string };
  /** Root of the embedded data (`.data/`): each service keeps its PGlite and blobs below it. */
  dataDir: string;
  /** Environment every service gets (RPC URL and ENS addresses for `sepolia`, RPC URL and registry of the L2). */
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
