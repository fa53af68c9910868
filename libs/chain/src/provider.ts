import { EnsPlugin, FetchRequest, JsonRpcProvider, Network, makeError } from 'ethers';
import { CcipReadUrlRefusedError } from './errors';
import { checkOutboundUrl } from './outbound-url-policy';
import type { NetworkConfig } from './networks';

class TimeoutError extends Error {
  readonly code = 'TIMEOUT';
}

type CcipTx = Parameters<JsonRpcProvider['ccipReadFetch']>[0];

function messageOf(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null || !('message' in body)) return undefined;
  return typeof body.message === 'string' ? body.message : undefined;
}

/**
 * JsonRpcProvider with a static network (no eth_chainId round trip), ENS pointed at the configured registry,
 * CCIP-Read enabled under a URL policy (`outbound-url-policy.ts`: https to public hosts unless the origin is in
 * `config.ccipReadAllowedOrigins`; redirects are not followed), and a timeout on every RPC request and on every
 * CCIP-Read gateway fetch.
 */
export class ChainProvider extends JsonRpcProvider {
  readonly config: NetworkConfig;

  constructor(config: NetworkConfig) {
    const request = new FetchRequest(config.rpcUrl);
    request.timeout = config.rpcTimeoutMs;
    const network = new Network(config.name, config.chainId);
    network.attachPlugin(new EnsPlugin(config.ens.ensRegistry, config.chainId));
    super(request, network, { staticNetwork: network });
    this.config = config;
    this.disableCcipRead = false;
  }

  override async ccipReadFetch(tx: CcipTx, calldata: string, urls: string[]): Promise<string | null> {
    if (this.disableCcipRead || urls.length === 0 || tx.to == null) return null;
    const policy = { allowedOrigins: this.config.ccipReadAllowedOrigins };
    const allowed: string[] = [];
    const refused: string[] = [];
    for (const url of urls) {
      const refusal = await checkOutboundUrl(url, policy);
      if (refusal === null) allowed.push(url);
      else refused.push(`${url} (${refusal})`);
    }
    if (allowed.length === 0) {
      throw new CcipReadUrlRefusedError(`CCIP-Read gateway URL refused: ${refused.join('; ')}`);
    }
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () =>
          reject(new TimeoutError(`CCIP-Read gateway did not answer within ${this.config.rpcTimeoutMs}ms`)),
        this.config.rpcTimeoutMs,
      );
    });
    try {
      return await Promise.race([this.fetchGateways(tx, calldata, allowed), timeout]);
    } finally {
      clearTimeout(timer);
    }
  }

  /**
   * EIP-3668 client: each URL in turn (GET when the template has `{data}`, else POST `{ data, sender }`); a 4xx
   * ends the lookup, a 5xx or network error tries the next URL. Redirects are failures (they could lead to a
   * host the policy refuses). Errors are ethers' OFFCHAIN_FAULT, as without the policy.
   */
  private async fetchGateways(tx: CcipTx, calldata: string, urls: string[]): Promise<string> {
    const sender = String(tx.to).toLowerCase();
    const data = calldata.toLowerCase();
    const failures: string[] = [];
    for (const url of urls) {
      const request = new FetchRequest(url.replace('{sender}', sender).replace('{data}', data));
      request.timeout = this.config.rpcTimeoutMs;
      if (!url.includes('{data}')) request.body = { data, sender };
      const defaultGetUrl = request.getUrlFunc;
      request.getUrlFunc = async (req, signal) => {
        const response = await defaultGetUrl(req, signal);
        if (response.statusCode >= 300 && response.statusCode < 400) {
          throw new Error(`redirect to ${String(response.headers.location)} not followed`);
        }
        return response;
      };
      let status: number;
      let body: unknown;
      try {
        const response = await request.send();
        status = response.statusCode;
        try {
          body = response.bodyJson;
        } catch {
          body = undefined;
        }
      } catch (err) {
        failures.push(err instanceof Error ? err.message : String(err));
        continue;
      }
      if (
        typeof body === 'object' &&
        body !== null &&
        'data' in body &&
        typeof body.data === 'string' &&
        body.data
      ) {
        return body.data;
      }
      const message = messageOf(body) ?? 'unknown error';
      if (status >= 400 && status < 500) {
        throw makeError(`response not found during CCIP fetch: ${message}`, 'OFFCHAIN_FAULT', {
          reason: '404_MISSING_RESOURCE',
          transaction: tx,
          info: { url, errorMessage: message },
        });
      }
      failures.push(message);
    }
    throw makeError(
      `error encountered during CCIP fetch: ${failures.map((m) => JSON.stringify(m)).join(', ')}`,
      'OFFCHAIN_FAULT',
      { reason: '500_SERVER_ERROR', transaction: tx, info: { urls, errorMessages: failures } },
    );
  }
}

export function createProvider(config: NetworkConfig): ChainProvider {
  return new ChainProvider(config);
}
