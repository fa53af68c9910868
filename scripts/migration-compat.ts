/**
 * The expand/contract rule for migrations (docs/architecture.md, "Migrations"): a migration added since the previous
 * release (`releases/previous`) may not drop or rename a table or column that the previous release's code still
 * names, because during a rolling deploy that release keeps serving on the migrated schema.
 * `scripts/migration-compat.test.ts` runs the check in `npm test`.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  type Migration,
} from 'kysely';

export const REPO_ROOT = path.resolve(__dirname, '..');
const PREVIOUS_RELEASE_FILE = 'releases/previous';

/** The commit of the previous release, as `releases/previous` records it (`npm run release:mark` moves it). */
export function previousRelease(root = REPO_ROOT): string {
  const ref = readFileSync(path.join(root, PREVIOUS_RELEASE_FILE), 'utf8').trim();
  if (!/^[0-9a-f]{40}$/.test(ref))
    throw new Error(`${PREVIOUS_RELEASE_FILE} must hold one commit sha, not "${ref}"`);
  if (git(root, ['cat-file', '-e', `${ref}^{commit}`], true) === undefined) {
    throw new Error(
      `${PREVIOUS_RELEASE_FILE} names ${ref}, which this clone does not have (a shallow clone? git fetch --unshallow)`,
    );
  }
  return ref;
}

function git(root: string, args: string[], allowFailure = false): string | undefined {
  try {
    return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  } catch (err) {
    // `git grep` exits 1 when it finds nothing.
    if (allowFailure) return undefined;
    throw err;
  }
}

/** The SQL a migration's `up` sends, compiled for PostgreSQL without a database (queries answer no rows). */
export async function migrationStatements(migration: Migration): Promise<string[]> {
  const statements: string[] = [];
  const db = new Kysely<unknown>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (kysely) => new PostgresIntrospector(kysely),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (event) => {
      statements.push(event.query.sql);
    },
  });
  try {
    await migration.up(db);
  } finally {
    await db.destroy();
  }
  return statements;
}

/** A table or column a statement takes away from code that still uses its old name. */
export interface Removal {
  kind: 'table' | 'column';
  change: 'drop' | 'rename';
  name: string;
  /** A column's table. */
  table?: string;
  statement: string;
}

const IDENTIFIER = String.raw`(?:"[^"]+"|[a-z_][a-z0-9_$]*)`;
const QUALIFIED = String.raw`(?:${IDENTIFIER}\.)?(${IDENTIFIER})`;
const unquote = (name: string): string => name.replace(/^"|"$/g, '');

/** The tables and columns a statement drops or renames (constraints, indexes and types are not code's names). */
export function schemaRemovals(statement: string): Removal[] {
  const text = statement.replace(/\s+/g, ' ').trim().replace(/;$/, '').toLowerCase();
  const removals: Removal[] = [];
  const add = (kind: Removal['kind'], change: Removal['change'], name: string, table?: string): void => {
    removals.push({
      kind,
      change,
      name: unquote(name),
      ...(table ? { table: unquote(table) } : {}),
      statement: text,
    });
  };
  const dropped = /^drop (?:table|view|materialized view) (?:if exists )?(.+?)(?: cascade| restrict)?$/.exec(
    text,
  );
  if (dropped) {
    for (const name of (dropped[1] ?? '').split(','))
      add('table', 'drop', name.trim().split('.').pop() ?? '');
    return removals;
  }
  const alter = new RegExp(
    String.raw`^alter (?:table|view|materialized view) (?:if exists )?(?:only )?${QUALIFIED} (.*)$`,
  ).exec(text);
  if (!alter) return removals;
  // The groups always match when the expression does.
  const [, table = '', actions = ''] = alter;
  if (/^rename to /.test(actions)) {
    add('table', 'rename', table);
    return removals;
  }
  const renamedColumn = new RegExp(String.raw`^rename (?:column )?(?!constraint )(${IDENTIFIER}) to `).exec(
    actions,
  );
  if (renamedColumn?.[1]) add('column', 'rename', renamedColumn[1], table);
  const dropColumn = new RegExp(
    String.raw`(?:^|, )drop (?:column )?(?!constraint )(?:if exists )?(${IDENTIFIER})`,
    'g',
  );
  for (const [, column = ''] of actions.matchAll(dropColumn)) add('column', 'drop', column, table);
  return removals;
}

