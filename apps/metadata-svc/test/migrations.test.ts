import { migrate } from '@nrp/db';
import { createTestDatabase } from '@nrp/testkit';
import { migrateDatabase } from '../src/data/database';
import { MIGRATION_TABLE, migrations } from '../src/data/migrations';
import type { Image, MetadataDb } from '../src/data/schema';
import { contentEtag } from '../src/images/http';

it('0005 quotes the ETags of rows stored before it, as contentEtag makes them, and leaves quoted ones alone', async () => {
  const db = await createTestDatabase<MetadataDb>();
  try {
    const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0005'));
    await migrate(db, { table: MIGRATION_TABLE, migrations: before });
    const bytes = Buffer.from('an image');
    const row = (id: string, etag: string): Image => ({
      id,
      network: 'sepolia',
      name: `${id}.eth`,
      node: `0x${id}`,
      kind: 'avatar',
      uploader: '0xabc',
      status: 'confirmed',
      blob_key: `img/sepolia/${id}`,
      content_type: 'image/png',
      size: bytes.length,
      etag,
      uploaded_at: new Date(0),
      pending_until: null,
    });
    const quoted = contentEtag(bytes);
    await db.db
      .insertInto('images')
      .values([row('old', quoted.slice(1, -1)), row('new', quoted)])
      .execute();
    await migrateDatabase(db);
    const rows = await db.db.selectFrom('images').select(['id', 'etag']).orderBy('id').execute();
    expect(rows).toEqual([
      { id: 'new', etag: quoted },
      { id: 'old', etag: quoted },
    ]);
  } finally {
    await db.close();
  }
});
