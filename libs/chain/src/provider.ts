import { AbiCoder, EnsPlugin, FetchRequest, JsonRpcProvider, Network, makeError } from 'ethers';
import { Agent as HttpAgent } from 'node:http';
import { Agent as HttpsAgent } from 'node:https';
import { batchGatewayInterface } from './abis';
import { withDeadline } from './deadline';
import { CcipReadUrlRefusedError } from './errors';
import { checkOutboundUrl } from './outbound-url-policy';
import { LOCAL_BATCH_GATEWAY_URL, type NetworkConfig } from './networks';

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
 * `config.ccipReadAllowedOrigins`; redirects are not followed), an ENSIP-21 batch gateway of its own for
 * `x-batch-gateway:true`, and a timeout on every RPC request and on every CCIP-Read lookup.
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

  /**
   * EIP-3668 fetch for a lookup of `tx.to`. `x-batch-gateway:true` among the URLs: this provider is the ENSIP-21
   * batch gateway (`localBatchGateway`). Otherwise the URLs go through the URL policy, and the answer of a remote
   * batch gateway is checked before it reaches the contract. The whole lookup is bounded by `rpcTimeoutMs`.
   */
  override async ccipReadFetch(tx: CcipTx, calldata: string, urls: string[]): Promise<string | null> {
    if (this.disableCcipRead || urls.length === 0 || tx.to == null) return null;
    const sender = String(tx.to);
    const ms = this.config.rpcTimeoutMs;
    const lookup = async (): Promise<string | null> => {
      if (urls.includes(LOCAL_BATCH_GATEWAY_URL)) return this.localBatchGateway(calldata);
      const answer = await this.requestGateway(sender, calldata, urls).catch((err: unknown) => {
        throw err instanceof GatewayFailure ? toOffchainFault(err, tx, urls) : err;
      });
      if (calldata.slice(0, 10).toLowerCase() === BATCH_QUERY_SELECTOR)
        checkBatchAnswer(calldata, answer, tx);
      return answer;
    };
    return withDeadline(
      lookup(),
      ms,
      () => new TimeoutError(`CCIP-Read gateway did not answer within ${ms}ms`),
    );
  }

  /**
   * ENSIP-21 batch gateway run in process: every query of `query((sender, urls, data)[])` is one EIP-3668 request
   * (under the URL policy and timeouts), in parallel; a failed one answers `HttpError(status, message)` for an
   * HTTP failure, else `Error(message)`, so the universal resolver reports it for that lookup only.
   */
  private async localBatchGateway(calldata: string): Promise<string> {
    const [queries] = batchGatewayInterface.decodeFunctionData('query', calldata) as unknown as [
      Array<[string, string[], string]>,
    ];
    const outcomes = await Promise.all(
      queries.map(async ([sender, urls, data]): Promise<[boolean, string]> => {
        try {
          if (urls.includes(LOCAL_BATCH_GATEWAY_URL)) {
            throw new GatewayFailure(undefined, 'nested local batch gateway requests are not followed');
          }
          return [false, await this.requestGateway(sender, data, urls)];
        } catch (err) {
          return [true, encodeGatewayError(err)];
        }
      }),
    );
    return batchGatewayInterface.encodeFunctionResult('query', [
      outcomes.map(([failed]) => failed),
      outcomes.map(([, response]) => response),
    ]);
  }

  /**
   * One EIP-3668 request: each allowed URL in turn (GET when the template has `{data}`, else POST
   * `{ data, sender }`); a 4xx ends the lookup, a 5xx or network error tries the next URL. Redirects are failures
   * (they could lead to a host the policy refuses). No URL allowed: CcipReadUrlRefusedError.
   */
  private async requestGateway(sender: string, calldata: string, urls: readonly string[]): Promise<string> {
    const allowed = await this.allowedUrls(urls);
    const data = calldata.toLowerCase();
    const senderHex = sender.toLowerCase();
    const failures: string[] = [];
    let lastStatus: number | undefined;
    for (const url of allowed) {
      const request = new FetchRequest(url.replace('{sender}', senderHex).replace('{data}', data));
      request.timeout = this.config.rpcTimeoutMs;
      if (!url.includes('{data}')) request.body = { data, sender: senderHex };
      const defaultGetUrl = FetchRequest.createGetUrlFunc({
        agent: request.url.startsWith('https:') ? gatewayAgents.https : gatewayAgents.http,
      });
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
      if (status < 300 && typeof body === 'object' && body !== null && 'data' in body) {
        if (typeof body.data === 'string' && /^0x(?:[0-9a-fA-F]{2})*$/.test(body.data)) return body.data;
      }
      const message = messageOf(body) ?? (status < 300 ? 'answer without hex data' : `HTTP ${status}`);
      lastStatus = status < 300 ? undefined : status;
      if (status >= 400 && status < 500) throw new GatewayFailure(status, message);
      failures.push(message);
    }
    throw new GatewayFailure(lastStatus, failures.join('; '));
  }

  private async allowedUrls(urls: readonly string[]): Promise<string[]> {
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
    return allowed;
  }
}