/**
 * Where the code of `ref` names `name` as a whole word in `paths`, migrations and tests (and the test kit) aside:
 * `file:line` each.
 */
export function namedAt(root: string, ref: string, name: string, paths: string[]): string[] {
  const found = git(
    root,
    [
      'grep',
      '-n',
      '-w',
      '-i',
      '-F',
      '-e',
      name,
      ref,
      '--',
      ...paths,
      ':(exclude,glob)**/migrations.ts',
      ':(exclude,glob)**/test/**',
      ':(exclude,glob)**/*.test.ts',
      ':(exclude)libs/testkit',
    ],
    true,
  );
  return (found ?? '')
    .split('\n')
    .filter(Boolean)
    .map((line) =>
      line
        .slice(ref.length + 1)
        .split(':')
        .slice(0, 2)
        .join(':'),
    );
}

/** A migration added since the previous release that removes what that release's code names. */
export interface Violation {
  service: string;
  migration: string;
  removal: Removal;
  namedIn: string[];
}

export interface ServiceMigrations {
  service: string;
  /** The file, relative to the repository, whose text at the previous release lists the migrations it had. */
  file: string;
  migrations: Record<string, Migration>;
}

/** Every service with a database: its `src/data/migrations.ts`, loaded from this checkout. */
export async function serviceMigrations(root = REPO_ROOT): Promise<ServiceMigrations[]> {
  const services = readdirSync(path.join(root, 'apps')).filter((service) =>
    existsSync(path.join(root, 'apps', service, 'src/data/migrations.ts')),
  );
  return Promise.all(
    services.map(async (service) => {
      const file = `apps/${service}/src/data/migrations.ts`;
      const loaded = (await import(path.join(root, file))) as { migrations: Record<string, Migration> };
      return { service, file, migrations: loaded.migrations };
    }),
  );
}

/**
 * The migrations each service added since `ref` (a name its migrations file at `ref` does not mention) that drop or
 * rename a table or column the code of `ref` names, in that service or in a library. The look-up is by word, so it
 * errs on the side of refusing: a column named like a word the code uses elsewhere waits until no code names it.
 */
export async function incompatibleMigrations(
  ref: string,
  services: ServiceMigrations[],
  root = REPO_ROOT,
): Promise<Violation[]> {
  const violations: Violation[] = [];
  for (const { service, file, migrations } of services) {
    const before = git(root, ['show', `${ref}:${file}`], true) ?? '';
    for (const [migration, definition] of Object.entries(migrations)) {
      if (before.includes(`'${migration}'`)) continue;
      for (const statement of await migrationStatements(definition)) {
        for (const removal of schemaRemovals(statement)) {
          const paths = [`apps/${service}`, 'libs'];
          // A column of a table the previous release never named (one this release added) is this release's own.
          if (removal.table && namedAt(root, ref, removal.table, paths).length === 0) continue;
          const namedIn = namedAt(root, ref, removal.name, paths);
          if (namedIn.length > 0) violations.push({ service, migration, removal, namedIn });
        }
      }
    }
  }
  return violations;
}

/** One paragraph per violation, for a failing test's message. */
export function describeViolations(ref: string, violations: Violation[]): string {
  return violations
    .map(
      ({ service, migration, removal, namedIn }) =>
        `${service} migration ${migration} would ${removal.change} ${removal.kind} "${removal.name}" ` +
        `(${removal.statement}), which the previous release ${ref.slice(0, 12)} still names in ` +
        `${namedIn.slice(0, 5).join(', ')}${namedIn.length > 5 ? ` and ${namedIn.length - 5} more` : ''}: ` +
        'add the new shape in this release and remove the old one in the release after the code stops using it',
    )
    .join('\n');
}
