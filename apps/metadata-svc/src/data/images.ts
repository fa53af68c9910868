import { sql, type Kysely, type Transaction } from 'kysely';
import type { Image, ImageTarget, MetadataDb } from './schema';

type Db = Kysely<MetadataDb>;

export type ImageEventType = 'image.pending' | 'image.confirmed' | 'image.discarded' | 'image.deleted';

/** Records image events inside the transaction of the change (the service's event outbox). */
export type ImageEvents = (trx: Db, type: ImageEventType, rows: Image[]) => Promise<void>;

/** Serialises writers of one (network, node, kind) inside a transaction (PostgreSQL and PGlite alike). */
async function lockTarget(trx: Transaction<MetadataDb>, target: ImageTarget): Promise<void> {
  const key = `${target.network}:${target.node}:${target.kind}`;
  await sql`select pg_advisory_xact_lock(hashtext(${key}))`.execute(trx);
}

/** The columns that name one image slot, for `where((eb) => eb.and(targetColumns(t)))`. */
const targetColumns = (target: ImageTarget) => ({
  network: target.network,
  node: target.node,
  kind: target.kind,
});

/** Deletes the confirmed image of `target` (inside the caller's transaction) and returns it. */
function takeConfirmed(trx: Transaction<MetadataDb>, target: ImageTarget): Promise<Image | undefined> {
  return trx
    .deleteFrom('images')
    .where((eb) => eb.and(targetColumns(target)))
    .where('status', '=', 'confirmed')
    .returningAll()
    .executeTakeFirst();
}

export async function findConfirmed(db: Db, target: ImageTarget): Promise<Image | undefined> {
  return db
    .selectFrom('images')
    .selectAll()
    .where((eb) => eb.and(targetColumns(target)))
    .where('status', '=', 'confirmed')
    .executeTakeFirst();
}

export async function findPending(db: Db, target: ImageTarget): Promise<Image[]> {
  return db
    .selectFrom('images')
    .selectAll()
    .where((eb) => eb.and(targetColumns(target)))
    .where('status', '=', 'pending')
    .orderBy('uploaded_at', 'desc')
    .execute();
}

/** Pending uploads by state: `waiting` for their record, or `expired` (window passed, not discarded yet). */
export async function countPending(db: Db, now: Date): Promise<{ waiting: number; expired: number }> {
  const row = await db
    .selectFrom('images')
    .select((eb) => [
      eb.fn.countAll<string>().filterWhere('pending_until', '>', now).as('waiting'),
      eb.fn.countAll<string>().filterWhere('pending_until', '<=', now).as('expired'),
    ])
    .where('status', '=', 'pending')
    .executeTakeFirstOrThrow();
  return { waiting: Number(row.waiting), expired: Number(row.expired) };
}

/** Pending uploads whose window has not passed yet (the worker checks them). */
export async function listLivePending(db: Db, now: Date, limit = 500): Promise<Image[]> {
  return db
    .selectFrom('images')
    .selectAll()
    .where('status', '=', 'pending')
    .where('pending_until', '>', now)
    .orderBy('pending_until')
    .limit(limit)
    .execute();
}

/**
 * Stores a confirmed image in place of the current one, atomically. Returns the replaced row (whose bytes the
 * caller deletes after the commit), if there was one.
 */
export async function replaceConfirmed(db: Db, row: Image, events: ImageEvents): Promise<Image | undefined> {
  return db.transaction().execute(async (trx) => {
    await lockTarget(trx, row);
    const previous = await takeConfirmed(trx, row);
    await trx.insertInto('images').values(row).execute();
    await events(trx, 'image.confirmed', [row]);
    return previous;
  });
}

/** How many live pending uploads one address may have, and one name and kind from distinct uploaders. */
export interface PendingLimits {
  perUploader: number;
  /** Infinity for the name's owner: strangers filling a name's slots cannot lock its owner out. */
  perName: number;
}

/** A new pending upload would exceed a limit; `retryAt` is when the oldest of the counted uploads expires. */
export class PendingLimitReached extends Error {
  constructor(
    readonly scope: 'uploader' | 'name',
    readonly limit: number,
    readonly retryAt: Date,
  ) {
    super(`the limit of ${limit} pending uploads per ${scope} is reached`);
    this.name = 'PendingLimitReached';
  }
}

/**
 * The limit a new pending `row` would exceed, if any. Only live pending uploads count, and not the uploader's own
 * pending upload of the same name and kind (the new one replaces it).
 */
export async function pendingLimitReached(
  db: Db,
  row: Image,
  limits: PendingLimits,
  now: Date,
): Promise<PendingLimitReached | undefined> {
  const live = db
    .selectFrom('images')
    .select((eb) => [eb.fn.countAll<string>().as('count'), eb.fn.min('pending_until').as('first')])
    .where('status', '=', 'pending')
    .where('pending_until', '>', now);
  const byUploader = await live
    .where('uploader', '=', row.uploader)
    .where((eb) => eb.not(eb.and(targetColumns(row))))
    .executeTakeFirstOrThrow();
  if (Number(byUploader.count) >= limits.perUploader) {
    return new PendingLimitReached('uploader', limits.perUploader, byUploader.first ?? now);
  }
  if (!Number.isFinite(limits.perName)) return undefined;
  const byName = await live
    .where((eb) => eb.and(targetColumns(row)))
    .where('uploader', '!=', row.uploader)
    .executeTakeFirstOrThrow();
  if (Number(byName.count) >= limits.perName) {
    return new PendingLimitReached('name', limits.perName, byName.first ?? now);
  }
  return undefined;
}

