/**
 * An RPC node or a CCIP-Read gateway failed (unreachable, timed out, answered an error or garbage).
 * Services map it to 502 `UPSTREAM_ERROR`; "no resolver" / "no record" is never an UpstreamError.
 */
export class UpstreamError extends Error {
  override name = 'UpstreamError';
  readonly code = 'UPSTREAM_ERROR' as const;
  /** The upstream's own error code (ethers code such as OFFCHAIN_FAULT, a revert name), or UNREACHABLE / TIMEOUT. */
  readonly upstreamCode: string | undefined;
  /** What the upstream answered, unchanged; when nothing answered, what failed in our words. */
  readonly upstreamMessage: string;

  constructor(message: string, opts: { upstreamCode?: string; upstreamMessage: string; cause?: unknown }) {
    super(message, { cause: opts.cause });
    this.upstreamCode = opts.upstreamCode;
    this.upstreamMessage = opts.upstreamMessage;
  }
}

export function isUpstreamError(err: unknown): err is UpstreamError {
  return err instanceof UpstreamError;
}

/** Codes of failures where nothing answered: a socket's (ECONNREFUSED, ENOTFOUND, …), TLS's, or ethers' TIMEOUT. */
const NO_ANSWER_CODE =
  /^(E[A-Z0-9_]+|ERR_(TLS|SSL|SOCKET|NON_PUBLIC)_[A-Z0-9_]+|CERT_[A-Z0-9_]+|UNABLE_TO_[A-Z0-9_]+|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|TIMEOUT|UND_ERR_[A-Z0-9_]+)$/;

/**
 * `TIMEOUT` or `UNREACHABLE` when nothing answered: the first error down the cause chain that carries a code (or
 * is a TimeoutError) decides, so a gateway failure that an RPC answer wraps (OFFCHAIN_FAULT) is not one.
 */
export function noAnswerCode(err: unknown): 'TIMEOUT' | 'UNREACHABLE' | undefined {
  for (let current = err, depth = 0; typeof current === 'object' && current !== null && depth < 6; depth++) {
    const { code, name } = current as { code?: unknown; name?: unknown };
    if (code === 'TIMEOUT' || code === 'ETIMEDOUT' || name === 'TimeoutError') return 'TIMEOUT';
    if (typeof code === 'string') return NO_ANSWER_CODE.test(code) ? 'UNREACHABLE' : undefined;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/**
 * Wraps any error from a provider call into an UpstreamError. What the upstream answered keeps ethers' code and
 * short message; when nothing answered (DNS, connection, TLS, time-out) the message says which dependency failed
 * in our words (`RPC node for sepolia unreachable`), with code UNREACHABLE or TIMEOUT: host names, addresses,
 * ports and socket codes stay in `cause`, for the logs.
 */
export function toUpstreamError(context: string, err: unknown, dependency = 'RPC node'): UpstreamError {
  if (err instanceof UpstreamError) return err;
  if (err instanceof CcipReadTimeoutError) {
    return new UpstreamError(`${context}: ${err.message}`, {
      upstreamCode: err.code,
      upstreamMessage: err.message,
    });
  }
  const noAnswer = noAnswerCode(err);
  if (noAnswer) {
    const upstreamMessage = `${dependency} ${noAnswer === 'TIMEOUT' ? 'did not answer in time' : 'unreachable'}`;
    return new UpstreamError(`${context}: ${upstreamMessage}`, {
      upstreamCode: noAnswer,
      upstreamMessage,
      cause: err,
    });
  }
  let upstreamCode: string | undefined;
  let upstreamMessage = String(err);
  if (err instanceof Error) {
    upstreamMessage = err.message;
    const withCode = err as Error & { code?: unknown; shortMessage?: unknown };
    if (typeof withCode.code === 'string') upstreamCode = withCode.code;
    if (typeof withCode.shortMessage === 'string') upstreamMessage = withCode.shortMessage;
  }
  return new UpstreamError(`${context}: ${upstreamMessage}`, { upstreamCode, upstreamMessage, cause: err });
}

/** A CCIP-Read gateway URL the outbound URL policy refuses; services map it to 502 like any gateway failure. */
export class CcipReadUrlRefusedError extends Error {
  override name = 'CcipReadUrlRefusedError';
  readonly code = 'CCIP_READ_URL_REFUSED' as const;
}

/** A CCIP-Read lookup (all its gateway requests) that outlived its time budget. */
export class CcipReadTimeoutError extends Error {
  override name = 'CcipReadTimeoutError';
  readonly code = 'TIMEOUT' as const;
}
