/**
 * The problems resolver-svc answers. It has no codes of its own: bad input is INVALID_INPUT / INVALID_NAME (with
 * the parameter named in `errors`), and every RPC node or CCIP-Read gateway failure is 502 UPSTREAM_ERROR with
 * an `upstream: { message, code }` member carrying the upstream's own message and code unchanged.
 */
import { isUpstreamError } from '@nrp/chain';
import type { UpstreamDetail } from '@nrp/client';
import { commonProblems, ProblemError, toProblem } from '@nrp/validation';

export const nameRouteProblems = [
  commonProblems.INVALID_INPUT,
  commonProblems.INVALID_NAME,
  commonProblems.UPSTREAM_ERROR,
];
export const addressRouteProblems = [commonProblems.INVALID_INPUT, commonProblems.UPSTREAM_ERROR];
export const bulkRouteProblems = [commonProblems.INVALID_INPUT];

/** An UpstreamError becomes 502 UPSTREAM_ERROR with `upstream`; anything else is left to the error handler. */
export function upstreamProblem(err: unknown): unknown {
  if (!isUpstreamError(err)) return err;
  const upstream: UpstreamDetail = { message: err.upstreamMessage, code: err.upstreamCode ?? null };
  return new ProblemError(commonProblems.UPSTREAM_ERROR, err.message, {
    extensions: { upstream },
    cause: err,
  });
}

/** Runs a resolution, turning upstream failures into the 502 problem. */
export async function orUpstreamProblem<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (err) {
    throw upstreamProblem(err);
  }
}

/** The error entry of a bulk result for a failed item (what the single endpoint would have answered). */
export function bulkError(input: string, err: unknown) {
  const problem = toProblem(upstreamProblem(err));
  const upstream = problem.extensions.upstream as UpstreamDetail | undefined;
  return {
    type: 'error' as const,
    input,
    status: problem.status,
    code: problem.code,
    detail: problem.message,
    ...(upstream ? { upstream } : {}),
  };
}
