import type { PlatformEvent } from '@nrp/api';
import type { NonceStore } from '@nrp/auth';
import type { L2NetworksConfig, L2ParentDirectory, NetworkProviders } from '@nrp/chain';
import type { RenderedJson, ServiceContext } from '@nrp/server';
import type { AnswerCache } from './gateway/answer-cache';
import type { Config } from './config';
import type { GatewaySigning, L2Gateway } from './gateway/answers';
import type { GatewayRecordReads } from './gateway/record-reads';
import type { Kysely, Transaction } from 'kysely';
import type { OffchainDatabase } from './data/schema';
import type { NameControlReader } from './keys/name-control';
import type { L2Provers } from './proofs/provers';

/** Everything the routes and workers of this service use, built once in `createService`. */
export interface OffchainContext extends ServiceContext<Config> {
  /** Queries and transactions; the handle that owns the connection stays in `createService`, which closes it. */
  db: Kysely<OffchainDatabase>;
  events: EventRecorder;
  webhooks: WebhookSettings;
  /** One provider per network: name control, setup reads, ERC-1271 sign-ins. */
  providers: NetworkProviders;
  /** Sign-in nonces (scope `session`). */
  nonces: NonceStore;
  /** Who controls a name on chain, cached up to NAME_CONTROL_CACHE_MS. */
  nameControl: NameControlReader;
  /** The clock (tests hand in their own). */
  now: () => Date;
  /** Answers kept in this replica, dropped by name when a write commits (see `events.transaction`). */
  caches: {
    gateway: AnswerCache<RenderedJson>;
    /** Subname reads by full name and by namehash; null: no such subname. */
    subnames: AnswerCache<RenderedJson | null>;
  };
  /** The gateway's reads of records, shared by concurrent lookups (see `GatewayRecordReads`). */
  gatewayReads: GatewayRecordReads;
  /** How both CCIP-Read gateways sign: the gateway key, the answers' TTL, this context's clock. */
  gatewaySigning: GatewaySigning;
  /** The CCIP-Read gateway of L2 names: the L2 record reader and its short answer cache (never invalidated). */
  l2Gateway: L2Gateway;
  /** Our L2 registries on each L2 (`<L2>_L2_REGISTRIES`), and their parent names (read once). */
  l2Networks: L2NetworksConfig;
  l2ParentNames: L2ParentDirectory;
  /** Storage proofs of our L2 registries for ProvenL2Resolver, one prover per L2. */
  l2Provers: L2Provers;
}

/** Records events for the subscribed webhooks inside the caller's transaction (see `data/events.ts`). */
export interface EventRecorder {
  record(db: Kysely<OffchainDatabase>, events: PlatformEvent[]): Promise<number>;
  /**
   * Runs `work` in one transaction, the one way subnames are written: once it has committed, the cached answers of
   * every subname whose `subname.*` event it recorded are dropped in every replica. A transaction that fails drops
   * nothing.
   */
  transaction<T>(
    db: Kysely<OffchainDatabase>,
    work: (trx: Transaction<OffchainDatabase>) => Promise<T>,
  ): Promise<T>;
}

/** How webhook deliveries are made and retried. */
export interface WebhookSettings {
  /** Origins exempt from the URL policy (development receivers on loopback). */
  allowedOrigins: readonly string[];
  /** First retry after at most this long; each later one waits twice as long (jittered), up to an hour. */
  retryBaseMs: number;
  /** Failed attempts are retried until this long after the event, then the delivery is failed. */
  retryWindowMs: number;
  /** An attempt without an answer within this long failed. */
  timeoutMs: number;
}