const BATCH_QUERY_SELECTOR = batchGatewayInterface.getFunction('query')?.selector ?? '0xa780bab6';
const ERROR_STRING_SELECTOR = '0x08c379a0';

/**
 * Connection pools of the gateway requests. An idle keep-alive socket is dropped after 2 s, before the usual 5 s
 * keep-alive timeout of a server could close it just as a request reuses it (ECONNRESET under bursts).
 */
const gatewayAgents = {
  http: new HttpAgent({ keepAlive: true, timeout: 2_000 }),
  https: new HttpsAgent({ keepAlive: true, timeout: 2_000 }),
};

/** A gateway request failed: the last HTTP status when there was one, and what each URL answered. */
class GatewayFailure extends Error {
  constructor(
    readonly status: number | undefined,
    message: string,
  ) {
    super(message);
  }
}

/** The failure data a batch gateway answers for one query (what viem's local batch gateway answers too). */
function encodeGatewayError(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  if (err instanceof GatewayFailure && err.status !== undefined) {
    return batchGatewayInterface.encodeErrorResult('HttpError', [err.status, message]);
  }
  return ERROR_STRING_SELECTOR + AbiCoder.defaultAbiCoder().encode(['string'], [message]).slice(2);
}

/** ethers' OFFCHAIN_FAULT, as its own CCIP-Read client raises it. */
function toOffchainFault(failure: GatewayFailure, tx: CcipTx, urls: string[]): Error {
  if (failure.status !== undefined && failure.status >= 400 && failure.status < 500) {
    return makeError(`response not found during CCIP fetch: ${failure.message}`, 'OFFCHAIN_FAULT', {
      reason: '404_MISSING_RESOURCE',
      transaction: tx,
      info: { url: urls.join(', '), errorMessage: failure.message },
    });
  }
  return makeError(
    `error encountered during CCIP fetch: ${JSON.stringify(failure.message)}`,
    'OFFCHAIN_FAULT',
    {
      reason: '500_SERVER_ERROR',
      transaction: tx,
      info: { urls, errorMessages: [failure.message] },
    },
  );
}

/** A remote batch gateway's answer must be `(bool[], bytes[])` with one entry per query. */
function checkBatchAnswer(calldata: string, answer: string, tx: CcipTx): void {
  let valid = false;
  try {
    const [queries] = batchGatewayInterface.decodeFunctionData('query', calldata) as unknown as [unknown[]];
    const [failures, responses] = batchGatewayInterface.decodeFunctionResult('query', answer) as unknown as [
      unknown[],
      unknown[],
    ];
    valid = failures.length === queries.length && responses.length === queries.length;
  } catch {
    valid = false;
  }
  if (!valid) {
    throw makeError('batch gateway answered garbage (not one result per query)', 'OFFCHAIN_FAULT', {
      reason: '500_SERVER_ERROR',
      transaction: tx,
      info: { answer: answer.slice(0, 200) },
    });
  }
}

export function createProvider(config: NetworkConfig): ChainProvider {
  return new ChainProvider(config);
}
