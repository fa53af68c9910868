/**
 * Transactions writing the same new names at once, at the database: the later one waits and merges, on every
 * round (a unique namehash constraint beside full_name's once made one fail with a unique violation within the first rounds).
 */
import { namehash } from '@nrp/ens';
import { createTestDatabase, type TestDatabase } from '@nrp/testkit';
import { migrateDatabase, PGLITE_EXTENSIONS } from '../src/data/database';
import type { OffchainDatabase } from '../src/data/schema';
import { upsertSubnames, type SubnameWrite } from '../src/data/subnames';

let db: TestDatabase<OffchainDatabase>;
beforeAll(async () => {
  db = await createTestDatabase<OffchainDatabase>({ poolMax: 4, pgliteExtensions: PGLITE_EXTENSIONS });
  await migrateDatabase(db);
});
afterAll(() => db?.close());

it('four transactions inserting the same 50 new names all commit, every round, and no field is lost', async () => {
  for (let round = 0; round < 30; round += 1) {
    const names = Array.from({ length: 50 }, (_, i) => `r${round}n${i}.race.eth`);
    const writes = (fields: Partial<SubnameWrite>): SubnameWrite[] =>
      names.map((fullName) => ({
        fullName,
        parentName: 'race.eth',
        label: fullName.split('.')[0] ?? '',
        namehash: namehash(fullName),
        ...fields,
      }));
    const owner = '0x' + '22'.repeat(20);
    // Four at once, two of each: the later ones wait on the first and merge into its rows.
    const outcomes = await Promise.allSettled(
      [
        writes({ texts: { from: 'a' } }),
        writes({ owner }),
        writes({ texts: { from: 'a' } }),
        writes({ owner }),
      ].map((batch) => db.db.transaction().execute((trx) => upsertSubnames(trx, batch))),
    );
    expect(outcomes.filter((o) => o.status === 'rejected').map((o) => String(o.reason))).toEqual([]);
    const stored = await db.db
      .selectFrom('offchain_subnames')
      .select(['owner', 'texts'])
      .where('parent_name', '=', 'race.eth')
      .where('full_name', 'in', names)
      .execute();
    expect(stored).toHaveLength(50);
    expect(stored.every((row) => row.owner === owner && row.texts.from === 'a')).toBe(true);
  }
});
