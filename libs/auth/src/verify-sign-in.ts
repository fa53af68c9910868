import type { Provider } from 'ethers';
import { ProblemError } from '@nrp/validation';
import { checkSignInBinding, type SignInBinding } from './check-sign-in-binding';
import type { NonceStore } from './nonce-store';
import { parseSignInMessage } from './parse-sign-in-message';
import { authProblems } from './problems';
import { verifyMessageSignature, type SignatureKind } from './verify-message-signature';

export interface SignInInput {
  /** The EIP-4361 message text, exactly as signed. */
  message: string;
  /** Hex signature: 65-byte EIP-191 for an EOA, anything the wallet accepts for ERC-1271. */
  signature: string;
  /** The address the caller claims; compared case-insensitively with the message's address. */
  address: string;
}

export interface SignInContext {
  /** Accepted `host[:port]` values of the message's domain line (compared case-insensitively). */
  domains: readonly string[];
  chainId: number;
  /** The scope the operation needs, e.g. `avatar`; the nonce's scope must allow it. */
  scope: string;
  /** What the request acts on: a message that binds itself (Resources, or a URI of this service) must name it. */
  binding?: SignInBinding;
  nonces: NonceStore;
  /** For ERC-1271 contract wallets; without it only EOA signatures are accepted. */
  provider?: Provider;
  now?: Date;
  /** How far in the future `Issued At` (and `Not Before`) may be; default 60. */
  clockSkewSeconds?: number;
}

export interface VerifiedSignIn {
  /** EIP-55 checksummed. */
  address: string;
  chainId: number;
  nonce: string;
  domain: string;
  uri: string;
  issuedAt: Date;
  expirationTime?: Date;
  signatureKind: SignatureKind;
}

/** `host[:port]`, lower-case, from a domain or a URL-ish configured value; user info is dropped (a message's domain with user info is refused before). */
export function normalizeDomain(value: string): string {
  let authority = value.trim().toLowerCase();
  const scheme = authority.indexOf('://');
  if (scheme >= 0) authority = authority.slice(scheme + 3);
  authority = authority.split('/')[0] ?? '';
  const at = authority.lastIndexOf('@');
  return at >= 0 ? authority.slice(at + 1) : authority;
}

function fail(def: (typeof authProblems)[keyof typeof authProblems], detail: string): never {
  throw new ProblemError(def, detail);
}

/**
 * Verifies a Sign-In with Ethereum (EIP-4361) request and consumes its nonce. Checks, in order: the message
 * parses; `address` matches it; its binding to the request (when the context has one); domain; chain id; Expiration Time / Not Before / Issued At; the signature
 * (EOA, then ERC-1271); then the nonce is consumed atomically, so a request failing any earlier check never
 * uses up its nonce. Throws a 401 ProblemError from `authProblems` (502 when the RPC node fails).
 */
export async function verifySignIn(input: SignInInput, ctx: SignInContext): Promise<VerifiedSignIn> {
  const now = ctx.now ?? new Date();
  const skewMs = (ctx.clockSkewSeconds ?? 60) * 1000;
  const message = parseSignInMessage(input.message);

  if (input.address.toLowerCase() !== message.address.toLowerCase()) {
    fail(
      authProblems.ADDRESS_MISMATCH,
      `The address ${input.address} is not the message's address ${message.address}.`,
    );
  }

  // EIP-4361's domain is an RFC 3986 authority, so `evil@localhost:3001` parses; a wallet shows the user info
  // first, and the host after the `@` is not what the user reads as the requesting site.
  if (message.domain.includes('@')) {
    fail(
      authProblems.DOMAIN_MISMATCH,
      `The message's domain "${message.domain}" carries user info: only host[:port] is accepted.`,
    );
  }
  if (ctx.binding) checkSignInBinding(message, ctx.binding);

  const domain = normalizeDomain(message.domain);
  if (!ctx.domains.some((accepted) => normalizeDomain(accepted) === domain)) {
    fail(authProblems.DOMAIN_MISMATCH, `The message's domain "${message.domain}" is not accepted here.`);
  }

  if (message.chainId !== ctx.chainId) {
    fail(
      authProblems.CHAIN_MISMATCH,
      `The message's chain id ${message.chainId} is not this network's chain id ${ctx.chainId}.`,
    );
  }

  const nowMs = now.getTime();
  if (message.expirationTime && message.expirationTime.getTime() <= nowMs) {
    fail(
      authProblems.MESSAGE_EXPIRED,
      `The message expired: Expiration Time ${message.expirationTime.toISOString()} has passed.`,
    );
  }
  if (message.notBefore && message.notBefore.getTime() > nowMs + skewMs) {
    fail(
      authProblems.MESSAGE_EXPIRED,
      `The message is not valid yet: Not Before ${message.notBefore.toISOString()} has not been reached.`,
    );
  }
  if (message.issuedAt.getTime() > nowMs + skewMs) {
    fail(
      authProblems.MESSAGE_EXPIRED,
      `The message's Issued At ${message.issuedAt.toISOString()} is more than ${skewMs / 1000} s in the future.`,
    );
  }

  const signatureKind = await verifyMessageSignature(
    message.address,
    input.message,
    input.signature,
    ctx.provider,
  );
  if (!signatureKind) {
    fail(authProblems.INVALID_SIGNATURE, `The signature is not valid for ${message.address}.`);
  }

  await ctx.nonces.consume(message.nonce, message.address, ctx.scope, now);

  return {
    address: message.address,
    chainId: message.chainId,
    nonce: message.nonce,
    domain: message.domain,
    uri: message.uri,
    issuedAt: message.issuedAt,
    ...(message.expirationTime ? { expirationTime: message.expirationTime } : {}),
    signatureKind,
  };
}
