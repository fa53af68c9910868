import { isUpstreamError, type UpstreamError } from '@nrp/chain';
import type { UpstreamDetail } from '@nrp/api';
// Deep imports: the error modules only, so a service without a database or blob storage (resolver-svc) does not
// load the PGlite, pg and S3 clients with the kit.
import { isDatabaseUnavailable } from '@nrp/db/src/errors';
import { StorageError } from '@nrp/storage/src/blob-store';
import { commonProblems, ProblemError } from '@nrp/validation';

/** `Retry-After` of a 503 for a database or blob storage that is unavailable: a restart or failover takes seconds. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

/** How every service answers when a dependency fails: the end of each service's OpenAPI description. */
export const DEPENDENCY_FAILURES_DESCRIPTION = `**When a dependency fails.** An RPC node, CCIP-Read gateway or peer \
service that fails answers 502 \`UPSTREAM_ERROR\` whose \`upstream\` member holds the upstream's own \`message\` and \
\`code\` (the node's JSON-RPC error code when it answered one). When nothing answered (DNS, connection, TLS, \
time-out) \`message\` says which dependency failed in our words (\`RPC node for sepolia unreachable\`) and \`code\` is \
UNREACHABLE or TIMEOUT: host names, addresses, ports and socket codes go to the logs only. A \
database or blob storage that is unreachable or shutting down answers 503 \`SERVICE_UNAVAILABLE\` with \
\`Retry-After: ${DEPENDENCY_RETRY_AFTER_SECONDS}\` (seconds), and \`/ready\` fails meanwhile; the service \
reconnects by itself when it is back. While Redis is down, rate limits count per replica and caches per process.`;

/**
 * The one mapping of dependency failures to problems, applied by every service's error handler (so routes only
 * declare the codes they can answer):
 * - an RPC node, CCIP-Read gateway or peer service failing (UpstreamError) → 502 UPSTREAM_ERROR with `upstream`;
 * - the database unreachable or shutting down → 503 SERVICE_UNAVAILABLE with `Retry-After`;
 * - blob storage failing (StorageError) → 503 SERVICE_UNAVAILABLE with `Retry-After`.
 * Anything else is returned unchanged.
 */
export function dependencyProblem(err: unknown): unknown {
  if (err instanceof ProblemError) return err;
  if (isUpstreamError(err)) {
    return new ProblemError(commonProblems.UPSTREAM_ERROR, err.message, {
      extensions: { upstream: upstreamDetail(err) },
      cause: err,
    });
  }
  if (isDatabaseUnavailable(err)) return unavailable('The database is not available.', err);
  if (err instanceof StorageError) return unavailable('Blob storage is not available.', err);
  return err;
}

function unavailable(detail: string, cause: unknown): ProblemError {
  return new ProblemError(commonProblems.SERVICE_UNAVAILABLE, `${detail} Retry later.`, {
    headers: { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) },
    cause,
  });
}

/**
 * The upstream's own message and code: the node's JSON-RPC error when it answered one (e.g. -32000 and its
 * message), else the UpstreamError's (ethers code such as SERVER_ERROR, a gateway or revert reason, or UNREACHABLE /
 * TIMEOUT in our words when nothing answered). Never a code found deeper in the cause chain (a socket's).
 */
export function upstreamDetail(err: UpstreamError): UpstreamDetail {
  const rpc = jsonRpcError(err.cause);
  if (rpc) return rpc;
  return { message: err.upstreamMessage, code: err.upstreamCode ?? null };
}

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
