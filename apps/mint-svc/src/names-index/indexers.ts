import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { Gauge, type Registry } from 'prom-client';
import { envPrefix, NETWORK_NAMES } from '@nrp/chain';
import type { AnyNetworkName } from '@nrp/ens';
import { NotReady, startPeriodic, type PeriodicTask } from '@nrp/server';
import type { MintContext } from '../context';
import { NetworkNameIndex, type IndexReport, type NameIndexSettings } from './names-index';
import { l1IndexSource, l2IndexSource, type NameIndexSource } from './sources';

/** The indexers of every network with a mint controller (an L2 with L2MintControllers), each on the shared loop. */
export interface NameIndexers {
  /** Per indexed network (`<network>-index`): not ready while the index lags more than INDEX_MAX_LAG_BLOCKS. */
  readiness: Record<string, () => Promise<unknown>>;
  stop(): Promise<void>;
}

/** A network's indexer settings from the config (`INDEX_*`, `<NETWORK>_INDEX_START_BLOCK`). */
export function settingsOf(config: MintContext['config'], network: AnyNetworkName): NameIndexSettings {
  return {
    startBlock: config[`${envPrefix(network)}_INDEX_START_BLOCK`],
    confirmations: config.INDEX_CONFIRMATIONS,
    batchBlocks: config.INDEX_BATCH_BLOCKS,
    leaseMs: config.INDEX_LEASE_MS,
    intervalMs: config.INDEX_INTERVAL_MS,
    maxBackoffMs: config.INDEX_MAX_BACKOFF_MS,
  };
}

/** The metrics `name_index_lag_blocks` and `name_index_failures` in `registry`, by network. */
function indexReports(registry: Registry): (network: string) => IndexReport {
  const lagGauge = new Gauge({
    name: 'name_index_lag_blocks',
    help: 'Blocks between the confirmed head and the names index, by network.',
    labelNames: ['network'],
    registers: [registry],
  });
  const failuresGauge = new Gauge({
    name: 'name_index_failures',
    help: 'Failed runs in a row of the names index, by network (0 after a run that succeeded).',
    labelNames: ['network'],
    registers: [registry],
  });
  return (network) => ({
    lag: (blocks) => lagGauge.set({ network }, blocks),
    failures: (count) => failuresGauge.set({ network }, count),
  });
}

/** Whether `index` is within INDEX_MAX_LAG_BLOCKS of the confirmed head, with its failed runs in a row. */
function indexReadiness(config: MintContext['config'], index: NetworkNameIndex) {
  return async () => {
    const lag = await index.lag();
    const { failures, retryInMs } = index.health();
    const failing = failures > 0 ? `; ${failures} failed runs in a row (next in ${retryInMs} ms)` : '';
    if (lag > config.INDEX_MAX_LAG_BLOCKS) {
      throw new NotReady(
        `the names index is ${lag} blocks behind (INDEX_MAX_LAG_BLOCKS ${config.INDEX_MAX_LAG_BLOCKS})${failing}`,
      );
    }
    return `ok, ${lag} blocks behind${failing}`;
  };
}

/** Where the names index of each network with a mint controller (an L2 with L2MintControllers) reads. */
export function indexSources(
  ctx: Pick<MintContext, 'networks' | 'l2'>,
): Map<AnyNetworkName, NameIndexSource> {
  const sources = new Map<AnyNetworkName, NameIndexSource>();
  for (const name of NETWORK_NAMES) {
    const network = ctx.networks[name];
    const controller = network.mintController;
    if (controller) sources.set(name, l1IndexSource({ ...network, mintController: controller }));
  }
  for (const l2 of Object.values(ctx.l2)) {
    if (l2.controllers.length > 0) sources.set(l2.network, l2IndexSource(l2));
  }
  return sources;
}

/** Starts the names index of every network with a mint controller; its metrics go to `registry`. */
export function startNameIndexers(
  ctx: Pick<MintContext, 'config' | 'logger' | 'db' | 'events' | 'networks' | 'l2'>,
  registry: Registry,
): NameIndexers {
  const holder = `${hostname()}:${process.pid}:${randomUUID()}`;
  const reportOf = indexReports(registry);
  const indexes: NetworkNameIndex[] = [];
  const readiness: Record<string, () => Promise<unknown>> = {};
  const tasks: PeriodicTask[] = [];
  for (const [name, source] of indexSources(ctx)) {
    const settings = settingsOf(ctx.config, name);
    const index = new NetworkNameIndex(ctx, name, source, settings, holder, reportOf(name));
    indexes.push(index);
    readiness[`${name}-index`] = indexReadiness(ctx.config, index);
    tasks.push(startPeriodic(`name index ${name}`, settings.intervalMs, () => index.tick(), ctx.logger));
  }
  return {
    readiness,
    async stop() {
      await Promise.all(tasks.map((t) => t.stop()));
      await Promise.all(indexes.map((i) => i.release().catch(() => undefined)));
    },
  };
}
