import { z } from 'zod';
import { gatewayRequest, gatewayResponse } from '@nrp/api';
import { MAX_ANSWER_BYTES, defineRoute, type RouteDefinition } from '@nrp/server';
import { commonProblems, ProblemError } from '@nrp/validation';
import { answerCcipRequest, type GatewaySigning } from '../gateway';
import { offchainProblems } from '../problems';
import type { OffchainContext } from '../context';

export interface GatewayOptions {
  signerKey?: string;
  ttlSeconds: number;
  /** One ceiling for all clients together (GATEWAY_RATE_LIMIT_PER_MINUTE). */
  rateLimitPerMinute: number;
  /** Clock in ms, for tests. */
  now?: () => number;
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

export function gatewayRoutes({ db }: OffchainContext, options: GatewayOptions): RouteDefinition[] {
  const signing: GatewaySigning = {
    signerKey: options.signerKey,
    ttlSeconds: options.ttlSeconds,
    now: options.now ?? Date.now,
  };

  async function answer(sender: string, callData: string): Promise<{ data: string }> {
    try {
      const signed = await answerCcipRequest(db, signing, sender, callData);
      options.onAnswer?.('signed');
      return signed;
    } catch (err) {
      options.onAnswer?.(err instanceof ProblemError ? err.code : 'error');
      throw err;
    }
  }

  const description =
    'EIP-3668 gateway for our SignedOffchainResolver (and ENS’s OffchainResolver, which verifies the same ' +
    'signatures): answers `resolve(bytes name, bytes data)` for addr(bytes32), addr(bytes32,uint256), ' +
    'text(bytes32,string), contenthash(bytes32) and multicall(bytes[]) of those (ENSIP-22: a whole profile in one ' +
    'request). The answer is `abi.encode(bytes result, uint64 expires, bytes signature)`, signed with the gateway ' +
    'key for `sender` (the resolver, or the universal resolver that re-raised the lookup; SignedOffchainResolver ' +
    'accepts both); `expires` is now + GATEWAY_TTL_SECONDS. A name the service does not hold answers every ' +
    'record as unset. The node inside `data` is not consulted: the DNS-encoded name decides. Rate limit: one ' +
    'ceiling of GATEWAY_RATE_LIMIT_PER_MINUTE requests for all clients together (default 60000, shared by ' +
    'replicas through Redis), not per client IP: batch gateways carry every user’s lookups from a few addresses.';
  const rateLimit = {
    name: 'gateway',
    windowMs: 60_000,
    limit: options.rateLimitPerMinute,
    key: () => 'all',
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
      rateLimit,
      handler: ({ params }) => answer(params.sender, params.data),
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
      rateLimit,
      handler: ({ body }) => answer(body.sender, body.data),
    }),
  ];
}