/** Serialises the pending uploads of one uploader (its limit spans names), inside a transaction. */
async function lockUploader(trx: Transaction<MetadataDb>, uploader: string): Promise<void> {
  await sql`select pg_advisory_xact_lock(hashtext(${`uploader:${uploader}`}))`.execute(trx);
}

/**
 * Stores a pending upload, replacing the same uploader's earlier pending one (returned). Throws PendingLimitReached,
 * writing nothing, when the upload would exceed `limits` (checked under the uploader's and the target's locks, so
 * concurrent uploads cannot pass a limit together).
 */
export async function replacePending(
  db: Db,
  row: Image,
  events: ImageEvents,
  limits: PendingLimits,
): Promise<Image | undefined> {
  return db.transaction().execute(async (trx) => {
    // Always uploader first, then target: the only transaction taking both, so no lock cycle.
    await lockUploader(trx, row.uploader);
    await lockTarget(trx, row);
    const reached = await pendingLimitReached(trx, row, limits, row.uploaded_at);
    if (reached) throw reached;
    const previous = await trx
      .deleteFrom('images')
      .where((eb) => eb.and(targetColumns(row)))
      .where('uploader', '=', row.uploader)
      .where('status', '=', 'pending')
      .returningAll()
      .executeTakeFirst();
    await trx.insertInto('images').values(row).execute();
    await events(trx, 'image.pending', [row]);
    return previous;
  });
}

export type ConfirmOutcome =
  { confirmed: true; replaced: Image | undefined } | { confirmed: false; reason: 'gone' | 'expired' };

/** Turns a live pending row into the confirmed image; the replaced confirmed row is returned for cleanup. */
export async function confirmPending(
  db: Db,
  pending: Image,
  now: Date,
  events: ImageEvents,
): Promise<ConfirmOutcome> {
  return db.transaction().execute(async (trx): Promise<ConfirmOutcome> => {
    await lockTarget(trx, pending);
    const current = await trx
      .selectFrom('images')
      .select(['id', 'pending_until'])
      .where('id', '=', pending.id)
      .where('status', '=', 'pending')
      .executeTakeFirst();
    if (!current) return { confirmed: false, reason: 'gone' };
    if (!current.pending_until || current.pending_until.getTime() <= now.getTime()) {
      return { confirmed: false, reason: 'expired' };
    }
    const replaced = await takeConfirmed(trx, pending);
    await trx
      .updateTable('images')
      .set({ status: 'confirmed', pending_until: null })
      .where('id', '=', pending.id)
      .execute();
    await events(trx, 'image.confirmed', [{ ...pending, status: 'confirmed', pending_until: null }]);
    return { confirmed: true, replaced };
  });
}

/** Deletes pending rows whose window has passed; returns them so their bytes can be removed. */
export async function deleteExpiredPending(db: Db, now: Date, events: ImageEvents): Promise<Image[]> {
  return db.transaction().execute(async (trx) => {
    const expired = await trx
      .deleteFrom('images')
      .where('status', '=', 'pending')
      .where('pending_until', '<=', now)
      .returningAll()
      .execute();
    await events(trx, 'image.discarded', expired);
    return expired;
  });
}

/** Deletes the confirmed image and `uploader`'s pending one; returns the deleted rows. */
export async function deleteForOwner(
  db: Db,
  target: ImageTarget,
  uploader: string,
  events: ImageEvents,
): Promise<Image[]> {
  return db.transaction().execute(async (trx) => {
    await lockTarget(trx, target);
    const deleted = await trx
      .deleteFrom('images')
      .where((eb) => eb.and(targetColumns(target)))
      .where((eb) =>
        eb.or([
          eb('status', '=', 'confirmed'),
          eb.and([eb('status', '=', 'pending'), eb('uploader', '=', uploader)]),
        ]),
      )
      .returningAll()
      .execute();
    await events(trx, 'image.deleted', deleted);
    return deleted;
  });
}

/** Which of `keys` some row still references. */
export async function referencedKeys(db: Db, keys: string[]): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await db.selectFrom('images').select('blob_key').where('blob_key', 'in', keys).execute();
  return new Set(rows.map((r) => r.blob_key));
}

/** Every blob a row references, with its content type: the blobs a backup of the service copies. */
export async function referencedBlobs(db: Db): Promise<Array<{ key: string; contentType: string }>> {
  const rows = await db
    .selectFrom('images')
    .select(['blob_key', 'content_type'])
    .orderBy('blob_key')
    .execute();
  return rows.map((row) => ({ key: row.blob_key, contentType: row.content_type }));
}
