import { isUpstreamError } from '@nrp/chain';
import { StorageError } from '@nrp/storage';
import { commonProblems, ProblemError } from '@nrp/validation';

/** Maps failures of dependencies to their problems: RPC/gateway/offchain → 502, blob storage → 503. */
export function toDependencyProblem(err: unknown): unknown {
  if (isUpstreamError(err)) {
    return new ProblemError(commonProblems.UPSTREAM_ERROR, err.message, {
      extensions: { upstream: { message: err.upstreamMessage, code: err.upstreamCode ?? null } },
      cause: err,
    });
  }
  if (err instanceof StorageError) {
    return new ProblemError(commonProblems.SERVICE_UNAVAILABLE, 'Image storage is not available.', {
      cause: err,
    });
  }
  return err;
}

/** Runs `fn`, rethrowing dependency failures as problems. */
export async function withDependencyProblems<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw toDependencyProblem(err);
  }
}
