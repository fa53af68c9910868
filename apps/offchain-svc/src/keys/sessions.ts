import type { RequestHandler } from 'express';
import {
  authProblems,
  generateApiKey,
  hashApiKey,
  parseSignInMessage,
  verifySignedFields,
  type SignedFields,
} from '@nrp/auth';
import { NETWORK_NAMES } from '@nrp/chain';
import type { Session } from '@nrp/api';
import { RequestValue } from '@nrp/server';
import { commonProblems, ProblemError } from '@nrp/validation';
import type { OffchainContext } from '../context';
import { deleteSession, findLiveSession, insertSession } from '../data/sessions';

export const SESSION_TOKEN_PREFIX = 'session';
/** The nonce scope of a sign-in (POST /api/v1/auth/nonce issues only this one). */
export const SESSION_SCOPE = 'session';

/** The signed-in address of a request (lower-case) and its session's token hash. */
export interface SignedInSession {
  address: string;
  tokenHash: string;
}

/** The session `requireSession` verified for this request. */
export const signedInSession = new RequestValue<SignedInSession>('the session requireSession verified');

type SessionContext = Pick<OffchainContext, 'db' | 'config' | 'providers' | 'nonces' | 'now'>;

/**
 * Verifies an EIP-4361 sign-in (the rules of every service: accepted domain, single-use nonce of scope `session`,
 * chain id of one of this service's networks — ERC-1271 wallets are checked on that network —, time fields, a
 * message that binds itself must name `{PUBLIC_BASE_URL}/api/v1/auth/session`) and opens a session: an opaque
 * token, stored as its SHA-256, valid for SESSION_TTL_SECONDS or until the message's Expiration Time.
 */
export async function signIn(ctx: SessionContext, fields: SignedFields): Promise<Session> {
  const { chainId } = parseSignInMessage(fields.siweMessage);
  const network = NETWORK_NAMES.find((name) => ctx.providers[name].config.chainId === chainId);
  if (!network) {
    const known = NETWORK_NAMES.map((name) => `${name} ${ctx.providers[name].config.chainId}`).join(', ');
    throw new ProblemError(
      authProblems.CHAIN_MISMATCH,
      `The message's chain id ${chainId} is not the chain id of a network of this service (${known}).`,
    );
  }
  const now = ctx.now();
  const base = ctx.config.PUBLIC_BASE_URL;
  const verified = await verifySignedFields(fields, {
    domains: ctx.config.SIWE_DOMAINS,
    chainId,
    scope: SESSION_SCOPE,
    binding: {
      resource: `${base}/api/v1/auth/session`,
      operation: 'session',
      operations: ['session'],
      serviceUrl: base,
    },
    nonces: ctx.nonces,
    provider: ctx.providers[network],
    now,
  });
  const ttlEnd = now.getTime() + ctx.config.SESSION_TTL_SECONDS * 1000;
  const expiresAt = Math.min(ttlEnd, verified.expirationTime?.getTime() ?? ttlEnd);
  const token = generateApiKey(SESSION_TOKEN_PREFIX);
  await insertSession(ctx.db, {
    tokenHash: hashApiKey(token),
    address: verified.address.toLowerCase(),
    expiresAt: new Date(expiresAt),
  });
  return { token, address: verified.address, expiresAt };
}

/** Middleware: 401 UNAUTHORIZED unless `Authorization: Bearer` carries a live session, read with `signedInSession.of(req)`. */
export function requireSession(ctx: Pick<OffchainContext, 'db' | 'now'>): RequestHandler {
  return async (req, res, next) => {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '');
    const token = match?.[1];
    if (!token) {
      throw new ProblemError(
        commonProblems.UNAUTHORIZED,
        'Send a session token as `Authorization: Bearer <token>` (POST /api/v1/auth/session).',
      );
    }
    const session =
      token.length <= 200 ? await findLiveSession(ctx.db, hashApiKey(token), ctx.now()) : undefined;
    if (!session) {
      throw new ProblemError(
        commonProblems.UNAUTHORIZED,
        'The session is unknown, ended or expired: sign in again.',
      );
    }
    signedInSession.set(req, { address: session.address, tokenHash: session.tokenHash });
    next();
  };
}

/** Ends the session at once: its token is refused from now on, by every replica. */
export function signOut(ctx: Pick<OffchainContext, 'db'>, session: SignedInSession): Promise<void> {
  return deleteSession(ctx.db, session.tokenHash);
}
