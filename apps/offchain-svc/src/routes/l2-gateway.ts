import type { Request, Response } from 'express';
import { z } from 'zod';
import { gatewayRequest, gatewayResponse } from '@nrp/api';
import { L2_NETWORK_NAMES } from '@nrp/chain';
import {
  MAX_ANSWER_BYTES,
  defineRoute,
  sendRenderedJson,
  type RateLimitSpec,
  type RenderedJson,
  type RouteDefinition,
} from '@nrp/server';
import { commonProblems, lowerCaseAddress, ProblemError } from '@nrp/validation';
import type { OffchainContext } from '../context';
import { MAX_MULTICALL_CALLS, MAX_RESULT_BYTES } from '../gateway';
import {
  answerL2Request,
  cachedL2Answer,
  checkServedRegistry,
  type L2CcipRequest,
} from '../l2-gateway-answers';
import { offchainProblems } from '../problems';

/** What the L2 routes share with the offchain gateway: its ceiling, each client's share, the answer metric. */
export interface L2GatewayOptions {
  /** Counts a request that needs a read against the one gateway ceiling (rejects past it). */
  admitOf: (req: Request, res: Response) => () => Promise<void>;
  clientShare: RateLimitSpec;
  onAnswer?: (outcome: string) => void;
}

const TAG = ['ccip-read'];
const problems = [
  commonProblems.INVALID_INPUT,
  offchainProblems.INVALID_CCIP_REQUEST,
  offchainProblems.UNSUPPORTED_RESOLVER_CALL,
  offchainProblems.L2_REGISTRY_NOT_SERVED,
  commonProblems.UPSTREAM_ERROR,
  offchainProblems.L2_UNAVAILABLE,
  offchainProblems.L2_STALE,
  offchainProblems.GATEWAY_NOT_CONFIGURED,
];

const target = {
  network: z.enum(L2_NETWORK_NAMES).meta({ description: 'The L2 the registry is on.' }),
  registry: lowerCaseAddress.meta({
    description: 'One of our L2Registry contracts on that L2 (`<L2>_L2_REGISTRIES`).',
  }),
};

