import type { Request, Response } from 'express';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { gatewayRequest, gatewayResponse } from '@nrp/api';
import { L2_NETWORK_NAMES } from '@nrp/chain';
import {
  MAX_ANSWER_BYTES,
  createRateLimiter,
  defineRoute,
  sendRenderedJson,
  type RateLimitSpec,
  type RouteDefinition,
} from '@nrp/server';
import { commonProblems, lowerCaseAddress, ProblemError } from '@nrp/validation';
import {
  answerRequest,
  cachedAnswer,
  checkServedRegistry,
  l2Answers,
  offchainAnswers,
  type AnswerSource,
  type CcipRequest,
} from './answers';
import { MAX_MULTICALL_CALLS, MAX_RESULT_BYTES } from './lookup';
import { offchainProblems } from '../problems';
import type { OffchainContext } from '../context';
import { proofRoutes } from '../proofs/routes';

/** What the gateway routes use besides the context. */
export interface GatewayOptions {
  /** Shares both rate-limit counters between replicas. */
  redis?: Redis;
  /** Told the outcome of every answer: `signed`, or the problem's code (for the gateway metrics). */
  onAnswer?: (outcome: string) => void;
}

const TAG = ['ccip-read'];
const problems = [
  commonProblems.INVALID_INPUT,
  offchainProblems.INVALID_CCIP_REQUEST,
  offchainProblems.UNSUPPORTED_RESOLVER_CALL,
  offchainProblems.GATEWAY_NOT_CONFIGURED,
];
const l2Problems = [
  commonProblems.INVALID_INPUT,
  offchainProblems.INVALID_CCIP_REQUEST,
  offchainProblems.UNSUPPORTED_RESOLVER_CALL,
  offchainProblems.L2_REGISTRY_NOT_SERVED,
  commonProblems.UPSTREAM_ERROR,
  offchainProblems.L2_UNAVAILABLE,
  offchainProblems.L2_STALE,
  offchainProblems.GATEWAY_NOT_CONFIGURED,
];

const l2Target = {
  network: z.enum(L2_NETWORK_NAMES).meta({ description: 'The L2 the registry is on.' }),
  registry: lowerCaseAddress.meta({
    description: 'One of our L2Registry contracts on that L2 (`<L2>_L2_REGISTRIES`).',
  }),
};

/**
 * The CCIP-Read gateway of offchain names and the one of L2 names: one signing key and clock, one answer path, one
 * ceiling and one per-client share (one gateway to its callers).
 */
