import { createHash } from 'node:crypto';
import { z } from 'zod';
import { createSubnameRequest, type BulkSubnamesResult, type CreateSubnameData } from '@nrp/api';
import {
  commonProblems,
  MAX_FIELD_ERRORS,
  ProblemError,
  validationProblem,
  type FieldError,
} from '@nrp/validation';
import { keyAllowsParent } from '../keys/api-keys';
import type { ApiKeyRow } from '../data/api-keys';
import { claimIdempotencyKey, storeAnswer } from '../data/idempotency';
import type { OffchainContext } from '../context';
import { offchainProblems } from '../problems';
import { applyWrites, toWrite } from './writes';

export interface BulkImportRequest {
  apiKey: ApiKeyRow;
  items: unknown[];
  atomic: boolean;
  idempotencyKey?: string;
}

/** Field errors listed per failed item in a non-atomic answer (its `detail` counts the rest). */
const ITEM_ERRORS = 10;

type ItemResult = BulkSubnamesResult['results'][number];
type Checked =
  { index: number; data: CreateSubnameData } | { index: number; failure: ItemResult; issues?: z.ZodError };

/** Each item parsed like a create body, then checked against the key's parents. */
function checkItems(apiKey: ApiKeyRow, items: unknown[]): Checked[] {
  return items.map((item, index): Checked => {
    const parsed = createSubnameRequest.safeParse(item);
    if (!parsed.success) {
      const issues = prefixed(parsed.error, index);
      const problem = validationProblem('body', issues);
      return {
        index,
        issues,
        failure: {
          index,
          status: 400,
          error: {
            code: problem.code,
            detail: problem.message,
            errors: problem.errors?.slice(0, ITEM_ERRORS),
          },
        },
      };
    }
    if (!keyAllowsParent(apiKey, parsed.data.parentName)) {
      return {
        index,
        failure: {
          index,
          status: 403,
          error: {
            code: offchainProblems.PARENT_NOT_ALLOWED.code,
            detail: `The API key is not valid for parent name "${parsed.data.parentName}".`,
            errors: [{ path: `body.items.${index}.parentName`, message: 'the API key is not valid for it' }],
          },
        },
      };
    }
    return { index, data: parsed.data };
  });
}

/** The item's issues with paths under `items.<index>`. */
function prefixed(error: z.ZodError, index: number): z.ZodError {
  return new z.ZodError(error.issues.map((issue) => ({ ...issue, path: ['items', index, ...issue.path] })));
}

/**
 * A name written twice by one request is a 400 naming both indexes (whatever `atomic` says): one request writes a
 * name once, so its cost and its answer grow with its own size only.
 */
function assertNoRepeats(checked: Checked[]): void {
  const firstIndex = new Map<string, number>();
  const errors: FieldError[] = [];
  for (const c of checked) {
    if (!('data' in c)) continue;
    const name = `${c.data.label}.${c.data.parentName}`;
    const first = firstIndex.get(name);
    if (first === undefined) firstIndex.set(name, c.index);
    else
      errors.push({ path: `body.items.${c.index}`, message: `writes ${name} again, as item ${first} does` });
  }
  if (errors.length === 0) return;
  const listed = errors.slice(0, MAX_FIELD_ERRORS);
  throw new ProblemError(
    commonProblems.INVALID_INPUT,
    `Each name may appear once per request: ${listed
      .slice(0, 5)
      .map((e) => `${e.path.replace('body.items.', 'item ')} ${e.message}`)
      .join('; ')}${errors.length > 5 ? `; and ${errors.length - 5} more` : ''}. Nothing was written.`,
    { errors: listed },
  );
}

/** All-or-nothing: the first kind of failure (400 before 403) fails the whole request. */
function throwIfAnyFailed(checked: Checked[]): void {
  const failures = checked.flatMap((c) => ('failure' in c ? [c.failure] : []));
  const issues = checked.flatMap((c) => ('issues' in c && c.issues ? c.issues.issues : []));
  if (issues.length > 0) throw validationProblem('body', new z.ZodError(issues));
  if (failures.length > 0) {
    throw new ProblemError(
      offchainProblems.PARENT_NOT_ALLOWED,
      `The API key is not valid for the parent of item(s) ${failures.map((f) => f.index).join(', ')}; nothing was written.`,
      { errors: failures.flatMap((f) => f.error?.errors ?? []) },
    );
  }
}

/** SHA-256 of what decides the answer: the items and the mode. */
export function bulkRequestHash(items: unknown[], atomic: boolean): string {
  return createHash('sha256').update(JSON.stringify({ atomic, items })).digest('hex');
}

/**
 * Imports up to 1,000 items in ONE transaction with their events. Atomic: one bad item fails the request and
 * nothing is written. Not atomic: bad items are reported in their result and the others are written. With an
 * idempotency key, the first answer is stored in the same transaction and replayed for the same request; the
 * same key with another request is a 409.
 */
export async function bulkImport(
  { db, events }: Pick<OffchainContext, 'db' | 'events'>,
  request: BulkImportRequest,
): Promise<BulkSubnamesResult> {
  const { apiKey, items, atomic, idempotencyKey } = request;
  const checked = checkItems(apiKey, items);
  assertNoRepeats(checked);
  return events.transaction(db, async (trx) => {
    const claim = idempotencyKey && {
      apiKeyId: apiKey.id,
      key: idempotencyKey,
      requestHash: bulkRequestHash(items, atomic),
    };
    if (claim) {
      const stored = await claimIdempotencyKey(trx, claim);
      if (stored && stored.requestHash !== claim.requestHash) {
        throw new ProblemError(
          offchainProblems.IDEMPOTENCY_KEY_REUSED,
          `Idempotency-Key "${claim.key}" was used with a different request.`,
        );
      }
      if (stored) return stored.response as BulkSubnamesResult;
    }
    if (atomic) throwIfAnyFailed(checked);
    const valid = checked.flatMap((c) => ('data' in c ? [c] : []));
    const saved = await applyWrites(
      trx,
      events,
      valid.map((c) => toWrite(c.data)),
    );
    const savedByIndex = new Map(valid.map((c, i) => [c.index, saved[i]]));
    const results = checked.map((c): ItemResult => {
      if ('failure' in c) return c.failure;
      const item = savedByIndex.get(c.index);
      return {
        index: c.index,
        status: item?.created ? 201 : 200,
        id: item?.subname.id,
        fullName: item?.subname.fullName,
        updatedAt: item?.subname.updatedAt,
      };
    });
    const answer: BulkSubnamesResult = {
      created: saved.filter((s) => s.created).length,
      updated: saved.filter((s) => !s.created).length,
      failed: checked.length - saved.length,
      results,
    };
    if (claim) await storeAnswer(trx, claim, { statusCode: 200, response: answer });
    return answer;
  });
}
