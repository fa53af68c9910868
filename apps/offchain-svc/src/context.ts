import type { ServiceContext } from '@nrp/server';
import type { Config } from './config';
import type { OffchainDb } from './data/database';
import type { EventRecorder } from './events';
import type { WebhookSettings } from './webhooks';

/** Everything the routes and workers of this service use, built once in `createService`. */
export interface OffchainContext extends ServiceContext<Config> {
  db: OffchainDb;
  events: EventRecorder;
  webhooks: WebhookSettings;
}
