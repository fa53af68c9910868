import { execFileSync } from 'node:child_process';
import { cp, mkdir, mkdtemp, readdir, readFile, readlink, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

const REPO_ROOT = path.resolve(__dirname, '../../..');
/** What `service` needs to run from its TypeScript sources besides node_modules. */
const sources = (service: string) => [
  `apps/${service}`,
  'libs',
  'package.json',
  'package-lock.json',
  'tsconfig.base.json',
  'tsconfig.json',
];

/** One service's code of one release in a directory of its own, runnable beside this checkout. */
export interface ReleaseCode {
  /** The commit, or `working tree` for this checkout's code. */
  ref: string;
  dir: string;
  /** Its `apps/<service>/src/main.ts`, to run with `startServiceProcess(entry, env, { cwd: dir })`. */
  entry: string;
  remove(): Promise<void>;
}

/** The commit of the previous release, as `releases/previous` records it (`npm run release:mark`). */
export async function previousReleaseRef(): Promise<string> {
  return (await readFile(path.join(REPO_ROOT, 'releases/previous'), 'utf8')).trim();
}

/**
 * `service`'s code at commit `ref` (`git archive`), with this checkout's node_modules but its own workspace packages
 * (`@nrp/*` resolve to its libs). A release whose package-lock.json differs runs on this checkout's dependencies
 * too: the caller is told so on stderr, and a release that cannot run on them fails to start with its error.
 */
export async function releaseCode(ref: string, service: string): Promise<ReleaseCode> {
  const dir = await mkdtemp(path.join(tmpdir(), 'nrp-release-'));
  const archive = execFileSync('git', ['archive', '--format=tar', ref, ...sources(service)], {
    cwd: REPO_ROOT,
    maxBuffer: 1 << 30,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  const [theirs, ours] = await Promise.all(
    [dir, REPO_ROOT].map((root) => readFile(path.join(root, 'package-lock.json'), 'utf8')),
  );
  if (theirs !== ours) {
    process.stderr.write(
      `release ${ref} has other dependencies (package-lock.json): it runs on this checkout's node_modules\n`,
    );
  }
  return withNodeModules(ref, dir, service);
}

/**
 * This checkout's code with `migrations` (each `'<name>': { up: async (db) => … }`, Kysely's `sql` in scope) added to
 * `service`'s migrations: a release whose migrations the caller chose, e.g. one that expands the schema, or one that
 * fails midway.
 */
export async function workingTreeWithMigrations(service: string, migrations: string[]): Promise<ReleaseCode> {
  const dir = await mkdtemp(path.join(tmpdir(), 'nrp-release-'));
  for (const source of sources(service)) {
    await cp(path.join(REPO_ROOT, source), path.join(dir, source), {
      recursive: true,
      filter: (from) => !/(^|\/)(node_modules|dist|\.data)$/.test(from),
    });
  }
  const file = path.join(dir, 'apps', service, 'src/data/migrations.ts');
  const opening = 'export const migrations: Record<string, Migration> = {';
  const text = await readFile(file, 'utf8');
  if (!text.includes(opening)) throw new Error(`${file} does not open its migrations with "${opening}"`);
  const added = migrations.map((migration) => `\n  ${migration},`).join('');
  await writeFile(file, text.replace(opening, `${opening}${added}`));
  return withNodeModules('working tree', dir, service);
}

async function withNodeModules(ref: string, dir: string, service: string): Promise<ReleaseCode> {
  const ours = path.join(REPO_ROOT, 'node_modules');
  const theirs = path.join(dir, 'node_modules');
  await mkdir(path.join(theirs, '@nrp'), { recursive: true });
  for (const entry of await readdir(ours)) {
    if (entry !== '@nrp') await symlink(path.join(ours, entry), path.join(theirs, entry));
  }
  // Relative links (`../../libs/db`): in the copy they lead to the copy's own libraries.
  for (const entry of await readdir(path.join(ours, '@nrp'))) {
    await symlink(await readlink(path.join(ours, '@nrp', entry)), path.join(theirs, '@nrp', entry));
  }
  return {
    ref,
    dir,
    entry: path.join(dir, 'apps', service, 'src/main.ts'),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
