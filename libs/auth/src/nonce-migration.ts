import { sql, type Kysely, type Migration } from 'kysely';

export const DEFAULT_NONCE_TABLE = 'auth_nonces';

const TABLE_NAME = /^[a-z_][a-z0-9_]{0,50}$/;

export function assertTableName(table: string): string {
  if (!TABLE_NAME.test(table)) {
    throw new RangeError(`invalid nonce table name "${table}": use lower-case letters, digits and _`);
  }
  return table;
}

/**
 * The migration creating the nonce table. A service that issues nonces adds it to its own migrations,
 * e.g. `{ '0002_auth_nonces': nonceMigration() }`.
 */
export function nonceMigration(table: string = DEFAULT_NONCE_TABLE): Migration {
  assertTableName(table);
  return {
    async up(db: Kysely<unknown>) {
      await db.schema
        .createTable(table)
        .addColumn('nonce', 'text', (col) => col.primaryKey())
        .addColumn('address', 'text', (col) => col.notNull())
        .addColumn('scope', 'text', (col) => col.notNull())
        .addColumn('expires_at', 'timestamptz', (col) => col.notNull())
        .addColumn('created_at', 'timestamptz', (col) => col.notNull().defaultTo(sql`now()`))
        .addColumn('used_at', 'timestamptz')
        .execute();
      await db.schema.createIndex(`${table}_expires_at_idx`).on(table).column('expires_at').execute();
    },
    async down(db: Kysely<unknown>) {
      await db.schema.dropTable(table).execute();
    },
  };
}
