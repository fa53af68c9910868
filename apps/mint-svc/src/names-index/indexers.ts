import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { startPeriodic, type Logger, type PeriodicTask } from '@nrp/server';
import type { MintServiceContext } from './context';
import { NetworkNameIndex, type IndexReport, type NameIndexSettings } from './names-index';
import { l1IndexSource, l2IndexSource, type NameIndexSource } from './names-sources';

/** The indexers of every network with a mint controller (an L2 with L2MintControllers), each on the shared loop. */
export interface NameIndexers {
  indexes: Map<string, NetworkNameIndex>;
  stop(): Promise<void>;
}

export function startNameIndexers(
  ctx: Pick<MintServiceContext, 'db' | 'events' | 'networks' | 'l2'>,
  settingsOf: (network: string) => NameIndexSettings,
  logger: Logger,
  reportOf: (network: string) => IndexReport,
): NameIndexers {
  const holder = `${hostname()}:${process.pid}:${randomUUID()}`;
  const indexes = new Map<string, NetworkNameIndex>();
  const tasks: PeriodicTask[] = [];
  const sources = new Map<string, NameIndexSource>();
  for (const [name, network] of Object.entries(ctx.networks)) {
    const controller = network.mintController;
    if (controller) sources.set(name, l1IndexSource({ ...network, mintController: controller }));
  }
  for (const directory of Object.values(ctx.l2)) {
    if (directory.controllers.length > 0) sources.set(directory.network, l2IndexSource(directory));
  }
  for (const [name, source] of sources) {
    const settings = settingsOf(name);
    const index = new NetworkNameIndex(ctx, name, source, settings, holder, reportOf(name));
    indexes.set(name, index);
    tasks.push(startPeriodic(`name index ${name}`, settings.intervalMs, () => index.tick(), logger));
  }
  return {
    indexes,
    async stop() {
      await Promise.all(tasks.map((t) => t.stop()));
      await Promise.all([...indexes.values()].map((i) => i.release().catch(() => undefined)));
    },
  };
}
