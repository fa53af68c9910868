import { randomUUID } from 'node:crypto';
import type { AvatarUploadResult, ConfirmResult, DeleteResult } from '@nrp/api';
import type { NetworkName } from '@nrp/chain';
import { namehash } from '@nrp/ens';
import { ProblemError } from '@nrp/validation';
import type { MetadataContext } from '../context';
import {
  confirmPending,
  deleteExpiredPending,
  deleteForOwner,
  findConfirmed,
  findPending,
  PendingLimitReached,
  pendingLimitReached,
  replaceConfirmed,
  replacePending,
  type PendingLimits,
} from '../data/images';
import type { Image, ImageKind, ImageTarget } from '../data/schema';
import { contentEtag } from '../images/http';
import type { ValidatedImage } from '../images/validation';
import { findOwner, readTextRecord } from '../names/ens-state';
import { problems } from '../problems';
import { dropBytes, newBlobKey, storeRow } from './blobs';
import { recordPointsAt, stableImageUrl } from './stable-url';

/** What the upload lifecycle uses of the service. */
export type UploadDeps = Pick<
  MetadataContext,
  | 'config'
  | 'logger'
  | 'db'
  | 'blobs'
  | 'networks'
  | 'offchain'
  | 'l2Networks'
  | 'l2ParentNames'
  | 'now'
  | 'imageEvents'
  | 'tokenCache'
  | 'avatarResolutions'
>;

/** What an upload answers, with the stable URL as `url` (the route names it `avatarUrl` or `headerUrl`). */
export type UploadResult = Omit<AvatarUploadResult, 'avatarUrl'> & { url: string };

function windowText(ms: number): string {
  if (ms % 60_000 === 0) return `${ms / 60_000} minute${ms === 60_000 ? '' : 's'}`;
  return `${Math.ceil(ms / 1000)} seconds`;
}

/** A name's visible images changed: this process's caches drop what they hold about it. */
function imagesChanged(ctx: UploadDeps, network: NetworkName, node: string): void {
  ctx.tokenCache.invalidate(network, node);
  ctx.avatarResolutions.invalidate(network, node);
}

/** 429 PENDING_UPLOAD_LIMIT (per uploader) or 409 NAME_PENDING_LIMIT, with Retry-After until a slot frees. */
function pendingLimitProblem(reached: PendingLimitReached, now: Date): ProblemError {
  const retryAfter = Math.max(1, Math.ceil((reached.retryAt.getTime() - now.getTime()) / 1000));
  const detail =
    reached.scope === 'uploader'
      ? `This address already has ${reached.limit} pending uploads (PENDING_UPLOADS_PER_UPLOADER).`
      : `This name already has ${reached.limit} pending uploads of other addresses (PENDING_UPLOADS_PER_NAME).`;
  return new ProblemError(
    reached.scope === 'uploader' ? problems.PENDING_UPLOAD_LIMIT : problems.NAME_PENDING_LIMIT,
    `${detail} The oldest of them expires in ${retryAfter} s.`,
    { headers: { 'Retry-After': String(retryAfter) } },
  );
}

export interface UploadInput {
  network: NetworkName;
  name: string;
  kind: ImageKind;
  /** The signed-in address (EIP-55). */
  signer: string;
  image: ValidatedImage;
}

/**
 * The upload state machine of the contract: record set and signer owns the name → confirmed (replacing any image);
 * record set and signer does not own it → 403; record not set → pending for the window.
 */
