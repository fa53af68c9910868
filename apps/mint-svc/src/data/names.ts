import { sql, type Kysely } from 'kysely';
import { statementGroups } from '@nrp/db';
import type { MintDatabase } from './schema';

/** A name as the index holds it. */
export interface IndexedName {
  node: string;
  name: string;
  parentName: string;
  label: string;
  owner: string;
  wrapped: boolean;
  /** Unix seconds, or null (unwrapped). */
  expiry: number | null;
  mintedAt: Date;
  txHash: string;
}

/** The names of `nodes` already indexed on `network`. */
export async function findNames(
  db: Kysely<MintDatabase>,
  network: string,
  nodes: string[],
): Promise<Map<string, IndexedName>> {
  const found = new Map<string, IndexedName>();
  for (const group of statementGroups(nodes, 1)) {
    const rows = await db
      .selectFrom('mint_names')
      .select(['node', 'name', 'parent_name', 'label', 'owner', 'wrapped', 'minted_at', 'tx_hash'])
      .select(sql<string | null>`expiry::text`.as('expiry'))
      .where('network', '=', network)
      .where('node', 'in', group)
      .execute();
    for (const r of rows) found.set(r.node, toIndexedName(r));
  }
  return found;
}

function toIndexedName(r: {
  node: string;
  name: string;
  parent_name: string;
  label: string;
  owner: string;
  wrapped: boolean;
  expiry: string | null;
  minted_at: Date;
  tx_hash: string;
}): IndexedName {
  return {
    node: r.node,
    name: r.name,
    parentName: r.parent_name,
    label: r.label,
    owner: r.owner,
    wrapped: r.wrapped,
    expiry: r.expiry === null ? null : Number(r.expiry),
    mintedAt: new Date(r.minted_at),
    txHash: r.tx_hash,
  };
}

/** The listed parent names of `parentNodes` on `network` (a listing names its parent's node). */
export async function listedParentNames(
  db: Kysely<MintDatabase>,
  network: string,
  parentNodes: string[],
): Promise<Map<string, string>> {
  if (parentNodes.length === 0) return new Map();
  const rows = await db
    .selectFrom('mint_listings')
    .select(['parent_node', 'parent_name'])
    .where('network', '=', network)
    .where('parent_node', 'in', parentNodes)
    .execute();
  return new Map(rows.map((r) => [r.parent_node, r.parent_name]));
}

export interface NameFilter {
  network: string;
  owner?: string;
  parentName?: string;
  labelSearch?: string;
  /** Names after this one (code point order). */
  after?: string;
  limit: number;
}

function likePattern(text: string): string {
  return `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}

/** One page of names in code point order. */
export async function listNames(db: Kysely<MintDatabase>, filter: NameFilter): Promise<IndexedName[]> {
  let query = db
    .selectFrom('mint_names')
    .select(['node', 'name', 'parent_name', 'label', 'owner', 'wrapped', 'minted_at', 'tx_hash'])
    .select(sql<string | null>`expiry::text`.as('expiry'))
    .where('network', '=', filter.network);
  if (filter.owner !== undefined) query = query.where('owner', '=', filter.owner);
  if (filter.parentName !== undefined) query = query.where('parent_name', '=', filter.parentName);
  if (filter.labelSearch !== undefined)
    query = query.where(sql<boolean>`label ILIKE ${likePattern(filter.labelSearch)}`);
  if (filter.after !== undefined) query = query.where(sql<boolean>`name COLLATE "C" > ${filter.after}`);
  const rows = await query
    .orderBy(sql`name COLLATE "C"`)
    .limit(filter.limit)
    .execute();
  return rows.map(toIndexedName);
}
