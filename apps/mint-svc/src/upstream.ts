import { isUpstreamError } from '@nrp/chain';
import { commonProblems, ProblemError } from '@nrp/validation';

/** Runs `fn`; an RPC failure (UpstreamError) becomes a 502 UPSTREAM_ERROR carrying the node's message and code. */
export async function withUpstream<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    if (!isUpstreamError(err)) throw err;
    throw new ProblemError(commonProblems.UPSTREAM_ERROR, err.message, {
      cause: err,
      extensions: { upstream: { message: err.upstreamMessage, code: err.upstreamCode ?? null } },
    });
  }
}
