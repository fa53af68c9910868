import { z } from 'zod';
import { UpstreamError } from '@nrp/chain';

/** The members of an offchain subname record this service reads. */
const offchainSubnameSchema = z.object({
  fullName: z.string(),
  namehash: z.string(),
  owner: z.string().nullish(),
  createdAt: z.union([z.string(), z.number()]).nullish(),
});

export type OffchainSubname = z.output<typeof offchainSubnameSchema>;

export interface OffchainClient {
  /** The subname by its full name, or null when the offchain service does not know it. */
  byName(fullName: string): Promise<OffchainSubname | null>;
  /** The subname by its namehash (0x + 64 hex), or null. */
  byNamehash(node: string): Promise<OffchainSubname | null>;
}

/**
 * Reads the offchain subname service's HTTP API (`GET /api/v1/subnames/{fullSubname}` and
 * `/api/v1/subnames/namehash/{namehash}`). A 404 is "unknown"; anything else that is not a 200 record, or no
 * answer within `timeoutMs`, is an UpstreamError (502).
 */
export function createOffchainClient(baseUrl: string | undefined, timeoutMs: number): OffchainClient {
  const get = async (path: string): Promise<OffchainSubname | null> => {
    if (!baseUrl) return null;
    const url = `${baseUrl.replace(/\/+$/, '')}${path}`;
    let response: Response;
    try {
      response = await fetch(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.timeout(timeoutMs),
      });
    } catch (err) {
      const message = err instanceof Error ? err.message : String(err);
      throw new UpstreamError(`offchain subname service unreachable: ${message}`, {
        upstreamMessage: message,
        upstreamCode: 'OFFCHAIN_UNREACHABLE',
        cause: err,
      });
    }
    if (response.status === 404) {
      await response.body?.cancel();
      return null;
    }
    const text = await response.text();
    if (!response.ok) {
      throw new UpstreamError(`offchain subname service answered ${response.status}`, {
        upstreamMessage: text.slice(0, 500),
        upstreamCode: `HTTP_${response.status}`,
      });
    }
    const parsed = offchainSubnameSchema.safeParse(safeJson(text));
    if (!parsed.success) {
      throw new UpstreamError('offchain subname service answered an unexpected body', {
        upstreamMessage: parsed.error.message,
        upstreamCode: 'BAD_BODY',
      });
    }
    return parsed.data;
  };
  return {
    byName: (fullName) => get(`/api/v1/subnames/${encodeURIComponent(fullName)}`),
    byNamehash: (node) => get(`/api/v1/subnames/namehash/${node}`),
  };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
