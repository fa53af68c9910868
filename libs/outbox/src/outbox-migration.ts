import { sql, type Kysely, type Migration } from 'kysely';
import { assertSchemaName } from '@nrp/db';

/** The row of an outbox table: one event not yet relayed to offchain-svc. */
export interface OutboxRow {
  id: string;
  type: string;
  parent_name: string;
  occurred_at: Date;
  data: Record<string, unknown>;
  created_at: Date;
}

/** Creates a service's outbox table `table` (a lower-case identifier such as `metadata_event_outbox`). */
export function outboxMigration(table: string): Migration {
  const name = assertSchemaName(table);
  return {
    async up(db: Kysely<unknown>) {
      await sql`
        CREATE TABLE ${sql.table(name)} (
          id uuid PRIMARY KEY,
          type text NOT NULL,
          parent_name text NOT NULL,
          occurred_at timestamptz NOT NULL,
          data jsonb NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
        )`.execute(db);
      await sql`CREATE INDEX ${sql.id(`${name}_created_idx`)} ON ${sql.table(name)} (created_at)`.execute(db);
    },
  };
}
