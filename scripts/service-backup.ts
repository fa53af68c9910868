/**
 * Backup and restore of one service's data: its PostgreSQL schema (`pg_dump`/`pg_restore`, custom format) and the
 * blobs its rows reference, with a manifest that says what the backup is. `scripts/backup.ts` is the command line
 * (`npm run backup`, `npm run restore`); README "Backups and restores" is the operator's page.
 */
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { assertSchemaName, createDatabase } from '@nrp/db';
import { assertBlobKey, type BlobStore } from '@nrp/storage';
import { BACKUP_SERVICES, isBackupService, type BackupServiceName } from './backup-services';

const FORMAT = 'nrp-service-backup/1';
const MANIFEST_FILE = 'manifest.json';
const DUMP_FILE = 'database.dump';
const BLOB_DIR = 'blobs';

export interface BackupManifest {
  format: typeof FORMAT;
  service: BackupServiceName;
  /** The schema the dump was taken from (its objects are qualified with it). */
  schema: string;
  /** The migrations applied to it, in order: the last is its migration level. */
  migrations: string[];
  createdAt: string;
  /** Extensions of the database (created in `public` before a restore: the schema's indexes use them). */
  extensions: string[];
  blobs: Array<{ key: string; contentType: string; size: number; sha256: string }>;
}

/** Where a service's data lives: one PostgreSQL schema and, for a service with blobs, its blob store. */
export interface ServiceData {
  service: BackupServiceName;
  databaseUrl: string;
  schema: string;
  blobs?: BlobStore;
}

/** A backup or restore that would be wrong: nothing was changed, and the message says why. */
export class BackupRefused extends Error {
  override readonly name = 'BackupRefused';
}

export function backupServiceName(name: string): BackupServiceName {
  if (!isBackupService(name)) {
    throw new BackupRefused(
      `"${name}" is not a service with data to back up (${Object.keys(BACKUP_SERVICES).join(', ')})`,
    );
  }
  return name;
}

const describe = (m: BackupManifest): string =>
  `a backup of ${m.service} (schema ${m.schema}, migration ${m.migrations.at(-1) ?? 'none'}, ` +
  `${m.blobs.length} blobs, made ${m.createdAt})`;

/** `pg_dump`/`pg_restore` from PG_BIN_DIR when set, else from PATH. */
function pgTool(name: 'pg_dump' | 'pg_restore'): string {
  return process.env.PG_BIN_DIR ? path.join(process.env.PG_BIN_DIR, name) : name;
}

function run(command: string, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0
        ? resolve(stdout)
        : reject(new Error(`${path.basename(command)} exited with ${String(code)}: ${stderr.trim()}`)),
    );
  });
}

async function withDatabase<T>(url: string, fn: (db: Kysely<unknown>) => Promise<T>): Promise<T> {
  const { db, close } = createDatabase<unknown>({ url, poolMax: 2 });
  try {
    return await fn(db);
  } finally {
    await close();
  }
}

async function relationCount(db: Kysely<unknown>, schema: string): Promise<number | undefined> {
  const { rows } = await sql<{ relations: number }>`
    select (select count(*)::int from pg_class c where c.relnamespace = n.oid) as relations
    from pg_namespace n where n.nspname = ${schema}`.execute(db);
  return rows[0]?.relations;
}

async function hasTable(db: Kysely<unknown>, schema: string, table: string): Promise<boolean> {
  const { rows } = await sql<{
    found: boolean;
  }>`select to_regclass(${`${schema}.${table}`}) is not null as found`.execute(db);
  return rows[0]?.found === true;
}

const sha256 = (bytes: Buffer): string => createHash('sha256').update(bytes).digest('hex');

/**
 * Writes a backup of the service's schema and referenced blobs into `dir` (which must be empty or absent). The dump,
 * the migration level and the list of blobs come from one snapshot (a read-only repeatable-read transaction whose
 * snapshot `pg_dump --snapshot` shares), so writes going on meanwhile are either wholly in it or wholly not; the blobs
 * it references are then copied (blobs are never rewritten under a key).
 */
