/**
 * Two deployments of offchain-svc in one PostgreSQL database, each in its own DATABASE_SCHEMA (staging beside
 * production, or two benches): both migrate, and dropping one schema leaves the other's search working. The
 * extensions its indexes need (pg_trgm, btree_gin) once landed in the first schema that migrated, where the second
 * could not see them (its migration failed on `gin_trgm_ops`) and where dropping that schema took them away.
 */
import { sql } from 'kysely';
import { createDatabase } from '@nrp/db';
import { createTestDatabase, NO_SHARED_POSTGRES, requireParts, sharedPostgresUrl } from '@nrp/testkit';
import { migrateDatabase } from '../src/data/database';
import type { OffchainDatabase } from '../src/data/schema';
import { upsertSubnames } from '../src/data/subnames';

const serverUrl = sharedPostgresUrl();
const runs = requireParts(
  'REQUIRE_REPLICA_TESTS',
  'offchain-svc schemas in one database',
  serverUrl ? [] : [NO_SHARED_POSTGRES],
);

(runs ? describe : describe.skip)('offchain-svc in two schemas of one database', () => {
  it('both migrate, and each keeps searching when the other schema is dropped', async () => {
    const database = await createTestDatabase<OffchainDatabase>({ url: serverUrl });
    const open = (schema: string) =>
      createDatabase<OffchainDatabase>({ url: database.url, schema, poolMax: 2 });
    const first = open('first_deployment');
    const second = open('second_deployment');
    try {
      await migrateDatabase(first);
      await migrateDatabase(second);
      await first.db
        .transaction()
        .execute((trx) =>
          upsertSubnames(trx, [
            { fullName: 'alice.one.eth', parentName: 'one.eth', label: 'alice', namehash: '0x01' },
          ]),
        );
      await second.db
        .transaction()
        .execute((trx) =>
          upsertSubnames(trx, [
            { fullName: 'alina.two.eth', parentName: 'two.eth', label: 'alina', namehash: '0x02' },
          ]),
        );
      await first.close();
      await sql`DROP SCHEMA first_deployment CASCADE`.execute(second.db);
      // The substring search's trigram operator, through the GIN index's operator class.
      const found = await sql<{ full_name: string }>`
        SELECT full_name FROM offchain_subnames WHERE label ILIKE ${'%lin%'}`.execute(second.db);
      expect(found.rows).toEqual([{ full_name: 'alina.two.eth' }]);
      const ops = await sql<{ nspname: string }>`
        SELECT n.nspname FROM pg_opclass c JOIN pg_namespace n ON n.oid = c.opcnamespace
        WHERE c.opcname = 'gin_trgm_ops'`.execute(second.db);
      expect(ops.rows).toEqual([{ nspname: 'public' }]);
    } finally {
      await first.close();
      await second.close();
      await database.close();
    }
  });
});
