import { sql, type Kysely } from 'kysely';
import type { OffchainDatabase } from './schema';
import { recordBytes, withinBytes } from './record-bytes';
import type { SubnameRow } from './subnames';

/** A record of an export page without its texts, which come as entries of their own. */
export type ExportRow = Omit<SubnameRow, 'texts'>;

/** Text records gathered in one piece of an export line. */
const TEXTS_PER_PIECE = 4;

/**
 * Up to TEXTS_PER_PIECE text records of one record as JSON members (`"key":"value"`, comma-separated, escaped by
 * the database as JSON.stringify escapes), in the stored order of the record's texts.
 */
export interface ExportTexts {
  label: string;
  members: string;
}

export interface ExportPage {
  rows: ExportRow[];
  /** The texts of `rows`, in label order then stored order. */
  texts: ExportTexts[];
  /** What the page's records are estimated to take as JSON. */
  bytes: number;
  more: boolean;
}

/**
 * One page of a parent's subnames in label order, after `afterLabel` (keyset paging on the unique
 * (parent_name, label) index: every page costs the same however deep the export is): at most `limit` records, and
 * fewer when their JSON would pass `maxBytes` (at least one). In one snapshot: the sizes first, in the database; then
 * the records kept without their texts, and their texts as JSON in pieces of a few text records: no
 * value the service reads or makes is larger than a few text records, however big the record (a record's texts
 * parsed and stringified whole made the garbage that grew the export's memory).
 */
export async function readExportPage(
  db: Kysely<OffchainDatabase>,
  parentName: string,
  afterLabel: string | undefined,
  limits: { limit: number; maxBytes: number },
): Promise<ExportPage | undefined> {
  return db
    .transaction()
    .setIsolationLevel('repeatable read')
    .execute(async (trx) => {
      const afterLast = trx
        .selectFrom('offchain_subnames')
        .where('parent_name', '=', parentName)
        .$if(afterLabel !== undefined, (q) => q.where('label', '>', afterLabel ?? ''));
      const sizes = await afterLast
        .select(['label', recordBytes.as('bytes')])
        .orderBy('label')
        .limit(limits.limit)
        .execute();
      const kept = withinBytes(sizes, limits.maxBytes);
      const last = kept.at(-1);
      if (!last) return undefined;
      const inPage = afterLast.where('label', '<=', last.label);
      const rows = await inPage
        .select([
          'id',
          'full_name',
          'parent_name',
          'label',
          'namehash',
          'owner',
          'addresses',
          'metadata',
          'contenthash',
          'ttl',
          'created_at',
          'updated_at',
        ])
        .orderBy('label')
        .execute();
      const { rows: texts } = await sql<ExportTexts>`
        SELECT s.label, string_agg(to_json(t.key)::text || ':' || to_json(t.value)::text, ',' ORDER BY t.n)
          AS members
        FROM (${inPage.select(['label', 'texts'])}) s
        CROSS JOIN LATERAL jsonb_each_text(s.texts) WITH ORDINALITY AS t(key, value, n)
        GROUP BY s.label, (t.n - 1) / ${sql.lit(TEXTS_PER_PIECE)}
        ORDER BY s.label, (t.n - 1) / ${sql.lit(TEXTS_PER_PIECE)}`.execute(trx);
      return {
        rows,
        texts,
        bytes: kept.reduce((sum, row) => sum + Number(row.bytes), 0),
        more: kept.length < sizes.length || sizes.length === limits.limit,
      };
    });
}
