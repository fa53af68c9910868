import { sql, type Kysely } from 'kysely';
import { statementGroups } from '@nrp/db';
import type { MintDatabase } from './schema';
import type { IndexedName } from './names';

/** A new state of a name at one log. */
export interface NameChange {
  node: string;
  blockNumber: number;
  logIndex: number;
  owner: string;
  wrapped: boolean;
  expiry: number | null;
}

/** A name minted in the batch: its first state is its first change. */
export interface NewName extends Omit<IndexedName, 'owner' | 'wrapped' | 'expiry'> {
  blockNumber: number;
}

export interface Checkpoint {
  blockNumber: number;
  blockHash: string;
}

/** What one batch of blocks writes, in one transaction with its checkpoint. */
export interface IndexBatch {
  minted: NewName[];
  changes: NameChange[];
  checkpoint: Checkpoint;
  /** Writes the batch's events (the outbox) inside the same transaction. */
  appendEvents(trx: Kysely<MintDatabase>): Promise<void>;
}

export type BatchOutcome = 'applied' | 'lease-lost' | 'cursor-moved';

const expiryText = (expiry: number | null): string | null => (expiry === null ? null : String(expiry));

/** Takes or renews the lease of `network` for `holder`; true while `holder` has it. */
export async function takeLease(
  db: Kysely<MintDatabase>,
  network: string,
  holder: string,
  ttlMs: number,
): Promise<boolean> {
  const until = sql<Date>`now() + ${`${ttlMs} milliseconds`}::interval`;
  const row = await db
    .insertInto('mint_index_leases')
    .values({ network, holder, expires_at: until })
    .onConflict((oc) =>
      oc
        .column('network')
        .doUpdateSet({ holder, expires_at: until })
        .where((eb) =>
          eb.or([
            eb('mint_index_leases.holder', '=', holder),
            eb('mint_index_leases.expires_at', '<', sql<Date>`now()`),
          ]),
        ),
    )
    .returning('holder')
    .executeTakeFirst();
  return row?.holder === holder;
}

/** Gives the lease up (shutdown), so another replica takes over without waiting for it to expire. */
export async function releaseLease(db: Kysely<MintDatabase>, network: string, holder: string): Promise<void> {
  await db
    .deleteFrom('mint_index_leases')
    .where('network', '=', network)
    .where('holder', '=', holder)
    .execute();
}

/** The latest checkpoints of `network`, newest first. */
export async function latestCheckpoints(
  db: Kysely<MintDatabase>,
  network: string,
  limit: number,
): Promise<Checkpoint[]> {
  const rows = await db
    .selectFrom('mint_index_checkpoints')
    .select(['block_number', 'block_hash'])
    .where('network', '=', network)
    .orderBy('block_number', 'desc')
    .limit(limit)
    .execute();
  return rows.map((r) => ({ blockNumber: r.block_number, blockHash: r.block_hash }));
}

/** Locks the lease row of `holder` (null when another replica holds it) and reads the cursor. */
async function lockCursor(
  trx: Kysely<MintDatabase>,
  network: string,
  holder: string,
): Promise<{ cursor: number | null } | null> {
  const lease = await trx
    .selectFrom('mint_index_leases')
    .select('holder')
    .where('network', '=', network)
    .where('holder', '=', holder)
    .forUpdate()
    .executeTakeFirst();
  if (!lease) return null;
  const [latest] = await latestCheckpoints(trx, network, 1);
  return { cursor: latest?.blockNumber ?? null };
}

/**
 * Writes one batch (names, their changes, the current state of each changed name, the events, the checkpoint) in one
 * transaction, when `holder` still holds the lease and the cursor is still `expectedCursor`: a batch is applied once
 * and whole, or not at all.
 */
