import { sql, type Kysely } from 'kysely';
import type { OffchainSubname } from '@nrp/api';
import { recordBytes, withinBytes } from './record-bytes';
import type { OffchainDatabase } from './schema';
import { toSubname } from './subnames';

/** A position in label order (then parent name): the last record of a page. */
export interface SubnamePosition {
  label: string;
  parentName: string;
}

export interface SubnameFilter {
  /** Empty: every parent (the filter then has an owner). */
  parentNames: string[];
  labelSearch?: string;
  owner?: string;
  metadata?: Record<string, string>;
  page: number;
  size: number;
  /** Keyset paging: the matches after this position (`page` is then ignored). */
  after?: SubnamePosition;
  /** The page ends early rather than hold records whose JSON passes this many bytes (at least one record). */
  maxBytes: number;
}

/** `%`, `_` and `\` are literal in a label search. */
export function likePattern(substring: string): string {
  return `%${substring.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/**
 * One page of matches ordered by label (then parent), bounded in items and in bytes, the total count of matches,
 * and the position to continue after when more follow. The page is picked with the sizes of its records (read in
 * the database), then its rows are read by primary key.
 */
export async function searchSubnames(
  db: Kysely<OffchainDatabase>,
  filter: SubnameFilter,
): Promise<{ items: OffchainSubname[]; totalItems: number; next?: SubnamePosition }> {
  // No parent: an owner's subnames across parents, from the (owner, label, parent_name) index.
  let query =
    filter.parentNames.length > 0
      ? db.selectFrom('offchain_subnames').where('parent_name', 'in', filter.parentNames)
      : db.selectFrom('offchain_subnames');
  if (filter.labelSearch !== undefined)
    query = query.where(sql<boolean>`label ILIKE ${likePattern(filter.labelSearch)}`);
  if (filter.owner !== undefined) query = query.where('owner', '=', filter.owner);
  if (filter.metadata !== undefined && Object.keys(filter.metadata).length > 0) {
    query = query.where(sql<boolean>`metadata @> ${JSON.stringify(filter.metadata)}::jsonb`);
  }
  const { after } = filter;
  const candidates = (
    after ? query.where(sql<boolean>`(label, parent_name) > (${after.label}, ${after.parentName})`) : query
  )
    .select(['id', 'label', 'parent_name', recordBytes.as('bytes')])
    .orderBy('label')
    .orderBy('parent_name')
    .limit(filter.size + 1)
    .offset(after ? 0 : (filter.page - 1) * filter.size);
  const [found, count] = await Promise.all([
    candidates.execute(),
    query.select(sql<string>`count(*)`.as('n')).executeTakeFirstOrThrow(),
  ]);
  const kept = withinBytes(found.slice(0, filter.size), filter.maxBytes);
  const rows =
    kept.length === 0
      ? []
      : await db
          .selectFrom('offchain_subnames')
          .selectAll()
          .where(
            'id',
            'in',
            kept.map((row) => row.id),
          )
          .orderBy('label')
          .orderBy('parent_name')
          .execute();
  const last = kept.at(-1);
  const next =
    last && kept.length < found.length ? { label: last.label, parentName: last.parent_name } : undefined;
  return { items: rows.map(toSubname), totalItems: Number(count.n), next };
}
