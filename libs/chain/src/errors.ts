/**
 * An RPC node or a CCIP-Read gateway failed (unreachable, timed out, answered an error or garbage).
 * Services map it to 502 `UPSTREAM_ERROR`; "no resolver" / "no record" is never an UpstreamError.
 */
export class UpstreamError extends Error {
  override name = 'UpstreamError';
  readonly code = 'UPSTREAM_ERROR' as const;
  /** The upstream's own error code (ethers code such as TIMEOUT, OFFCHAIN_FAULT, or a revert name). */
  readonly upstreamCode: string | undefined;
  /** The upstream's own message, unchanged. */
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

/** Wraps any error from a provider call into an UpstreamError (keeps ethers' code and short message). */
export function toUpstreamError(context: string, err: unknown): UpstreamError {
  if (err instanceof UpstreamError) return err;
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
