/**
 * Operator command for API keys: `npm run -w apps/offchain-svc keys -- create --parent demo.eth`, `list`,
 * `revoke <id>`. Uses the service's database settings (`databaseEnvSchema` of @nrp/db: DATABASE_URL and
 * DATABASE_SCHEMA, or PGLITE_DATA_DIR).
 * A PGlite data directory is single-process: stop the service before using it on the same directory.
 */
import { databaseEnvSchema } from '@nrp/db';
import { loadConfig } from '@nrp/server';
import { migrateDatabase, openDatabase } from '../data/database';
import { KEYS_USAGE, KeysUsageError, runKeysCommand } from './keys-command';

async function run(): Promise<number> {
  const argv = process.argv.slice(2);
  if (argv.length === 0 || argv[0] === '--help' || argv[0] === '-h') {
    console.log(KEYS_USAGE);
    return argv.length === 0 ? 1 : 0;
  }
  const database = openDatabase(loadConfig(databaseEnvSchema));
  try {
    await migrateDatabase(database);
    return await runKeysCommand({ db: database.db }, argv, (line) => console.log(line));
  } finally {
    await database.close();
  }
}

run().then(
  (code) => process.exit(code),
  (err: unknown) => {
    if (err instanceof KeysUsageError) console.error(`${err.message}\n\n${KEYS_USAGE}`);
    else console.error(err instanceof Error ? err.message : String(err));
    process.exit(err instanceof KeysUsageError ? 2 : 1);
  },
);
