import { randomUUID } from 'node:crypto';
import { hostname } from 'node:os';
import { startPeriodic, type Logger, type PeriodicTask } from '@nrp/server';
import type { MintServiceContext } from './context';
import { NetworkNameIndex, type IndexReport, type NameIndexSettings } from './names-index';

/** The indexers of every network with a mint controller, each on the shared periodic loop. */
export interface NameIndexers {
  indexes: Map<string, NetworkNameIndex>;
  stop(): Promise<void>;
}

export function startNameIndexers(
  ctx: Pick<MintServiceContext, 'db' | 'events' | 'networks'>,
  settingsOf: (network: string) => NameIndexSettings,
  logger: Logger,
  reportOf: (network: string) => IndexReport,
): NameIndexers {
  const holder = `${hostname()}:${process.pid}:${randomUUID()}`;
  const indexes = new Map<string, NetworkNameIndex>();
  const tasks: PeriodicTask[] = [];
  for (const [name, network] of Object.entries(ctx.networks)) {
    const controller = network.mintController;
    if (!controller) continue;
    const settings = settingsOf(name);
    const index = new NetworkNameIndex(
      ctx,
      name,
      { ...network, mintController: controller },
      settings,
      holder,
      reportOf(name),
    );
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
