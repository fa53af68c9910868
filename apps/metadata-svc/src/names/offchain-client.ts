import {
  createOffchainClient as createTypedClient,
  offchainResponseSchemas,
  ServiceError,
  UNEXPECTED_RESPONSE,
  type OffchainSubname,
} from '@nrp/client';
import { UpstreamError } from '@nrp/chain';

export type { OffchainSubname } from '@nrp/client';

/** What this service reads from the offchain subname service: a subname, or null when it is unknown (404). */
export interface OffchainClient {
  byName(fullName: string): Promise<OffchainSubname | null>;
  /** By namehash (0x + 64 hex). */
  byNamehash(node: string): Promise<OffchainSubname | null>;
}

/**
 * `@nrp/client`'s offchain client with a 404 read as "unknown" (null), every other failure — an error status, a
 * body that is not a subname record, no answer within `timeoutMs` — as an UpstreamError (502). Without a base URL
 * every name is unknown.
 */
export function createOffchainClient(baseUrl: string | undefined, timeoutMs: number): OffchainClient {
  if (!baseUrl) return { byName: async () => null, byNamehash: async () => null };
  const client = createTypedClient({
    baseUrl,
    responseSchemas: offchainResponseSchemas,
    fetch: (input, init) => fetch(input, { ...init, signal: AbortSignal.timeout(timeoutMs) }),
  });
  const orNull = async (read: () => Promise<OffchainSubname>): Promise<OffchainSubname | null> => {
    try {
      return await read();
    } catch (err) {
      if (err instanceof ServiceError && err.status === 404) return null;
      throw offchainFailure(err);
    }
  };
  return {
    byName: (fullName) => orNull(() => client.getSubname(fullName)),
    byNamehash: (node) => orNull(() => client.getSubnameByNamehash(node)),
  };
}

function offchainFailure(err: unknown): UpstreamError {
  const message =
    typeof err === 'object' && err !== null && 'message' in err ? String(err.message) : String(err);
  if (err instanceof ServiceError) {
    return new UpstreamError(`offchain subname service answered ${err.status}`, {
      upstreamMessage: message.slice(0, 500),
      upstreamCode: err.code === UNEXPECTED_RESPONSE ? `HTTP_${err.status}` : err.code,
      cause: err,
    });
  }
  // fetch rejects with a TypeError (network) or a TimeoutError (the signal); zod throws a ZodError for a body
  // that is not a record. By name: the fetch errors come from another realm.
  const name = typeof err === 'object' && err !== null && 'name' in err ? String(err.name) : '';
  const unreachable = name === 'TypeError' || name === 'TimeoutError' || name === 'AbortError';
  // Nothing answered: what failed in our words; the fetch error (host, socket code) stays in `cause`, for the logs.
  if (unreachable) {
    return new UpstreamError('offchain subname service unreachable', {
      upstreamMessage: 'offchain subname service unreachable',
      upstreamCode: 'OFFCHAIN_UNREACHABLE',
      cause: err,
    });
  }
  return new UpstreamError(`offchain subname service answered an unexpected body: ${message.slice(0, 200)}`, {
    upstreamMessage: message.slice(0, 500),
    upstreamCode: 'BAD_BODY',
    cause: err,
  });
}
