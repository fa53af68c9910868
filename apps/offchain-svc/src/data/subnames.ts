import { sql, type Kysely, type Selectable } from 'kysely';
import type { OffchainSubname } from '@nrp/api';
import type { OffchainDatabase, SubnamesTable } from './schema';

export type SubnameRow = Selectable<SubnamesTable>;

/** Fields of a create-or-update: `undefined` keeps the stored value, anything else replaces it. */
export interface SubnameWrite {
  fullName: string;
  parentName: string;
  label: string;
  namehash: string;
  owner?: string | null;
  texts?: Record<string, string>;
  addresses?: Record<string, string>;
  metadata?: Record<string, string>;
  contenthash?: string | null;
  ttl?: number | null;
}

function iso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

export function toSubname(row: SubnameRow): OffchainSubname {
  return {
    id: row.id,
    fullName: row.full_name,
    parentName: row.parent_name,
    label: row.label,
    texts: row.texts,
    addresses: row.addresses,
    metadata: row.metadata,
    contenthash: row.contenthash,
    namehash: row.namehash,
    owner: row.owner,
    ttl: row.ttl,
    createdAt: iso(row.created_at),
    updatedAt: iso(row.updated_at),
  };
}

/**
 * Creates or updates a subname in ONE statement (INSERT … ON CONFLICT (full_name) DO UPDATE): concurrent writers
 * of the same name serialise on its row, never create a second row, and each replaces only the fields it sent,
 * so no update is lost. `created` tells an insert from an update. `db` may be a transaction.
 */
export async function upsertSubname(
  db: Kysely<OffchainDatabase>,
  write: SubnameWrite,
): Promise<{ subname: OffchainSubname; created: boolean }> {
  const json = (value: Record<string, string> | undefined) => JSON.stringify(value ?? {});
  const keep = (column: string, present: boolean) =>
    present ? sql`${sql.ref(`excluded.${column}`)}` : sql`${sql.ref(`s.${column}`)}`;
  const result = await sql<SubnameRow & { inserted: boolean }>`
    INSERT INTO offchain_subnames AS s
      (full_name, parent_name, label, namehash, owner, texts, addresses, metadata, contenthash, ttl)
    VALUES (
      ${write.fullName}, ${write.parentName}, ${write.label}, ${write.namehash}, ${write.owner ?? null},
      ${json(write.texts)}::jsonb, ${json(write.addresses)}::jsonb, ${json(write.metadata)}::jsonb,
      ${write.contenthash ?? null}, ${write.ttl ?? null}
    )
    ON CONFLICT (full_name) DO UPDATE SET
      owner = ${keep('owner', write.owner !== undefined)},
      texts = ${keep('texts', write.texts !== undefined)},
      addresses = ${keep('addresses', write.addresses !== undefined)},
      metadata = ${keep('metadata', write.metadata !== undefined)},
      contenthash = ${keep('contenthash', write.contenthash !== undefined)},
      ttl = ${keep('ttl', write.ttl !== undefined)},
      updated_at = now()
    RETURNING s.*, (s.xmax = 0) AS inserted`.execute(db);
  const row = result.rows[0];
  if (!row) throw new Error('upsert returned no row');
  const { inserted, ...subname } = row;
  return { subname: toSubname(subname), created: inserted };
}

/** A subname's writable fields, as a batch computes them. */
type SubnameFields = Pick<SubnameRow, 'owner' | 'texts' | 'addresses' | 'metadata' | 'contenthash' | 'ttl'>;

/** `write` over `fields` (absent fields keep their value; a new name starts empty). */
function applyTo(fields: SubnameFields | undefined, write: SubnameWrite): SubnameFields {
  return {
    owner: write.owner !== undefined ? write.owner : (fields?.owner ?? null),
    texts: write.texts ?? fields?.texts ?? {},
    addresses: write.addresses ?? fields?.addresses ?? {},
    metadata: write.metadata ?? fields?.metadata ?? {},
    contenthash: write.contenthash !== undefined ? write.contenthash : (fields?.contenthash ?? null),
    ttl: write.ttl !== undefined ? write.ttl : (fields?.ttl ?? null),
  };
}

const recordset = (rows: object[]) => sql`jsonb_to_recordset(${JSON.stringify(rows)}::jsonb) AS x(
  full_name text, parent_name text, label text, namehash text, owner text, texts jsonb, addresses jsonb,
  metadata jsonb, contenthash text, ttl integer)`;

/**
 * Applies many create-or-updates, in order, inside the caller's transaction — with a few set-based statements
 * instead of one per write: the existing rows are locked (`FOR UPDATE`, in name order), the writes are merged
 * over them in memory (a later write of a name sees the earlier ones), then one UPDATE writes the existing rows
 * and one INSERT … ON CONFLICT DO NOTHING the new ones. A new name that a concurrent request inserted meanwhile is
 * written with `upsertSubname`, which keeps that request's fields. Each write's result is its name's stored record;
 * `created` is true for the first write of a name that did not exist.
 */
