/**
 * The problems resolver-svc answers. It has no codes of its own: bad input is INVALID_INPUT / INVALID_NAME (with
 * the parameter named in `errors`), and every RPC node or CCIP-Read gateway failure is 502 UPSTREAM_ERROR with
 * an `upstream: { message, code }` member carrying the upstream's own message and code unchanged.
 */
import type { UpstreamDetail } from '@nrp/api';
import { dependencyProblem } from '@nrp/server';
import { z } from 'zod';
import { commonProblems, parsePart, toProblem } from '@nrp/validation';

export const nameRouteProblems = [
  commonProblems.INVALID_INPUT,
  commonProblems.INVALID_NAME,
  commonProblems.UPSTREAM_ERROR,
];
export const addressRouteProblems = [commonProblems.INVALID_INPUT, commonProblems.UPSTREAM_ERROR];
export const bulkRouteProblems = [commonProblems.INVALID_INPUT];

/** The error entry of a bulk result for a failed item (what the single endpoint would have answered). */
export function bulkError(input: string, err: unknown) {
  const problem = toProblem(dependencyProblem(err));
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

/**
 * Validates item `index` of a bulk list parameter with the single endpoint's schema; a failure is the same
 * 400 problem, naming the item (`query.names.2`).
 */
export function parseBulkItem<T extends z.ZodType>(
  param: string,
  index: number,
  schema: T,
  input: string,
): z.output<T> {
  const key = `${param}.${index}`;
  const parsed = parsePart('query', z.object({ [key]: schema }), { [key]: input }) as Record<
    string,
    z.output<T>
  >;
  return parsed[key] as z.output<T>;
}
