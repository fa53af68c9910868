/**
 * The problems resolver-svc answers. It has no codes of its own: bad input is INVALID_INPUT / INVALID_NAME (with
 * the parameter named in `errors`), and every RPC node or CCIP-Read gateway failure is 502 UPSTREAM_ERROR with
 * an `upstream: { message, code }` member carrying the upstream's own message and code unchanged.
 */
import { isUpstreamError, type UpstreamError } from '@nrp/chain';
import type { UpstreamDetail } from '@nrp/client';
import { z } from 'zod';
import { commonProblems, parsePart, ProblemError, toProblem } from '@nrp/validation';

export const nameRouteProblems = [
  commonProblems.INVALID_INPUT,
  commonProblems.INVALID_NAME,
  commonProblems.UPSTREAM_ERROR,
];
export const addressRouteProblems = [commonProblems.INVALID_INPUT, commonProblems.UPSTREAM_ERROR];
export const bulkRouteProblems = [commonProblems.INVALID_INPUT];

/** The JSON-RPC error object an RPC node answered (not a revert), when ethers kept it (`info.error` or `error`). */
function jsonRpcError(cause: unknown): { code: number; message: string } | undefined {
  if (typeof cause !== 'object' || cause === null) return undefined;
  const holder = cause as { info?: { error?: unknown }; error?: unknown };
  for (const candidate of [holder.info?.error, holder.error]) {
    if (typeof candidate !== 'object' || candidate === null) continue;
    const { code, message, data } = candidate as { code?: unknown; message?: unknown; data?: unknown };
    // A revert (error with data) is better described by the decoded revert the UpstreamError carries.
    if (typeof data === 'string' && data.length > 2) continue;
    if (typeof code === 'number' && typeof message === 'string') return { code, message };
  }
  return undefined;
}

/**
 * The upstream's own message and code: the node's JSON-RPC error when it answered one (e.g. -32000 and its
 * message), else the UpstreamError's (ethers code such as TIMEOUT or SERVER_ERROR, a gateway or revert reason).
 */
export function upstreamDetail(err: UpstreamError): UpstreamDetail {
  const rpc = jsonRpcError(err.cause);
  if (rpc) return rpc;
  return { message: err.upstreamMessage, code: err.upstreamCode ?? causeCode(err.cause) ?? null };
}

/** The first string `code` down the cause chain, e.g. a socket's ECONNREFUSED under a fetch error. */
function causeCode(cause: unknown): string | undefined {
  for (
    let current = cause, depth = 0;
    typeof current === 'object' && current !== null && depth < 5;
    depth++
  ) {
    const { code } = current as { code?: unknown };
    if (typeof code === 'string') return code;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

/** An UpstreamError becomes 502 UPSTREAM_ERROR with `upstream`; anything else is left to the error handler. */
export function upstreamProblem(err: unknown): unknown {
  if (!isUpstreamError(err)) return err;
  const upstream = upstreamDetail(err);
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