export async function uploadImage(ctx: UploadDeps, input: UploadInput): Promise<UploadResult> {
  const { network, name, kind, signer, image } = input;
  const access = ctx.networks[network];
  const node = namehash(name);
  const url = stableImageUrl(ctx.config.PUBLIC_BASE_URL, network, name, kind);
  const [record, owner] = await Promise.all([
    readTextRecord(access, name, kind),
    findOwner(ctx, network, name),
  ]);
  const recordSet = recordPointsAt(record, url);
  const isOwner = owner.owner !== null && owner.owner.toLowerCase() === signer.toLowerCase();
  if (recordSet && !isOwner) {
    throw new ProblemError(
      problems.NOT_SUBNAME_OWNER,
      `${signer} does not own ${name}${owner.owner ? ` (the owner is ${owner.owner})` : ''}.`,
    );
  }
  const now = ctx.now();
  const row: Image = {
    id: randomUUID(),
    network,
    name,
    node,
    kind,
    uploader: signer.toLowerCase(),
    status: recordSet ? 'confirmed' : 'pending',
    blob_key: newBlobKey(network, now),
    content_type: image.contentType,
    size: image.bytes.length,
    etag: contentEtag(image.bytes),
    uploaded_at: now,
    pending_until: recordSet ? null : new Date(now.getTime() + ctx.config.PENDING_WINDOW_MS),
  };
  const base = { subname: name, network, url, uploadedAt: now.toISOString(), fileSize: row.size };
  if (recordSet) {
    const replaced = await storeRow(ctx, row, image.bytes, (r) =>
      replaceConfirmed(ctx.db, r, ctx.imageEvents),
    );
    imagesChanged(ctx, network, node);
    return { ...base, isUpdate: replaced !== undefined };
  }
  const limits: PendingLimits = {
    perUploader: ctx.config.PENDING_UPLOADS_PER_UPLOADER,
    perName: isOwner ? Infinity : ctx.config.PENDING_UPLOADS_PER_NAME,
  };
  // Checked before the bytes are written (a refused upload costs the blob store nothing), and again in the row's
  // transaction, which is what holds under concurrency.
  const reached = await pendingLimitReached(ctx.db, row, limits, now);
  if (reached) throw pendingLimitProblem(reached, now);
  const existing = await findConfirmed(ctx.db, { network, node, kind });
  let replacedPending: Image | undefined;
  try {
    replacedPending = await storeRow(ctx, row, image.bytes, (r) =>
      replacePending(ctx.db, r, ctx.imageEvents, limits),
    );
  } catch (err) {
    if (err instanceof PendingLimitReached) throw pendingLimitProblem(err, now);
    throw err;
  }
  return {
    ...base,
    isUpdate: existing !== undefined || replacedPending !== undefined,
    pending: true,
    message:
      `Upload received but not visible yet. Set the "${kind}" text record of ${name} to ${url} within ` +
      `${windowText(ctx.config.PENDING_WINDOW_MS)} to confirm it; otherwise it is discarded.`,
  };
}

/** Deletes the name's image (and the signer's pending upload): owner only (403), 404 when there is none. */
export async function deleteImage(
  ctx: UploadDeps,
  input: { network: NetworkName; name: string; kind: ImageKind; signer: string },
): Promise<DeleteResult> {
  const { network, name, kind, signer } = input;
  const owner = await findOwner(ctx, network, name);
  if (owner.owner === null || owner.owner.toLowerCase() !== signer.toLowerCase()) {
    throw new ProblemError(
      problems.NOT_SUBNAME_OWNER,
      `${signer} does not own ${name}${owner.owner ? ` (the owner is ${owner.owner})` : ''}.`,
    );
  }
  const node = namehash(name);
  const deleted = await deleteForOwner(
    ctx.db,
    { network, node, kind },
    signer.toLowerCase(),
    ctx.imageEvents,
  );
  if (deleted.length === 0) {
    throw new ProblemError(problems.IMAGE_NOT_FOUND, `${name} has no ${kind} on ${network}.`);
  }
  await dropBytes(ctx, deleted);
  imagesChanged(ctx, network, node);
  return {
    subname: name,
    network,
    message: `The ${kind} of ${name} was deleted.`,
    deletedAt: ctx.now().toISOString(),
  };
}

/** What confirming the pending uploads of one name and kind came to. */
export type PendingCheck =
  | { status: 'confirmed'; image: Image }
  /** No live pending upload (none, expired, or taken by a concurrent confirmation or delete). */
  | { status: 'none' }
  /** The record does not point at the stable URL `url` (yet). */
  | { status: 'record-not-set'; url: string }
  /** The record is set, but none of the pending uploads is by the name's owner (`owner`, or nobody). */
  | { status: 'not-owner'; owner: string | null };

/**
 * The confirmation step of the upload lifecycle: among the pending uploads of ONE name and kind, the one whose
 * uploader owns the name becomes the visible image, if the record now points at the stable URL. The record and the
 * owner are each read once for the whole group (not once per uploader), and the owner only when the record is set.
 * Run by the worker and by the explicit confirm request, never by a read.
 */
