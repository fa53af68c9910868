import type { Wallet } from 'ethers';
import type { ChainProvider, NetworkConfig } from '@nrp/chain';
import type { L2NetworkName, NetworkName } from '@nrp/ens';
import type { NonceStore } from '@nrp/auth';
import type { Kysely } from 'kysely';
import type { ServiceContext } from '@nrp/server';
import type { EventOutbox } from '@nrp/outbox';
import type { MintDatabase } from './data/schema';
import type { Config } from './config';
import type { ChainContracts } from './mint/chain-facts';
import type { L2MintControllers } from './mint/l2-controllers';

/** One network as the mint service sees it. */
export interface MintNetworkContext {
  config: NetworkConfig;
  provider: ChainProvider;
  contracts: ChainContracts;
  /** Undefined: minting (signing) is not available on this network. */
  mintController: string | undefined;
}

/**
 * Everything the routes and use cases of this service use, built once in `createService`. Use cases take the part
 * they need as `Pick<MintContext, …>`.
 */
export interface MintContext extends ServiceContext<Config> {
  /** The L1s: ENS, parents' owners, sign-ins and the L1 mint controllers. */
  networks: Record<NetworkName, MintNetworkContext>;
  /** The L2s: the parents their configured L2MintControllers mint under. */
  l2: Record<L2NetworkName, L2MintControllers>;
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