export async function upsertSubnames(
  db: Kysely<OffchainDatabase>,
  writes: SubnameWrite[],
): Promise<Array<{ subname: OffchainSubname; created: boolean }>> {
  const names = [...new Set(writes.map((w) => w.fullName))].sort();
  const existing = new Map(
    (
      await db
        .selectFrom('offchain_subnames')
        .selectAll()
        .where('full_name', 'in', names)
        .orderBy('full_name')
        .forUpdate()
        .execute()
    ).map((row) => [row.full_name, row]),
  );
  const merged = new Map<string, { write: SubnameWrite; fields: SubnameFields }>();
  const results = writes.map((write) => {
    const before = merged.get(write.fullName)?.fields ?? existing.get(write.fullName);
    merged.set(write.fullName, { write, fields: applyTo(before, write) });
    return { write, created: before === undefined };
  });
  const rowsWhere = (isExisting: boolean) =>
    [...merged.values()]
      .filter(({ write }) => existing.has(write.fullName) === isExisting)
      .map(({ write, fields }) => ({
        full_name: write.fullName,
        parent_name: write.parentName,
        label: write.label,
        namehash: write.namehash,
        ...fields,
      }));
  const stored = new Map<string, OffchainSubname>();
  if (existing.size > 0) {
    const updated = await sql<SubnameRow>`
      UPDATE offchain_subnames AS s SET
        owner = x.owner, texts = x.texts, addresses = x.addresses, metadata = x.metadata,
        contenthash = x.contenthash, ttl = x.ttl, updated_at = now()
      FROM ${recordset(rowsWhere(true))}
      WHERE s.full_name = x.full_name COLLATE "C"
      RETURNING s.*`.execute(db);
    for (const row of updated.rows) stored.set(row.full_name, toSubname(row));
  }
  if (existing.size < merged.size) {
    const inserted = await sql<SubnameRow>`
      INSERT INTO offchain_subnames
        (full_name, parent_name, label, namehash, owner, texts, addresses, metadata, contenthash, ttl)
      SELECT full_name, parent_name, label, namehash, owner, texts, addresses, metadata, contenthash, ttl
      FROM ${recordset(rowsWhere(false))}
      ON CONFLICT (full_name) DO NOTHING
      RETURNING *`.execute(db);
    for (const row of inserted.rows) stored.set(row.full_name, toSubname(row));
  }
  // Names another request inserted since the lock: merge into that row, one write at a time, in order.
  const raced = new Set(names.filter((name) => !stored.has(name)));
  for (const result of results) {
    if (!raced.has(result.write.fullName)) continue;
    const saved = await upsertSubname(db, result.write);
    stored.set(result.write.fullName, saved.subname);
    result.created = false;
  }
  return results.map(({ write, created }) => {
    const subname = stored.get(write.fullName);
    if (!subname) throw new Error(`no stored record for ${write.fullName}`);
    return { subname, created };
  });
}

export async function findSubnameByName(
  db: Kysely<OffchainDatabase>,
  fullName: string,
): Promise<OffchainSubname | undefined> {
  const row = await db
    .selectFrom('offchain_subnames')
    .selectAll()
    .where('full_name', '=', fullName)
    .executeTakeFirst();
  return row && toSubname(row);
}

export async function findSubnameByNamehash(
  db: Kysely<OffchainDatabase>,
  namehash: string,
): Promise<OffchainSubname | undefined> {
  const row = await db
    .selectFrom('offchain_subnames')
    .selectAll()
    .where('namehash', '=', namehash.toLowerCase())
    .executeTakeFirst();
  return row && toSubname(row);
}

/** The records the CCIP-Read gateway answers from (no timestamps, no metadata). */
export type GatewayRecords = Pick<OffchainSubname, 'texts' | 'addresses' | 'contenthash'>;

/**
 * The gateway records of each of `fullNames` that exists, by full name, in ONE indexed query
 * (`full_name = ANY($1)`): the lookups of distinct names waiting together cost one round trip.
 */
export async function findRecordsByNames(
  db: Kysely<OffchainDatabase>,
  fullNames: readonly string[],
): Promise<Map<string, GatewayRecords>> {
  const { rows } = await sql<GatewayRecords & { full_name: string }>`
    SELECT full_name, texts, addresses, contenthash FROM offchain_subnames
    WHERE full_name = ANY(${fullNames}::text[])`.execute(db);
  return new Map(rows.map(({ full_name, ...records }) => [full_name, records]));
}

/** Deletes a subname and returns it (undefined when there was none). `db` may be a transaction. */
export async function deleteSubname(
  db: Kysely<OffchainDatabase>,
  fullName: string,
): Promise<OffchainSubname | undefined> {
  const row = await db
    .deleteFrom('offchain_subnames')
    .where('full_name', '=', fullName)
    .returningAll()
    .executeTakeFirst();
  return row && toSubname(row);
}