export async function confirmPendingGroup(ctx: UploadDeps, rows: Image[]): Promise<PendingCheck> {
  const now = ctx.now();
  const live = rows.filter((r) => r.pending_until !== null && r.pending_until.getTime() > now.getTime());
  if (live.length < rows.length) await sweepExpiredPending(ctx);
  const first = live[0];
  if (!first) return { status: 'none' };
  const network = first.network as NetworkName;
  const access = ctx.networks[network];
  if (!access) return { status: 'none' };
  const url = stableImageUrl(ctx.config.PUBLIC_BASE_URL, network, first.name, first.kind);
  const record = await readTextRecord(access, first.name, first.kind);
  if (!recordPointsAt(record, url)) return { status: 'record-not-set', url };
  const { owner } = await findOwner(ctx, network, first.name);
  const pending = owner === null ? undefined : live.find((r) => r.uploader === owner.toLowerCase());
  if (!pending) return { status: 'not-owner', owner };
  const outcome = await confirmPending(ctx.db, pending, ctx.now(), ctx.imageEvents);
  if (!outcome.confirmed) return { status: 'none' };
  await dropBytes(ctx, [outcome.replaced]);
  imagesChanged(ctx, network, pending.node);
  ctx.logger.info({ network, name: pending.name, kind: pending.kind }, 'pending upload confirmed');
  return { status: 'confirmed', image: { ...pending, status: 'confirmed', pending_until: null } };
}

/**
 * Confirms a name's pending upload now, for a client that has just set the record and does not want to wait for
 * the worker: 404 PENDING_UPLOAD_NOT_FOUND when nothing is pending, 409 RECORD_NOT_SET when the record does not
 * point at the stable URL, 403 NOT_SUBNAME_OWNER when no pending upload is by the name's owner.
 */
export async function confirmUpload(
  ctx: UploadDeps,
  input: { network: NetworkName; name: string; kind: ImageKind },
): Promise<ConfirmResult> {
  const { network, name, kind } = input;
  const result = await confirmPendingGroup(
    ctx,
    await findPending(ctx.db, { network, node: namehash(name), kind }),
  );
  switch (result.status) {
    case 'confirmed':
      return {
        subname: name,
        network,
        kind,
        url: stableImageUrl(ctx.config.PUBLIC_BASE_URL, network, name, kind),
        uploadedAt: result.image.uploaded_at.toISOString(),
        fileSize: result.image.size,
      };
    case 'none':
      throw new ProblemError(
        problems.PENDING_UPLOAD_NOT_FOUND,
        `${name} has no pending ${kind} upload on ${network} (it may be confirmed already, or discarded).`,
      );
    case 'record-not-set':
      throw new ProblemError(
        problems.RECORD_NOT_SET,
        `The "${kind}" text record of ${name} is not ${result.url} (yet).`,
      );
    case 'not-owner':
      throw new ProblemError(
        problems.NOT_SUBNAME_OWNER,
        `None of the pending uploads of ${name} is by its owner${result.owner ? ` (${result.owner})` : ''}.`,
      );
  }
}

/** Removes pending uploads whose window has passed: their rows, then their bytes. Returns how many. */
export async function sweepExpiredPending(ctx: UploadDeps): Promise<number> {
  const expired = await deleteExpiredPending(ctx.db, ctx.now(), ctx.imageEvents);
  await dropBytes(ctx, expired);
  return expired.length;
}

/**
 * The image a name shows, with its bytes, as the image route serves it; IMAGE_NOT_FOUND when it has none (or its
 * bytes are gone, which is logged: a row should never outlive its blob).
 */
export async function servedImage(
  ctx: UploadDeps,
  target: ImageTarget & { name: string },
): Promise<{ image: Image; bytes: Buffer }> {
  const image = await findConfirmed(ctx.db, target);
  const blob = image ? await ctx.blobs.get(image.blob_key) : null;
  if (!image || !blob) {
    if (image) ctx.logger.error({ key: image.blob_key }, 'image row without bytes');
    throw new ProblemError(
      problems.IMAGE_NOT_FOUND,
      `${target.name} has no ${target.kind} on ${target.network}.`,
    );
  }
  return { image, bytes: blob.bytes };
}
