import type { NonceStore } from '@nrp/auth';
import type { NetworkProviders } from '@nrp/chain';
import type { RenderedJson, ServiceContext } from '@nrp/server';
import type { AnswerCache } from './answer-cache';
import type { Config } from './config';
import type { Kysely } from 'kysely';
import type { OffchainDatabase } from './data/schema';
import type { EventRecorder } from './events';
import type { NameControlReader } from './name-control';
import type { WebhookSettings } from './webhooks';

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
}