export function gatewayRoutes(ctx: OffchainContext, options: GatewayOptions): RouteDefinition[] {
  const { gatewaySigning: signing, l2Gateway, logger, config } = ctx;
  const offchain = offchainAnswers(ctx.caches.gateway, ctx.gatewayReads);
  const l2 = l2Answers(l2Gateway);
  const ceiling = createRateLimiter(
    'offchain-svc',
    { name: 'gateway', windowMs: 60_000, limit: config.GATEWAY_RATE_LIMIT_PER_MINUTE, key: () => 'all' },
    logger,
    options.redis,
  );
  const countAgainstCeiling = (req: Request, res: Response) => () =>
    new Promise<void>((resolve, reject) => {
      ceiling(req, res, (err?: unknown) => (err ? reject(err) : resolve()));
    });

  /**
   * Answers a lookup of either gateway: a hot one at once from the cache's rendered bytes, without a promise; a cold
   * one through `answerRequest`, counted against the ceiling. Every outcome is told to `onAnswer`.
   */
  function answer<R extends CcipRequest>(
    source: AnswerSource<R>,
    request: R,
    req: Request,
    res: Response,
  ): void | Promise<void> {
    const hot = signing.signerKey ? cachedAnswer(source, request) : undefined;
    if (hot) {
      options.onAnswer?.('signed');
      return sendRenderedJson(res, hot);
    }
    return answerRequest(signing, source, request, countAgainstCeiling(req, res)).then(
      (rendered) => {
        options.onAnswer?.('signed');
        sendRenderedJson(res, rendered);
      },
      (err: unknown) => {
        options.onAnswer?.(err instanceof ProblemError ? err.code : 'error');
        throw err;
      },
    );
  }

  const description =
    'EIP-3668 gateway for our SignedOffchainResolver (and ENS’s OffchainResolver, which verifies the same ' +
    'signatures): answers `resolve(bytes name, bytes data)` for addr(bytes32), addr(bytes32,uint256), ' +
    'text(bytes32,string), contenthash(bytes32) and multicall(bytes[]) of those (ENSIP-22: a whole profile in one ' +
    `request; at most ${MAX_MULTICALL_CALLS} calls, and a result of at most ${MAX_RESULT_BYTES} bytes, else 400 ` +
    '`UNSUPPORTED_RESOLVER_CALL`: split the multicall). The answer is `abi.encode(bytes result, uint64 expires, ' +
    'bytes signature)`, signed with the gateway key for `sender` (the resolver, or the universal resolver that ' +
    're-raised the lookup; SignedOffchainResolver accepts both); `expires` is the signing time + ' +
    'GATEWAY_TTL_SECONDS. A name the service does not hold answers every record as unset. The node inside `data` ' +
    'is not consulted: the DNS-encoded name decides.\n\n' +
    `**Cache.** Signed answers are kept per replica, keyed by sender and callData, for ANSWER_CACHE_SECONDS ` +
    `(now ${config.ANSWER_CACHE_SECONDS} s, always less than GATEWAY_TTL_SECONDS, so a cached answer is served ` +
    'with at least GATEWAY_TTL_SECONDS − ANSWER_CACHE_SECONDS of validity left), in at most ANSWER_CACHE_MB of ' +
    'memory. Every committed write of a subname (create, update, bulk, delete) drops its answers in this replica ' +
    'before the write is answered, and in every other replica through Redis pub/sub when REDIS_URL is set; a ' +
    'failed write drops nothing. If a message is lost, a stale answer is served for at most ANSWER_CACHE_SECONDS. ' +
    'A new answer enters a probation fifth of the cache and is kept only when asked for again, so a flood of ' +
    'distinct callData cannot evict the answers of names in use; callData that fails to decode is never cached. ' +
    'Lookups not in the cache share reads: a lookup joins a read of its name already in flight in this replica ' +
    'unless a write of subnames committed here since that read began, and the names asked for together are read ' +
    'in one query, so a lookup made after a write was answered never sees the record before it.\n\n' +
    '**Rate limits.** Batch gateways carry many users’ lookups from a few addresses, so the gateway is not limited ' +
    'to an ordinary per-IP share: each client IP may use GATEWAY_CLIENT_RATE_LIMIT_PER_MINUTE (default 15000, a ' +
    'quarter of the ceiling: a batch gateway gets through, a few clients cannot take everything), and every ' +
    'lookup that reaches the database (or, on the L2 gateway, the L2) counts against one ceiling of ' +
    'GATEWAY_RATE_LIMIT_PER_MINUTE for all clients ' +
    'together (default 60000). Both are shared by replicas through Redis. A request refused as invalid counts ' +
    'against its client’s share only, never the ceiling, and answers served from the cache do not count against ' +
    'the ceiling: a flood of bad requests from some addresses limits those addresses, not the others.';
  const clientShare: RateLimitSpec = {
    name: 'gateway-client',
    windowMs: 60_000,
    limit: config.GATEWAY_CLIENT_RATE_LIMIT_PER_MINUTE,
    replacesGlobal: true,
  };

  const cacheSeconds = config.L2_ANSWER_CACHE_MS / 1000;
  const l2Description =
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
      path: '/api/v1/gateway/:sender/:data.json',
      operationId: 'ccipReadGet',
      budget: { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 10_000 },
      summary: 'CCIP-Read lookup (GET)',
      description,
      tags: TAG,
      params: z.object({ sender: gatewayRequest.shape.sender, data: gatewayRequest.shape.data }),
      responses: { 200: { description: 'Signed answer.', schema: gatewayResponse } },
      problems,
      rateLimit: clientShare,
      handler: ({ params }, req, res) =>
        answer(offchain, { sender: params.sender, callData: params.data }, req, res),
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/gateway',
      operationId: 'ccipReadPost',
      budget: { bodyBytes: 256 * 1024, answerBytes: MAX_ANSWER_BYTES, timeMs: 10_000 },
      summary: 'CCIP-Read lookup (POST)',
      description,
      tags: TAG,
      body: gatewayRequest,
      responses: { 200: { description: 'Signed answer.', schema: gatewayResponse } },
      problems,
      rateLimit: clientShare,
      handler: ({ body }, req, res) =>
        answer(offchain, { sender: body.sender, callData: body.data }, req, res),
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/gateway/l2/:network/:registry/:sender/:data.json',
      operationId: 'l2CcipReadGet',
      budget: { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 25_000 },
      summary: 'CCIP-Read lookup of an L2 name (GET)',
      description: l2Description,
      tags: TAG,
      params: z.object({ ...l2Target, sender: gatewayRequest.shape.sender, data: gatewayRequest.shape.data }),
      responses: { 200: { description: 'Signed answer.', schema: gatewayResponse } },
      problems: l2Problems,
      rateLimit: clientShare,
      handler: ({ params }, req, res) => {
        checkServedRegistry(l2Gateway, params);
        return answer(l2, { ...params, callData: params.data }, req, res);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/gateway/l2/:network/:registry',
      operationId: 'l2CcipReadPost',
      budget: { bodyBytes: 256 * 1024, answerBytes: MAX_ANSWER_BYTES, timeMs: 25_000 },
      summary: 'CCIP-Read lookup of an L2 name (POST)',
      description: l2Description,
      tags: TAG,
      params: z.object(l2Target),
      body: gatewayRequest,
      responses: { 200: { description: 'Signed answer.', schema: gatewayResponse } },
      problems: l2Problems,
      rateLimit: clientShare,
      handler: ({ params, body }, req, res) => {
        checkServedRegistry(l2Gateway, params);
        return answer(l2, { ...params, sender: body.sender, callData: body.data }, req, res);
      },
    }),
    // Proofs for ProvenL2Resolver share the ceiling and each client's share too.
    ...proofRoutes(ctx, { admitOf: countAgainstCeiling, clientShare }),
  ];
}
