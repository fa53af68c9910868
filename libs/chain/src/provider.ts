import { AbiCoder, EnsPlugin, FetchRequest, JsonRpcProvider, Network, makeError } from 'ethers';
import { batchGatewayInterface } from './abis';
import { withDeadline } from './deadline';
import { CcipReadTimeoutError, CcipReadUrlRefusedError } from './errors';
import { outboundRequest, parseOutboundJson, type OutboundAnswer } from './outbound-request';
import { outboundUrlRefusal, type OutboundUrlPolicy } from './outbound-url-policy';
import { LOCAL_BATCH_GATEWAY_URL, type NetworkConfig } from './networks';

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
    // cacheTimeout 0: identical requests sent together share one round trip, but a later read sees the node's state,
    // not ethers' answer of up to 250 ms ago (a sign-in right after a smart account's deployment saw no code).
    super(request, network, { staticNetwork: network, cacheTimeout: 0 });
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
    // Aborted when the deadline passes, so no gateway request outlives the lookup.
    const deadline = new AbortController();
    const lookup = async (): Promise<string | null> => {
      if (urls.includes(LOCAL_BATCH_GATEWAY_URL)) return this.localBatchGateway(calldata, deadline.signal);
      const answer = await this.requestGateway(sender, calldata, urls, deadline.signal).catch(
        (err: unknown) => {
          throw err instanceof GatewayFailure ? toOffchainFault(err, tx, urls) : err;
        },
      );
      if (calldata.slice(0, 10).toLowerCase() === BATCH_QUERY_SELECTOR)
        checkBatchAnswer(calldata, answer, tx);
      return answer;
    };
    return withDeadline(lookup(), ms, () => {
      deadline.abort();
      return new CcipReadTimeoutError(`CCIP-Read gateway did not answer within ${ms}ms`);
    });
  }

  /**
   * ENSIP-21 batch gateway run in process: every query of `query((sender, urls, data)[])` is one EIP-3668 request
   * (under the URL policy and timeouts), in parallel; a failed one answers `HttpError(status, message)` for an
   * HTTP failure, else `Error(message)`, so the universal resolver reports it for that lookup only.
   */
  private async localBatchGateway(calldata: string, signal: AbortSignal): Promise<string> {
    const [queries] = batchGatewayInterface.decodeFunctionData('query', calldata) as unknown as [
      Array<[string, string[], string]>,
    ];
    const outcomes = await Promise.all(
      queries.map(async ([sender, urls, data]): Promise<[boolean, string]> => {
        try {
          if (urls.includes(LOCAL_BATCH_GATEWAY_URL)) {
            throw new GatewayFailure(undefined, 'nested local batch gateway requests are not followed');
          }
          return [false, await this.requestGateway(sender, data, urls, signal)];
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
   * One EIP-3668 request: each URL the policy allows in turn (GET when the template has `{data}`, else POST
   * `{ data, sender }`), through `outboundRequest` (DNS pinned to public addresses, at most GATEWAY_ANSWER_MAX_BYTES,
   * JSON depth-bounded); a 4xx ends the lookup, a 5xx, a redirect (never followed) or no answer tries the next URL.
   * No URL allowed: CcipReadUrlRefusedError. Failures are described in our words (`no answer`, `HTTP 503`, the
   * gateway's own message), never with a socket code or an address; the raw errors are the failure's `cause`.
   */
  private async requestGateway(
    sender: string,
    calldata: string,
    urls: readonly string[],
    signal: AbortSignal,
  ): Promise<string> {
    const policy = { allowedOrigins: this.config.ccipReadAllowedOrigins };
    const allowed = allowedUrls(urls, policy);
    const data = calldata.toLowerCase();
    const senderHex = sender.toLowerCase();
    const failures: string[] = [];
    const causes: unknown[] = [];
    let lastStatus: number | undefined;
    for (const url of allowed) {
      const post = !url.includes('{data}');
      let answer: OutboundAnswer;
      try {
        answer = await outboundRequest(url.replace('{sender}', senderHex).replace('{data}', data), {
          method: post ? 'POST' : 'GET',
          headers: { accept: 'application/json', ...(post ? { 'content-type': 'application/json' } : {}) },
          ...(post ? { body: JSON.stringify({ data, sender: senderHex }) } : {}),
          policy,
          signal,
          maxBytes: GATEWAY_ANSWER_MAX_BYTES,
        });
      } catch (err) {
        failures.push(err instanceof Error ? err.message : 'no answer');
        causes.push(err);
        continue;
      }
      const { status } = answer;
      if (status >= 300 && status < 400) {
        failures.push(`HTTP ${status}: redirect not followed`);
        continue;
      }
      let body: unknown;
      try {
        body = parseOutboundJson(answer.body);
      } catch {
        body = undefined;
      }
      if (status < 300 && typeof body === 'object' && body !== null && 'data' in body) {
        if (typeof body.data === 'string' && /^0x(?:[0-9a-fA-F]{2})*$/.test(body.data)) return body.data;
      }
      const message = messageOf(body) ?? (status < 300 ? 'answer without hex data' : `HTTP ${status}`);
      lastStatus = status < 300 ? undefined : status;
      if (status >= 400 && status < 500) throw new GatewayFailure(status, message, causes);
      failures.push(message);
    }
    throw new GatewayFailure(lastStatus, failures.join('; '), causes);
  }
}

/** A gateway's JSON answer larger than this is a failed request (EIP-3668 answers are a few KB). */
export const GATEWAY_ANSWER_MAX_BYTES = 1024 * 1024;

/** The URLs the policy allows from their text; none: CcipReadUrlRefusedError naming each with its reason. */
function allowedUrls(urls: readonly string[], policy: OutboundUrlPolicy): string[] {
  const allowed: string[] = [];
  const refused: string[] = [];
  for (const url of urls) {
    const refusal = outboundUrlRefusal(url, policy);
    if (refusal === null) allowed.push(url);
    else refused.push(`${url} (${refusal})`);
  }
  if (allowed.length === 0) {
    throw new CcipReadUrlRefusedError(`CCIP-Read gateway URL refused: ${refused.join('; ')}`);
  }
  return allowed;
}

const BATCH_QUERY_SELECTOR = batchGatewayInterface.getFunction('query')?.selector ?? '0xa780bab6';
const ERROR_STRING_SELECTOR = '0x08c379a0';

/** A gateway request failed: the last HTTP status when there was one, and what each URL answered. */
class GatewayFailure extends Error {
  constructor(
    readonly status: number | undefined,
    message: string,
    causes: unknown[] = [],
  ) {
    super(message, causes.length > 0 ? { cause: causes.length === 1 ? causes[0] : causes } : undefined);
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
      cause: failure,
    });
  }
  return makeError(
    `error encountered during CCIP fetch: ${JSON.stringify(failure.message)}`,
    'OFFCHAIN_FAULT',
    {
      reason: '500_SERVER_ERROR',
      transaction: tx,
      info: { urls, errorMessages: [failure.message] },
      cause: failure,
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
