/**
 * `npm run backup -- <service> <dir>` and `npm run restore -- <service> <dir> [--replace]`: the service's data as its
 * own environment describes it (DATABASE_URL, DATABASE_SCHEMA, and for metadata-svc S3_* or BLOB_DIR).
 */
import { blobStoreEnvSchema, blobStoreFromEnv } from '@nrp/storage';
import {
  BackupRefused,
  backupService,
  backupServiceName,
  restoreService,
  type ServiceData,
} from './service-backup';
import { BACKUP_SERVICES } from './backup-services';

const USAGE =
  'usage: npm run backup -- <service> <dir>\n       npm run restore -- <service> <dir> [--replace]\n' +
  `services: ${Object.keys(BACKUP_SERVICES).join(', ')}`;

function serviceData(name: string, env: NodeJS.ProcessEnv): ServiceData {
  const service = backupServiceName(name);
  if (!env.DATABASE_URL) {
    throw new BackupRefused(
      'DATABASE_URL is not set: backups are of a PostgreSQL server (pg_dump), not of PGlite',
    );
  }
  const hasBlobs = 'referencedBlobs' in BACKUP_SERVICES[service];
  const blobEnv = blobStoreEnvSchema.keyof().options;
  return {
    service,
    databaseUrl: env.DATABASE_URL,
    schema: BACKUP_SERVICES[service].schemaOf(env),
    ...(hasBlobs
      ? { blobs: blobStoreFromEnv(Object.fromEntries(blobEnv.map((key) => [key, env[key]]))) }
      : {}),
  };
}

async function main(argv: string[]): Promise<void> {
  const [command, name, dir, ...flags] = argv;
  const replace = flags.includes('--replace');
  if (!name || !dir || flags.some((flag) => flag !== '--replace') || (command === 'backup' && replace)) {
    throw new BackupRefused(USAGE);
  }
  const data = serviceData(name, process.env);
  if (command === 'backup') {
    const manifest = await backupService(data, dir);
    console.log(
      `backed up ${manifest.service} (schema ${manifest.schema}, migration ${manifest.migrations.at(-1)}, ` +
        `${manifest.blobs.length} blobs) into ${dir}`,
    );
  } else if (command === 'restore') {
    const manifest = await restoreService(data, dir, { replace });
    console.log(
      `restored ${manifest.service} (migration ${manifest.migrations.at(-1)}, ${manifest.blobs.length} blobs, ` +
        `made ${manifest.createdAt}) into schema ${data.schema}`,
    );
  } else {
    throw new BackupRefused(USAGE);
  }
}

main(process.argv.slice(2)).catch((err: unknown) => {
  console.error(err instanceof BackupRefused ? `refused: ${err.message}` : err);
  process.exit(1);
});
