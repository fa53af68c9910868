import { hostname } from 'node:os';
import { createEventOutbox } from '@nrp/outbox';
import type { MintContext } from '../context';
import { rollBackTo, takeLease } from '../data/names-index';
import { EVENT_OUTBOX_TABLE } from '../data/schema';
import { indexSources, settingsOf } from './indexers';
import { NetworkNameIndex } from './names-index';

/** A rebuild that cannot run now: nothing was written, and the message says why. */
export class RebuildRefused extends Error {
  override readonly name = 'RebuildRefused';
}

/**
 * Rebuilds the names index of every indexed network from the chain: under the network's lease (the service's
 * indexers stand aside meanwhile), the index is emptied in one transaction and indexed again by the indexer's own
 * batches from `<NETWORK>_INDEX_START_BLOCK` to the confirmed head. Nothing of the old index is read; the parents'
 * names come from the listings, as when indexing (the registry keeps no names). It appends no events: the names were
 * announced when they were first indexed. Answers the block each network's index reached.
 */
export async function rebuildNamesIndex(
  ctx: Pick<MintContext, 'config' | 'db' | 'networks' | 'l2'>,
  out: (line: string) => void,
): Promise<Record<string, number>> {
  const quiet = { db: ctx.db, events: createEventOutbox(EVENT_OUTBOX_TABLE, false) };
  const holder = `rebuild:${hostname()}:${process.pid}`;
  const noReport = { lag: () => undefined, failures: () => undefined };
  const reached: Record<string, number> = {};
  for (const [network, source] of indexSources(ctx)) {
    const settings = settingsOf(ctx.config, network);
    if (!(await takeLease(ctx.db, network, holder, settings.leaseMs))) {
      throw new RebuildRefused(`the ${network} names index is being written (another holder has its lease)`);
    }
    const index = new NetworkNameIndex(quiet, network, source, settings, holder, noReport);
    try {
      if ((await rollBackTo(ctx.db, network, holder, settings.startBlock - 1)) === 'lease-lost') {
        throw new RebuildRefused(`the ${network} names index lease was lost before the rebuild began`);
      }
      const progress = await index.tick();
      if (progress === 'backing-off' || !progress.holder || progress.cursor < progress.target) {
        throw new RebuildRefused(
          `the ${network} names index lease was lost during the rebuild: run it again`,
        );
      }
      reached[network] = progress.cursor;
      out(`${network}: indexed again from block ${settings.startBlock} to ${progress.cursor}`);
    } finally {
      await index.release();
    }
  }
  return reached;
}
