import {
  encodeCursor,
  type CreateSubnameData,
  type OffchainSubname,
  type SearchSubnamesQuery,
  type SearchSubnamesResult,
} from '@nrp/api';
import { parentOf } from '@nrp/ens';
import type { Response } from 'express';
import { MAX_ANSWER_BYTES, renderJson, sendRenderedJson, type RenderedJson } from '@nrp/server';
import { ProblemError } from '@nrp/validation';
import type { AnswerCache } from '../gateway/answer-cache';
import { assertKeyAllowsParent } from '../keys/api-keys';
import type { ApiKeyRow } from '../data/api-keys';
import type { OffchainContext } from '../context';
import { searchSubnames } from '../data/subname-search';
import { deleteSubname, findSubnameByName, findSubnameByNamehash } from '../data/subnames';
import { subnameEvent } from '../webhooks/events';
import { offchainProblems } from '../problems';
import { applyWrites, toWrite, type SavedSubname } from './writes';

function notFound(what: string): ProblemError {
  return new ProblemError(offchainProblems.SUBNAME_NOT_FOUND, `No offchain subname ${what}.`);
}

/**
 * Creates or updates a subname under a parent the key may manage (403 otherwise), with its `subname.created` /
 * `subname.updated` event, in one transaction.
 */
export async function createOrUpdateSubname(
  { db, events }: Pick<OffchainContext, 'db' | 'events'>,
  apiKey: ApiKeyRow,
  body: CreateSubnameData,
): Promise<SavedSubname> {
  assertKeyAllowsParent(apiKey, body.parentName);
  const [saved] = await events.transaction(db, (trx) => applyWrites(trx, events, [toWrite(body)]));
  if (!saved) throw new Error('no subname saved');
  return saved;
}

/**
 * Answers the subname `read` finds from `cache` while it holds it under `tag`, rendered (a hit is sent in the
 * request's own tick, not serialised again), else reads, caches and sends it; 404 when there is none (cached too).
 * The entry is dropped when a write of the subname commits (its full name and namehash are its tags).
 */
function answerThrough(
  res: Response,
  cache: AnswerCache<RenderedJson | null>,
  tag: string,
  read: () => Promise<OffchainSubname | undefined>,
  missing: string,
): void | Promise<void> {
  const send = (answer: RenderedJson | null): void => {
    if (!answer) throw notFound(missing);
    sendRenderedJson(res, answer);
  };
  const cached = cache.get(tag);
  if (cached !== undefined) return send(cached);
  const generation = cache.generation();
  return read().then((subname) => {
    const answer = subname ? renderJson(subname) : null;
    cache.set(tag, answer, answer ? answer.body.length + 2 * answer.etag.length : 0, [tag], generation);
    send(answer);
  });
}

/** Answers the subname named `fullName` (normalised), or 404. */
export function answerSubname(
  { db, caches }: Pick<OffchainContext, 'db' | 'caches'>,
  res: Response,
  fullName: string,
): void | Promise<void> {
  return answerThrough(
    res,
    caches.subnames,
    fullName,
    () => findSubnameByName(db, fullName),
    `named "${fullName}"`,
  );
}

/** Answers the subname whose namehash is `node`, or 404. */
export function answerSubnameByNamehash(
  { db, caches }: Pick<OffchainContext, 'db' | 'caches'>,
  res: Response,
  node: string,
): void | Promise<void> {
  const namehash = node.toLowerCase();
  return answerThrough(
    res,
    caches.subnames,
    namehash,
    () => findSubnameByNamehash(db, namehash),
    `has namehash ${node}`,
  );
}

/** A search page's JSON stays this far under the answer budget: the records, plus room for the envelope. */
export const SEARCH_PAGE_BYTES = MAX_ANSWER_BYTES - 64 * 1024;

/**
 * One page of the subnames matching the query, under `parentName` and `parentNames` together: at most `size` items
 * and SEARCH_PAGE_BYTES of records, with `nextCursor` when more matches follow.
 */
export async function findSubnames(
  { db }: Pick<OffchainContext, 'db'>,
  query: SearchSubnamesQuery,
): Promise<SearchSubnamesResult> {
  const parentNames = [
    ...new Set([...(query.parentName ? [query.parentName] : []), ...(query.parentNames ?? [])]),
  ];
  const { items, totalItems, next } = await searchSubnames(db, {
    parentNames,
    labelSearch: query.labelSearch,
    owner: query.owner,
    metadata: query.metadata,
    page: query.page,
    size: query.size,
    after: query.cursor,
    maxBytes: SEARCH_PAGE_BYTES,
  });
  return {
    items,
    totalItems,
    page: query.page,
    size: query.size,
    ...(next ? { nextCursor: encodeCursor({ label: next.label, parentName: next.parentName }) } : {}),
  };
}

/**
 * Deletes a subname under a parent the key may manage (403 otherwise; 404 when there is none) and records
 * `subname.deleted` (the record as it was), in one transaction.
 */
export async function removeSubname(
  { db, events }: Pick<OffchainContext, 'db' | 'events'>,
  apiKey: ApiKeyRow,
  fullName: string,
): Promise<void> {
  assertKeyAllowsParent(apiKey, parentOf(fullName) ?? '');
  const deleted = await events.transaction(db, async (trx) => {
    const row = await deleteSubname(trx, fullName);
    if (row) await events.record(trx, [subnameEvent('subname.deleted', row)]);
    return row;
  });
  if (!deleted) throw notFound(`named "${fullName}"`);
}
