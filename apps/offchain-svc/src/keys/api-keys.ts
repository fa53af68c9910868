import type { RequestHandler } from 'express';
import { apiKeyMatches, generateApiKey, hashApiKey } from '@nrp/auth';
import { isNetworkName } from '@nrp/chain';
import { RequestValue } from '@nrp/server';
import { commonProblems, ProblemError } from '@nrp/validation';
import type { OffchainContext } from '../context';
import {
  findActiveApiKeyByHash,
  insertApiKey,
  insertIssuedApiKeyWithinLimit,
  listIssuedApiKeysWithWebhooks,
  revokeApiKey,
  touchApiKey,
  type ApiKeyRow,
} from '../data/api-keys';
import { offchainProblems } from '../problems';

export const API_KEY_HEADER = 'x-auth-token';
export const API_KEY_PREFIX = 'offchain';

/** The key `requireApiKey` verified for this request. */
export const verifiedApiKey = new RequestValue<ApiKeyRow>('the API key requireApiKey verified');

/** Issues a new operator key for `parents` (normalised names): the key itself is returned once, only its hash is stored. */
export async function issueApiKey(
  { db }: Pick<OffchainContext, 'db'>,
  parents: string[],
  note?: string,
): Promise<{ key: string; row: ApiKeyRow }> {
  const key = generateApiKey(API_KEY_PREFIX);
  const row = await insertApiKey(db, { keyHash: hashApiKey(key), parents: [...new Set(parents)], note });
  return { key, row };
}

/**
 * Issues a self-serve key for `parentName` unless its issuer already holds `limit` live keys (undefined then,
 * nothing stored); counted and stored in one step, so concurrent requests cannot pass the limit together.
 */
export async function issueSelfServeApiKey(
  { db }: Pick<OffchainContext, 'db'>,
  parentName: string,
  options: { note?: string; issued: { issuer: string; network: string }; includeDescendants: boolean },
  limit: number,
): Promise<{ key: string; row: ApiKeyRow } | undefined> {
  const key = generateApiKey(API_KEY_PREFIX);
  const row = await insertIssuedApiKeyWithinLimit(
    db,
    { keyHash: hashApiKey(key), parents: [parentName], ...options },
    limit,
  );
  return row && { key, row };
}

/** The live key matching `presented`, compared in constant time against the stored hash. */
export async function verifyApiKey(
  { db }: Pick<OffchainContext, 'db'>,
  presented: string,
): Promise<ApiKeyRow | undefined> {
  const row = await findActiveApiKeyByHash(db, hashApiKey(presented));
  return row && apiKeyMatches(presented, row.keyHash) ? row : undefined;
}

/**
 * Who controls a self-serve key's parent now, when that is no longer its issuer: `null` when nobody does, undefined
 * while the issuer still controls it (and for operator keys, which are not tied to control). Read through the
 * control cache unless `fresh`.
 */
async function controlLost(
  ctx: Pick<OffchainContext, 'nameControl'>,
  key: ApiKeyRow,
  fresh = false,
): Promise<{ controller: string | null } | undefined> {
  const parent = key.parents[0];
  if (!key.issued || !parent || !isNetworkName(key.issued.network)) return undefined;
  const { controller } = await ctx.nameControl.read(key.issued.network, parent, { fresh });
  return controller?.toLowerCase() === key.issued.issuer ? undefined : { controller };
}

/**
 * 401 KEY_OWNER_CHANGED when a self-serve key's issuer no longer controls its parent on chain (read through the
 * control cache, so at most NAME_CONTROL_CACHE_MS late). Operator keys are not tied to control.
 */
async function assertIssuerStillControls(
  ctx: Pick<OffchainContext, 'nameControl'>,
  key: ApiKeyRow,
): Promise<void> {
  const lost = await controlLost(ctx, key);
  if (!lost || !key.issued) return;
  const now = lost.controller
    ? `${lost.controller} controls it now and can sign in and issue its own key`
    : 'nobody controls it now';
  throw new ProblemError(
    offchainProblems.KEY_OWNER_CHANGED,
    `The API key was issued by ${key.issued.issuer} for ${key.parents[0]} on ${key.issued.network}; ${now}.`,
  );
}

/**
 * The periodic control check: revokes every self-serve key with webhooks whose issuer no longer controls its parent
 * (read from the chain afresh), so its webhooks get no more events although the key itself is never used again.
 * Returns how many keys it revoked.
 */
export async function revokeKeysOfLostNames(
  ctx: Pick<OffchainContext, 'db' | 'nameControl'>,
): Promise<number> {
  let revoked = 0;
  for (const key of await listIssuedApiKeysWithWebhooks(ctx.db)) {
    if ((await controlLost(ctx, key, true)) && (await revokeApiKey(ctx.db, key.id))) revoked += 1;
  }
  return revoked;
}

/**
 * Middleware: 401 UNAUTHORIZED unless `x-auth-token` carries a live key, 401 KEY_OWNER_CHANGED when the issuer of a
 * self-serve key lost control of its name; the handler reads the key with `verifiedApiKey.of(req)`. A write request that succeeds
 * records the use (`lastUsedAt`, to the minute) once answered; reads and refused requests write nothing.
 */
export function requireApiKey(
  ctx: Pick<OffchainContext, 'db' | 'nameControl' | 'now' | 'logger'>,
): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers[API_KEY_HEADER];
    const presented = typeof header === 'string' ? header.trim() : '';
    if (!presented) {
      throw new ProblemError(commonProblems.UNAUTHORIZED, `Send an API key in the ${API_KEY_HEADER} header.`);
    }
    const key = presented.length <= 200 ? await verifyApiKey(ctx, presented) : undefined;
    if (!key) throw new ProblemError(commonProblems.UNAUTHORIZED, 'The API key is unknown or revoked.');
    await assertIssuerStillControls(ctx, key);
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.once('finish', () => {
        if (res.statusCode >= 400) return;
        touchApiKey(ctx.db, key.id, ctx.now()).catch((err: unknown) =>
          ctx.logger.warn({ err, keyId: key.id }, 'could not record the use of an API key'),
        );
      });
    }
    verifiedApiKey.set(req, key);
    next();
  };
}

/**
 * Whether the key may manage names directly under `parentName` (normalised): one of its parents, or, for a key with
 * `includeDescendants`, any name below one of them.
 */
export function keyAllowsParent(key: ApiKeyRow, parentName: string): boolean {
  return key.parents.some(
    (parent) => parent === parentName || (key.includeDescendants && parentName.endsWith(`.${parent}`)),
  );
}

/** 403 PARENT_NOT_ALLOWED unless `keyAllowsParent`. */
export function assertKeyAllowsParent(key: ApiKeyRow, parentName: string): void {
  if (!keyAllowsParent(key, parentName)) {
    throw new ProblemError(
      offchainProblems.PARENT_NOT_ALLOWED,
      `The API key is not valid for parent name "${parentName}".`,
    );
  }
}