export async function backupService(
  data: ServiceData,
  dir: string,
  now = new Date(),
): Promise<BackupManifest> {
  const service = BACKUP_SERVICES[data.service];
  const schema = assertSchemaName(data.schema);
  const existing = await readdir(dir).catch(() => []);
  if (existing.length > 0) throw new BackupRefused(`${dir} is not empty: a backup goes into a new directory`);
  return withDatabase(data.databaseUrl, async (db) => {
    if (!(await hasTable(db, schema, service.migrationTable))) {
      throw new BackupRefused(
        `schema ${schema} holds no ${data.service} data (no table ${schema}.${service.migrationTable})`,
      );
    }
    await mkdir(path.join(dir, BLOB_DIR), { recursive: true });
    // The directory was empty: an unfinished backup leaves nothing behind.
    try {
      const taken = await db
        .transaction()
        .setIsolationLevel('repeatable read')
        .setAccessMode('read only')
        .execute(async (trx) => {
          const { rows } = await sql<{ snapshot: string }>`select pg_export_snapshot() as snapshot`.execute(
            trx,
          );
          const snapshot = rows[0]?.snapshot ?? '';
          const dumped = run(pgTool('pg_dump'), [
            '--format=custom',
            `--schema=${schema}`,
            '--no-owner',
            '--no-privileges',
            `--snapshot=${snapshot}`,
            `--file=${path.join(dir, DUMP_FILE)}`,
            `--dbname=${data.databaseUrl}`,
          ]);
          await sql`set local search_path to ${sql.id(schema)}`.execute(trx);
          const migrations = await sql<{
            name: string;
          }>`select name from ${sql.table(service.migrationTable)} order by name`
            .execute(trx)
            .then((result) => result.rows.map((row) => row.name));
          const extensions = await sql<{
            extname: string;
          }>`select extname from pg_extension where extname <> 'plpgsql' order by extname`
            .execute(trx)
            .then((result) => result.rows.map((row) => row.extname));
          const references = 'referencedBlobs' in service ? await service.referencedBlobs(trx) : [];
          // pg_dump holds the snapshot from its start: the transaction may end only after it has finished.
          await dumped;
          return { migrations, extensions, references };
        });
      const blobs: BackupManifest['blobs'] = [];
      for (const { key, contentType } of taken.references) {
        if (!data.blobs) throw new BackupRefused(`${data.service} has blobs but no blob store was given`);
        const stored = await data.blobs.get(key);
        if (!stored) {
          throw new BackupRefused(
            `blob ${key}, which a row of the snapshot references, is gone from the store (its image was replaced ` +
              'or deleted since the snapshot): take the backup again',
          );
        }
        const file = path.join(dir, BLOB_DIR, assertBlobKey(key, 'get'));
        await mkdir(path.dirname(file), { recursive: true });
        await writeFile(file, stored.bytes);
        blobs.push({ key, contentType, size: stored.bytes.length, sha256: sha256(stored.bytes) });
      }
      const written: BackupManifest = {
        format: FORMAT,
        service: data.service,
        schema,
        migrations: taken.migrations,
        createdAt: now.toISOString(),
        extensions: taken.extensions,
        blobs,
      };
      // Last: a directory without a manifest is an unfinished backup, and restore refuses it.
      await writeFile(path.join(dir, MANIFEST_FILE), `${JSON.stringify(written, null, 2)}\n`);
      return written;
    } catch (err) {
      await rm(dir, { recursive: true, force: true });
      throw err;
    }
  });
}

/** The backup in `dir`, checked against the service and the code: refused when it is not one this code restores. */
export async function readBackup(service: BackupServiceName, dir: string): Promise<BackupManifest> {
  const text = await readFile(path.join(dir, MANIFEST_FILE), 'utf8').catch(() => undefined);
  if (text === undefined)
    throw new BackupRefused(`${dir} is not a finished backup: it has no ${MANIFEST_FILE}`);
  const manifest = JSON.parse(text) as BackupManifest;
  if (manifest.format !== FORMAT) {
    throw new BackupRefused(`${dir}/${MANIFEST_FILE} is not a service backup of format ${FORMAT}`);
  }
  if (manifest.service !== service) {
    throw new BackupRefused(`${dir} is ${describe(manifest)}, not of ${service}`);
  }
  const known = new Set(Object.keys(BACKUP_SERVICES[service].migrations));
  const unknown = manifest.migrations.filter((name) => !known.has(name));
  if (unknown.length > 0) {
    throw new BackupRefused(
      `${dir} is ${describe(manifest)}, a newer schema than this code knows (migrations ${unknown.join(', ')}): ` +
        'restore it with the release that made it',
    );
  }
  for (const blob of manifest.blobs) {
    const bytes = await readFile(path.join(dir, BLOB_DIR, assertBlobKey(blob.key, 'get'))).catch(
      () => undefined,
    );
    if (!bytes || sha256(bytes) !== blob.sha256) {
      throw new BackupRefused(`${dir} is damaged: blob ${blob.key} is missing or not the bytes backed up`);
    }
  }
  return manifest;
}

