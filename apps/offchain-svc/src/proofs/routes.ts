import type { Request, Response } from 'express';
import { z } from 'zod';
import { gatewayRequest, gatewayResponse } from '@nrp/api';
import { L2_NETWORK_NAMES } from '@nrp/chain';
import { MAX_ANSWER_BYTES, defineRoute, type RateLimitSpec, type RouteDefinition } from '@nrp/server';
import { commonProblems } from '@nrp/validation';
import type { OffchainContext } from '../context';
import { offchainProblems } from '../problems';
import { proofProblems, proveLookup } from './provers';

/** What the proof route shares with the other gateway routes: the one ceiling and each client's share. */
export interface ProofRouteOptions {
  /** Counts a request against the gateway ceiling (rejects past it). */
  admitOf: (req: Request, res: Response) => () => Promise<void>;
  clientShare: RateLimitSpec;
}

const description =
  'EIP-3668 gateway of ProvenL2Resolver, the L1 resolver of an L2 parent that trusts no key of ours ' +
  '(libs/contracts/README.md, “Proven L2 subnames”): the resolver is deployed with this URL (no `{data}`: ' +
  'clients POST `{ sender, data }`), `data` being `proveRequest(bytes context, (bytes) request)` as the ' +
  '`@unruggable/gateways` fetch target encodes it. The answer `{ data }` is the Merkle-Patricia proofs of the ' +
  'storage the request reads (holder, registration, the asked records of our L2Registry on `network`) at the L2 ' +
  'output root the request names (or the newest one this prover has read, if older), with that root’s proof; ' +
  'the resolver’s callback verifies them against the root the rollup posted on L1, so nothing here is trusted ' +
  'and nothing is signed. Anyone can run the same prover (`npm run prover`).\n\n' +
  '**Which roots.** The latest posted root is read from L1 at most every L2_PROOF_COMMIT_POLL_MS; the rollup is ' +
  'the fault-dispute games Base posts (by default the registry’s respected game type and unchallenged games at ' +
  'least an hour old, read by `<L2>_PROOF_GAME_FINDER`: `<L2>_PROOF_GAME_TYPES`, `<L2>_PROOF_MIN_AGE_SECONDS`, ' +
  'as its verifier was deployed), or an ' +
  'L2OutputOracle when `<L2>_PROOF_OPTIMISM_PORTAL` and `<L2>_PROOF_OUTPUT_FINDER` are set (the dev ' +
  'stack). The verifier on L1 refuses proofs against a root more than its window older than the latest.\n\n' +
  '**Refusals.** 400 `INVALID_PROOF_REQUEST` for callData that is not a proof request; 404 ' +
  '`L2_CONTRACT_NOT_SERVED` for a request reading any contract other than our registries of that L2 ' +
  '(`<L2>_L2_REGISTRIES`); 503 `L2_UNAVAILABLE` when the L1 or L2 RPC node does not answer, 502 ' +
  '`UPSTREAM_ERROR` when it answers an error or garbage: never a proof of something else. Every problem carries ' +
  '`message` (what EIP-3668 clients show).\n\n' +
  '**Rate limits.** Those of the other gateway routes: each client IP’s GATEWAY_CLIENT_RATE_LIMIT_PER_MINUTE, and ' +
  'every proof request counts against the one ceiling GATEWAY_RATE_LIMIT_PER_MINUTE.';

export function proofRoutes(ctx: OffchainContext, options: ProofRouteOptions): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/proofs/:network',
      operationId: 'l2ProofRequest',
      budget: { bodyBytes: 256 * 1024, answerBytes: MAX_ANSWER_BYTES, timeMs: 25_000 },
      summary: 'Storage proofs of an L2 name’s records (CCIP-Read, POST)',
      description,
      tags: ['ccip-read'],
      params: z.object({
        network: z.enum(L2_NETWORK_NAMES).meta({ description: 'The L2 the registry is on.' }),
      }),
      body: gatewayRequest,
      responses: { 200: { description: 'The proofs.', schema: gatewayResponse } },
      problems: [
        commonProblems.INVALID_INPUT,
        proofProblems.INVALID_PROOF_REQUEST,
        proofProblems.L2_CONTRACT_NOT_SERVED,
        offchainProblems.L2_UNAVAILABLE,
        commonProblems.UPSTREAM_ERROR,
      ],
      rateLimit: options.clientShare,
      handler: ({ params, body }, req, res) =>
        proveLookup(ctx.l2Provers, params.network, body.sender, body.data, options.admitOf(req, res)),
    }),
  ];
}