export function l2GatewayRoutes(ctx: OffchainContext, options: L2GatewayOptions): RouteDefinition[] {
  const { l2Gateway: gateway, config } = ctx;

  async function signed(req: Request, res: Response, request: L2CcipRequest): Promise<RenderedJson> {
    try {
      const rendered = await answerL2Request(gateway, { ...request, admit: options.admitOf(req, res) });
      options.onAnswer?.('signed');
      return rendered;
    } catch (err) {
      options.onAnswer?.(err instanceof ProblemError ? err.code : 'error');
      throw err;
    }
  }

  /** An unserved registry is refused first; a hot lookup is answered at once from the cache's rendered bytes, without a promise. */
  function answer(req: Request, res: Response, request: L2CcipRequest): void | Promise<void> {
    checkServedRegistry(gateway, request);
    const hot = gateway.signing.signerKey ? cachedL2Answer(gateway, request) : undefined;
    if (hot) {
      options.onAnswer?.('signed');
      return sendRenderedJson(res, hot);
    }
    return signed(req, res, request).then((rendered) => sendRenderedJson(res, rendered));
  }

  const cacheSeconds = config.L2_ANSWER_CACHE_MS / 1000;
  const description =
    'EIP-3668 gateway for the L2NameResolver of a parent whose subnames live on an L2 (see libs/contracts/README.md, ' +
    '“Subnames on an L2”): the resolver is deployed with this URL, naming the L2 `network` and its L2Registry ' +
    '`registry` (one of `<L2>_L2_REGISTRIES`, else 404 `L2_REGISTRY_NOT_SERVED`). It answers `resolve(bytes name, ' +
    'bytes data)` for addr(bytes32), addr(bytes32,uint256), text(bytes32,string), contenthash(bytes32) and ' +
    `multicall(bytes[]) of those (ENSIP-22: a whole profile in one request; at most ${MAX_MULTICALL_CALLS} calls, a ` +
    `result of at most ${MAX_RESULT_BYTES} bytes, else 400 \`UNSUPPORTED_RESOLVER_CALL\`), as the offchain gateway ` +
    'does.\n\n' +
    '**What is read, and when.** Each record call is read on the registry itself with the same selector and ' +
    'arguments, the node replaced by namehash(the DNS-encoded name): the name decides, not the node inside `data`. ' +
    'A name the registry does not hold (or holds expired) answers every record empty, signed; a name that does not ' +
    'normalise answers every record empty without a read. All reads of one request are made at ONE block: the L2 ' +
    'RPC node’s latest block is fetched first, then every `eth_call` at that block number, sent together (one JSON-RPC batch per ' +
    '100 calls).\n\n' +
    '**Staleness bound.** The latest block must be at most L2_MAX_BLOCK_AGE_SECONDS old ' +
    `(now ${config.L2_MAX_BLOCK_AGE_SECONDS} s), else 503 \`L2_STALE\`. Signed answers are kept per replica for ` +
    `the identical request (network, registry, sender, callData) for L2_ANSWER_CACHE_MS (now ${cacheSeconds} s, ` +
    'one Base block by default), in at most ANSWER_CACHE_MB of memory, so an answer reflects the L2 as it was at ' +
    `most ${config.L2_MAX_BLOCK_AGE_SECONDS + cacheSeconds} s before it was served (block age + cache). Undecodable ` +
    'callData and failed reads are never cached.\n\n' +
    '**Trust.** The answer is `abi.encode(bytes result, uint64 expires, bytes signature)` signed with the gateway key ' +
    '(GATEWAY_SIGNER_KEY, the same key and digest as the offchain gateway) for `sender`, `expires` = signing time + ' +
    'GATEWAY_TTL_SECONDS. The L1 resolver trusts whatever this key signs; the L2 state is not proven on L1 ' +
    '(libs/contracts/README.md, “What is trusted”). So a doubtful read is never signed: the L2 RPC node unreachable ' +
    'or timing out is 503 `L2_UNAVAILABLE` with `Retry-After` (seconds); a latest block lower than one this replica already ' +
    'saw from that L2 (a node lying about, or lagging in, block height), an RPC error, or an `eth_call` answer that ' +
    'is not the exact ABI encoding of the function’s result (wrong length, bad offsets, an address word with ' +
    'nonzero high bytes, a text that is not UTF-8) is 502 `UPSTREAM_ERROR`. Every problem carries `message` (what ' +
    'EIP-3668 clients show); host names and socket codes are never in it.\n\n' +
    '**Rate limits.** Shared with the offchain gateway: each client IP’s GATEWAY_CLIENT_RATE_LIMIT_PER_MINUTE, and ' +
    'every lookup that is read from the L2 (not cached, not refused as invalid) counts against the one ceiling ' +
    'GATEWAY_RATE_LIMIT_PER_MINUTE.';
  return [
    defineRoute({
      method: 'get',
      path: '/api/v1/gateway/l2/:network/:registry/:sender/:data.json',
      operationId: 'l2CcipReadGet',
      budget: { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 25_000 },
      summary: 'CCIP-Read lookup of an L2 name (GET)',
      description,
      tags: TAG,
      params: z.object({ ...target, sender: gatewayRequest.shape.sender, data: gatewayRequest.shape.data }),
      responses: { 200: { description: 'Signed answer.', schema: gatewayResponse } },
      problems,
      rateLimit: options.clientShare,
      handler: ({ params }, req, res) => answer(req, res, { ...params, callData: params.data }),
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/gateway/l2/:network/:registry',
      operationId: 'l2CcipReadPost',
      budget: { bodyBytes: 256 * 1024, answerBytes: MAX_ANSWER_BYTES, timeMs: 25_000 },
      summary: 'CCIP-Read lookup of an L2 name (POST)',
      description,
      tags: TAG,
      params: z.object(target),
      body: gatewayRequest,
      responses: { 200: { description: 'Signed answer.', schema: gatewayResponse } },
      problems,
      rateLimit: options.clientShare,
      handler: ({ params, body }, req, res) =>
        answer(req, res, { ...params, sender: body.sender, callData: body.data }),
    }),
  ];
}
