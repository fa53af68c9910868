import type { RequestHandler, Response } from 'express';
import { apiKeyMatches, generateApiKey, hashApiKey } from '@nrp/auth';
import { commonProblems, ProblemError } from '@nrp/validation';
import type { OffchainDb } from './data/database';
import { findActiveApiKeyByHash, insertApiKey, type ApiKeyRow } from './data/api-keys';
import { offchainProblems } from './problems';

export const API_KEY_HEADER = 'x-auth-token';
export const API_KEY_PREFIX = 'offchain';

/** Issues a new key for `parents` (normalised names): the key itself is returned once, only its hash is stored. */
export async function issueApiKey(
  db: OffchainDb,
  parents: string[],
  note?: string,
): Promise<{ key: string; row: ApiKeyRow }> {
  const key = generateApiKey(API_KEY_PREFIX);
  const row = await insertApiKey(db, { keyHash: hashApiKey(key), parents: [...new Set(parents)], note });
  return { key, row };
}

/** The live key matching `presented`, compared in constant time against the stored hash. */
export async function verifyApiKey(db: OffchainDb, presented: string): Promise<ApiKeyRow | undefined> {
  const row = await findActiveApiKeyByHash(db, hashApiKey(presented));
  return row && apiKeyMatches(presented, row.keyHash) ? row : undefined;
}

/** Middleware: 401 UNAUTHORIZED unless `x-auth-token` carries a live key; the key is left on res.locals.apiKey. */
export function requireApiKey(db: OffchainDb): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers[API_KEY_HEADER];
    const presented = typeof header === 'string' ? header.trim() : '';
    if (!presented) {
      throw new ProblemError(commonProblems.UNAUTHORIZED, `Send an API key in the ${API_KEY_HEADER} header.`);
    }
    const key = presented.length <= 200 ? await verifyApiKey(db, presented) : undefined;
    if (!key) throw new ProblemError(commonProblems.UNAUTHORIZED, 'The API key is unknown or revoked.');
    res.locals.apiKey = key;
    next();
  };
}

/** The key `requireApiKey` verified for this request. */
export function apiKeyOf(res: Response): ApiKeyRow {
  const key: unknown = res.locals.apiKey;
  if (typeof key !== 'object' || key === null || !('parents' in key)) {
    throw new ProblemError(commonProblems.UNAUTHORIZED, `Send an API key in the ${API_KEY_HEADER} header.`);
  }
  return key as ApiKeyRow;
}

/** 403 PARENT_NOT_ALLOWED unless the key was issued for `parentName` (exact, normalised). */
export function assertKeyAllowsParent(key: ApiKeyRow, parentName: string): void {
  if (!key.parents.includes(parentName)) {
    throw new ProblemError(
      offchainProblems.PARENT_NOT_ALLOWED,
      `The API key is not valid for parent name "${parentName}".`,
    );
  }
}
