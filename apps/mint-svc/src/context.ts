import type { Wallet } from 'ethers';
import type { ChainProvider, NetworkConfig } from '@nrp/chain';
import type { MintNetwork } from '@nrp/api';
import type { NonceStore } from '@nrp/auth';
import type { Kysely } from 'kysely';
import type { ServiceContext } from '@nrp/server';
import type { EventOutbox } from '@nrp/outbox';
import type { MintDatabase } from './data/schema';
import type { ChainContracts } from './chain-facts';
import type { Config } from './config';

/** One network as the mint service sees it. */
export interface MintNetworkContext {
  config: NetworkConfig;
  provider: ChainProvider;
  contracts: ChainContracts;
  /** Undefined: minting (signing) is not available on this network. */
  mintController: string | undefined;
}

/** What the routes need; built once in createService. */
export interface MintServiceContext extends ServiceContext<Config> {
  networks: Record<MintNetwork, MintNetworkContext>;
  nonces: NonceStore;
  /** Never logged; only used to sign. */
  signer: Wallet;
  /** Queries and transactions; the handle that owns the connection stays in `createService`, which closes it. */
  db: Kysely<MintDatabase>;
  /** Where \`mint.signed\` is written before the signature is answered (relayed to offchain-svc). */
  events: EventOutbox;
  /** The clock (tests hand in their own). */
  now: () => Date;
}
