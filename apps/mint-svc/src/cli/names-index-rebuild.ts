/**
 * Operator command: `npm run names-index:rebuild -w @nrp/mint-svc`, with the service's environment and a fresh
 * DATABASE_SCHEMA, builds the names index of every indexed network from the chain alone (mint-svc README).
 */
import { createLogger, loadConfig } from '@nrp/server';
import { configSchema } from '../config';
import { rebuildNamesIndex, RebuildRefused } from '../names-index/rebuild';
import { createService } from '../service';

async function run(): Promise<void> {
  // The service's own wiring, without its background work: the command indexes, once, in the foreground.
  const config = loadConfig(configSchema, {
    ...process.env,
    INDEX_INTERVAL_MS: '0',
    EVENTS_RELAY_INTERVAL_MS: '0',
  });
  const service = await createService(config, createLogger('names-index-rebuild', config.LOG_LEVEL));
  try {
    await rebuildNamesIndex(service.context, (line) => console.log(line));
  } finally {
    for (const close of service.onShutdown) await close();
  }
}

run().then(
  () => process.exit(0),
  (err: unknown) => {
    console.error(err instanceof RebuildRefused ? `refused: ${err.message}` : err);
    process.exit(1);
  },
);
