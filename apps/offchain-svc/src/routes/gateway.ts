import type { Request, Response } from 'express';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { gatewayRequest, gatewayResponse } from '@nrp/api';
import {
  MAX_ANSWER_BYTES,
  createRateLimiter,
  defineRoute,
  sendRenderedJson,
  type RateLimitSpec,
  type RenderedJson,
  type RouteDefinition,
} from '@nrp/server';
import { commonProblems, ProblemError } from '@nrp/validation';
import { MAX_MULTICALL_CALLS, MAX_RESULT_BYTES } from '../gateway';
import { answerCcipRequest, cachedCcipAnswer, type GatewaySigning } from '../gateway-answers';
import { offchainProblems } from '../problems';
import type { OffchainContext } from '../context';
import { l2GatewayRoutes } from './l2-gateway';
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

export function gatewayRoutes(ctx: OffchainContext, options: GatewayOptions): RouteDefinition[] {
  const { caches, logger, config } = ctx;
  const signing: GatewaySigning = {
    signerKey: config.GATEWAY_SIGNER_KEY,
    ttlSeconds: config.GATEWAY_TTL_SECONDS,
    now: Date.now,
  };
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

  async function signed(
    req: Request,
    res: Response,
    sender: string,
    callData: string,
  ): Promise<RenderedJson> {
    try {
      const rendered = await answerCcipRequest(ctx, signing, {
        sender,
        callData,
        admit: countAgainstCeiling(req, res),
      });
      options.onAnswer?.('signed');
      return rendered;
    } catch (err) {
      options.onAnswer?.(err instanceof ProblemError ? err.code : 'error');
      throw err;
    }
  }

  /** A hot lookup is answered at once from the cache's rendered bytes, without a promise. */
  function answer(req: Request, res: Response, sender: string, callData: string): void | Promise<void> {
    const hot = signing.signerKey ? cachedCcipAnswer(caches.gateway, sender, callData) : undefined;
    if (hot) {
      options.onAnswer?.('signed');
      return sendRenderedJson(res, hot);
    }
    return signed(req, res, sender, callData).then((rendered) => sendRenderedJson(res, rendered));
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
      handler: ({ params }, req, res) => answer(req, res, params.sender, params.data),
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
      handler: ({ body }, req, res) => answer(req, res, body.sender, body.data),
    }),
    // The L2 gateway shares the ceiling and each client's share: one gateway to its callers.
    ...l2GatewayRoutes(ctx, { admitOf: countAgainstCeiling, clientShare, onAnswer: options.onAnswer }),
    ...proofRoutes(ctx, { admitOf: countAgainstCeiling, clientShare }),
  ];
}
