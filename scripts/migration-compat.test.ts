import { sql, type Kysely, type Migration } from 'kysely';
import {
  describeViolations,
  incompatibleMigrations,
  previousRelease,
  schemaRemovals,
  serviceMigrations,
  type ServiceMigrations,
} from './migration-compat';

const ref = previousRelease();

/** mint-svc as it is, plus `added` as if this release brought it. */
async function mintWith(added: Record<string, Migration>): Promise<ServiceMigrations[]> {
  const mint = (await serviceMigrations()).find(({ service }) => service === 'mint-svc');
  if (!mint) throw new Error('mint-svc has no migrations file');
  return [{ ...mint, migrations: { ...mint.migrations, ...added } }];
}

describe('expand/contract: migrations since the previous release', () => {
  it('remove nothing the previous release still names', async () => {
    const violations = await incompatibleMigrations(ref, await serviceMigrations());
    expect(describeViolations(ref, violations)).toBe('');
  });

  it('refuses a new migration that drops a column the previous release reads (docs/architecture.md example)', async () => {
    const violations = await incompatibleMigrations(
      ref,
      await mintWith({
        '0099_drop_listed_by': {
          up: (db: Kysely<unknown>) =>
            db.schema.alterTable('mint_listings').dropColumn('listed_by').execute(),
        },
      }),
    );
    expect(violations).toEqual([
      expect.objectContaining({
        service: 'mint-svc',
        migration: '0099_drop_listed_by',
        removal: expect.objectContaining({
          kind: 'column',
          change: 'drop',
          name: 'listed_by',
          table: 'mint_listings',
        }),
      }),
    ]);
    expect(
      violations[0]?.namedIn.some((where) => where.startsWith('apps/mint-svc/src/data/listings.ts:')),
    ).toBe(true);
    expect(describeViolations(ref, violations)).toMatch(
      /mint-svc migration 0099_drop_listed_by would drop column "listed_by"/,
    );
  });

  it('refuses a new migration that renames a table the previous release writes', async () => {
    const violations = await incompatibleMigrations(
      ref,
      await mintWith({
        '0099_rename_listings': {
          up: async (db: Kysely<unknown>) => {
            await sql`ALTER TABLE mint_listings ADD COLUMN note text`.execute(db);
            await sql`ALTER TABLE mint_listings RENAME TO mint_parent_listings`.execute(db);
          },
        },
      }),
    );
    expect(violations.map(({ removal }) => [removal.kind, removal.change, removal.name])).toEqual([
      ['table', 'rename', 'mint_listings'],
    ]);
  });

  it('lets a migration add, and drop or rename what the previous release never named', async () => {
    const violations = await incompatibleMigrations(
      ref,
      await mintWith({
        '0099_expand': {
          up: async (db: Kysely<unknown>) => {
            await db.schema.alterTable('mint_names').addColumn('resolver_address', 'text').execute();
            await db.schema.createTable('mint_name_notes').addColumn('node', 'text').execute();
          },
        },
        '0100_contract': {
          up: async (db: Kysely<unknown>) => {
            await sql`ALTER TABLE mint_name_notes RENAME COLUMN node TO name_node`.execute(db);
            await db.schema.alterTable('mint_names').dropColumn('resolver_address').execute();
            await db.schema.dropTable('mint_name_notes').execute();
            await sql`DROP INDEX mint_names_by_update`.execute(db);
          },
        },
      }),
    );
    expect(violations).toEqual([]);
  });
});

describe('schemaRemovals', () => {
  it.each([
    [
      'DROP TABLE IF EXISTS a, "s"."b" CASCADE;',
      [
        ['table', 'drop', 'a'],
        ['table', 'drop', 'b'],
      ],
    ],
    [
      'alter table only s.t drop column if exists c, drop "d"',
      [
        ['column', 'drop', 'c'],
        ['column', 'drop', 'd'],
      ],
    ],
    ['ALTER TABLE t RENAME COLUMN a TO b', [['column', 'rename', 'a']]],
    ['ALTER TABLE t RENAME a TO b', [['column', 'rename', 'a']]],
    ['ALTER TABLE "t" RENAME TO u', [['table', 'rename', 't']]],
    ['ALTER TABLE t DROP CONSTRAINT t_pk, ADD COLUMN e text', []],
    ['ALTER TABLE t RENAME CONSTRAINT a TO b', []],
    ['DROP INDEX t_idx', []],
    ['CREATE TABLE t (a text)', []],
  ])('%s', (statement, expected) => {
    expect(schemaRemovals(statement).map(({ kind, change, name }) => [kind, change, name])).toEqual(expected);
  });
});