export async function applyBatch(
  db: Kysely<MintDatabase>,
  network: string,
  holder: string,
  expectedCursor: number | null,
  batch: IndexBatch,
): Promise<BatchOutcome> {
  return db.transaction().execute(async (trx) => {
    const locked = await lockCursor(trx, network, holder);
    if (!locked) return 'lease-lost';
    if (locked.cursor !== expectedCursor) return 'cursor-moved';
    const latest = new Map<string, NameChange>();
    for (const change of batch.changes) latest.set(change.node, change);
    // A backfill batch may hold tens of thousands of rows: several statements, one transaction.
    for (const group of statementGroups(batch.minted, 12)) {
      await trx
        .insertInto('mint_names')
        .values(
          group.map((n) => {
            const state = latest.get(n.node);
            if (!state) throw new Error(`minted name ${n.name} has no state`);
            return {
              network,
              node: n.node,
              name: n.name,
              parent_name: n.parentName,
              label: n.label,
              owner: state.owner,
              wrapped: state.wrapped,
              expiry: expiryText(state.expiry),
              minted_at: n.mintedAt,
              tx_hash: n.txHash,
              minted_block: n.blockNumber,
              updated_block: state.blockNumber,
            };
          }),
        )
        .execute();
    }
    for (const group of statementGroups(batch.changes, 7)) {
      await trx
        .insertInto('mint_name_changes')
        .values(
          group.map((c) => ({
            network,
            node: c.node,
            block_number: c.blockNumber,
            log_index: c.logIndex,
            owner: c.owner,
            wrapped: c.wrapped,
            expiry: expiryText(c.expiry),
          })),
        )
        .execute();
    }
    const mintedNodes = new Set(batch.minted.map((n) => n.node));
    const changed = [...latest.values()].filter((state) => !mintedNodes.has(state.node));
    for (const group of statementGroups(changed, 5)) {
      const rows = group.map(
        (c) =>
          sql`(${c.node}, ${c.owner}, ${c.wrapped}::boolean, ${expiryText(c.expiry)}::bigint, ${c.blockNumber}::integer)`,
      );
      await sql`
        UPDATE mint_names AS n
        SET owner = c.owner, wrapped = c.wrapped, expiry = c.expiry, updated_block = c.block_number
        FROM (VALUES ${sql.join(rows)}) AS c (node, owner, wrapped, expiry, block_number)
        WHERE n.network = ${network} AND n.node = c.node`.execute(trx);
    }
    await batch.appendEvents(trx);
    await trx
      .insertInto('mint_index_checkpoints')
      .values({ network, block_number: batch.checkpoint.blockNumber, block_hash: batch.checkpoint.blockHash })
      .execute();
    return 'applied';
  });
}

/**
 * Undoes every block above `blockNumber` (a reorganisation replaced them): names minted there go, the others take
 * back their latest remaining state, and the cursor returns to `blockNumber`.
 */
export async function rollBackTo(
  db: Kysely<MintDatabase>,
  network: string,
  holder: string,
  blockNumber: number,
): Promise<BatchOutcome> {
  return db.transaction().execute(async (trx) => {
    if (!(await lockCursor(trx, network, holder))) return 'lease-lost';
    await trx
      .deleteFrom('mint_names')
      .where('network', '=', network)
      .where('minted_block', '>', blockNumber)
      .execute();
    await trx
      .deleteFrom('mint_name_changes')
      .where('network', '=', network)
      .where('block_number', '>', blockNumber)
      .execute();
    await sql`
      UPDATE mint_names AS n
      SET owner = c.owner, wrapped = c.wrapped, expiry = c.expiry, updated_block = c.block_number
      FROM (
        SELECT DISTINCT ON (node) node, owner, wrapped, expiry, block_number
        FROM mint_name_changes
        WHERE network = ${network}
          AND node IN (SELECT node FROM mint_names WHERE network = ${network} AND updated_block > ${blockNumber})
        ORDER BY node, block_number DESC, log_index DESC
      ) AS c
      WHERE n.network = ${network} AND n.node = c.node`.execute(trx);
    await trx
      .deleteFrom('mint_index_checkpoints')
      .where('network', '=', network)
      .where('block_number', '>', blockNumber)
      .execute();
    return 'applied';
  });
}

/** Keeps the newest `keep` checkpoints of `network` (older ones are below any reorganisation worth following). */
export async function pruneCheckpoints(
  db: Kysely<MintDatabase>,
  network: string,
  keep: number,
): Promise<void> {
  await sql`
    DELETE FROM mint_index_checkpoints
    WHERE network = ${network} AND block_number < (
      SELECT min(block_number) FROM (
        SELECT block_number FROM mint_index_checkpoints WHERE network = ${network}
        ORDER BY block_number DESC LIMIT ${keep}
      ) AS newest
    )`.execute(db);
}