/**
 * Restores the backup in `dir` into the service's schema and blob store. Refuses (changing nothing) a backup of
 * another service or of a newer schema, and a schema that holds anything unless `replace`, which drops what is in it
 * first. The dump is restored in one transaction. A backup of schema A restores into schema B by restoring it as A
 * and renaming A to B, so A must not exist in the database then. The service migrates an older backup when it starts.
 */
export async function restoreService(
  data: ServiceData,
  dir: string,
  { replace = false }: { replace?: boolean } = {},
): Promise<BackupManifest> {
  const manifest = await readBackup(data.service, dir);
  const target = assertSchemaName(data.schema);
  const source = assertSchemaName(manifest.schema);
  if (manifest.blobs.length > 0 && !data.blobs) {
    throw new BackupRefused(
      `${describe(manifest)} has blobs, but no blob store was given to restore them into`,
    );
  }
  await withDatabase(data.databaseUrl, async (db) => {
    const relations = await relationCount(db, target);
    if (relations !== undefined && relations > 0 && !replace) {
      throw new BackupRefused(
        `schema ${target} is not empty (${relations} tables, indexes and sequences): restore --replace drops them first`,
      );
    }
    if (source !== target) {
      if (source === 'public' || target === 'public') {
        throw new BackupRefused(
          `a backup of schema ${source} restores into ${source} only, not into ${target}`,
        );
      }
      if ((await relationCount(db, source)) !== undefined) {
        throw new BackupRefused(
          `restoring a backup of schema ${source} into ${target} needs no schema ${source} in the database: it exists`,
        );
      }
    }
    if (relations !== undefined && relations > 0) await emptySchema(db, target);
    for (const extension of manifest.extensions) {
      await sql`create extension if not exists ${sql.id(extension)} schema public`.execute(db);
    }
    if (source !== target) await sql`drop schema if exists ${sql.id(target)}`.execute(db);
    await sql`create schema if not exists ${sql.id(source)}`.execute(db);
    // The schema itself is ours (it may exist, and `public` always does): restore everything but its CREATE SCHEMA.
    const toc = await run(pgTool('pg_restore'), ['--list', path.join(dir, DUMP_FILE)]);
    const listFile = path.join(dir, '.restore-list');
    await writeFile(listFile, toc.replace(/^(\d+; \d+ \d+ SCHEMA - .*)$/gm, ';$1'));
    try {
      await run(pgTool('pg_restore'), [
        '--single-transaction',
        '--exit-on-error',
        '--no-owner',
        '--no-privileges',
        `--use-list=${listFile}`,
        `--dbname=${data.databaseUrl}`,
        path.join(dir, DUMP_FILE),
      ]);
    } catch (err) {
      if (source !== target) await sql`drop schema if exists ${sql.id(source)}`.execute(db);
      throw err;
    } finally {
      await rm(listFile, { force: true });
    }
    if (source !== target) await sql`alter schema ${sql.id(source)} rename to ${sql.id(target)}`.execute(db);
  });
  for (const blob of manifest.blobs) {
    const bytes = await readFile(path.join(dir, BLOB_DIR, blob.key));
    await data.blobs?.put(blob.key, bytes, blob.contentType);
  }
  return manifest;
}

/** Drops everything in `schema` but what an extension owns (in `public` the extensions live beside the tables). */
async function emptySchema(db: Kysely<unknown>, schema: string): Promise<void> {
  if (schema !== 'public') {
    await sql`drop schema ${sql.id(schema)} cascade`.execute(db);
    return;
  }
  const { rows } = await sql<{ name: string; kind: string }>`
    select c.relname as name, c.relkind as kind from pg_class c
    where c.relnamespace = 'public'::regnamespace and c.relkind in ('r', 'p', 'v', 'm', 'S')
      and not exists (select 1 from pg_depend d where d.objid = c.oid and d.deptype = 'e')`.execute(db);
  for (const { name, kind } of rows) {
    const what =
      { r: 'table', p: 'table', v: 'view', m: 'materialized view', S: 'sequence' }[kind] ?? 'table';
    await sql`drop ${sql.raw(what)} if exists ${sql.id('public', name)} cascade`.execute(db);
  }
}
