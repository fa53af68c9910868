/**
 * Proofs for ProvenL2Resolver (libs/contracts/README.md, “Proven L2 subnames”): one prover per L2, built on
 * `@unruggable/gateways`, proving only our L2 registries of that L2 against the roots its rollup posted on L1.
 * Nothing is signed and nothing is cached here but the latest root (L2_PROOF_COMMIT_POLL_MS) and the package's own
 * answers per root: a proof is checked on L1, so it needs no trust in this service.
 */
import {
  L2ProofNotServedError,
  L2ProofRequestError,
  createL2Prover,
  parseL2ProofRequest,
  l2ProofRollupsFromEnv,
  settlementOf,
  toUpstreamError,
  type L2NetworkName,
  type L2NetworksConfig,
  type L2Prover,
  type L2ProofRequest,
  type L2Providers,
  type NetworkProviders,
} from '@nrp/chain';
import { DEPENDENCY_RETRY_AFTER_SECONDS } from '@nrp/server';
import { commonProblems, defineProblems, ProblemError, type ProblemDef } from '@nrp/validation';
import type { Config } from '../config';
import { offchainProblems } from '../problems';

export const proofProblems = defineProblems({
  INVALID_PROOF_REQUEST: {
    status: 400,
    title: 'Invalid proof request',
    hint: 'Send the `proveRequest(bytes context, (bytes) request)` callData of a ProvenL2Resolver lookup (EIP-3668).',
  },
  L2_CONTRACT_NOT_SERVED: {
    status: 404,
    title: 'L2 contract not served',
    hint: 'This prover proves only our L2Registry contracts of that L2 (`<L2>_L2_REGISTRIES`); run your own prover (`npm run prover`) for others.',
  },
});

export type L2Provers = Record<L2NetworkName, L2Prover>;

/** One prover per L2: the L2's provider, the provider of the L1 it settles on, the rollup from the env. */
export function createL2Provers(
  config: Config,
  l2Networks: L2NetworksConfig,
  l1Providers: NetworkProviders,
  l2Providers: L2Providers,
): L2Provers {
  const rollups = l2ProofRollupsFromEnv(config);
  const build = (network: L2NetworkName) =>
    createL2Prover({
      l1: l1Providers[settlementOf(network)],
      l2: l2Providers[network],
      rollup: rollups[network],
      commitPollMs: config.L2_PROOF_COMMIT_POLL_MS,
      servedContracts: l2Networks[network].registries,
    });
  return { base: build('base'), 'base-sepolia': build('base-sepolia') };
}

/** EIP-3668 clients read `message`; `detail` says the same to everyone else. */
function problem(def: ProblemDef, detail: string, options: { cause?: unknown; retry?: boolean } = {}) {
  return new ProblemError(def, detail, {
    extensions: { message: detail },
    ...(options.retry ? { headers: { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) } } : {}),
    cause: options.cause,
  });
}

/**
 * The proofs answering one lookup, checked first (400 for what is not a proof request, before `admit` counts it
 * against the gateway ceiling), then proven: 404 for one reading another contract than
 * our registries, 503 when the L1 or L2 RPC does not answer, 502 when it answers an error or garbage. Proofs a
 * lying RPC node gave are answered as they are: the resolver's callback refuses them on L1.
 */
export async function proveLookup(
  provers: L2Provers,
  network: L2NetworkName,
  sender: string,
  callData: string,
  admit: () => Promise<void>,
): Promise<{ data: string }> {
  let request: L2ProofRequest;
  try {
    request = parseL2ProofRequest(sender, callData);
  } catch (err) {
    if (err instanceof L2ProofRequestError) throw problem(proofProblems.INVALID_PROOF_REQUEST, err.message);
    throw err;
  }
  await admit();
  try {
    return { data: await provers[network].prove(request) };
  } catch (err) {
    if (err instanceof L2ProofNotServedError)
      throw problem(proofProblems.L2_CONTRACT_NOT_SERVED, err.message);
    const upstream = toUpstreamError(`proving on ${network}`, err);
    if (upstream.upstreamCode === 'UNREACHABLE' || upstream.upstreamCode === 'TIMEOUT')
      throw problem(offchainProblems.L2_UNAVAILABLE, `${upstream.message}. No proof.`, {
        cause: err,
        retry: true,
      });
    throw problem(commonProblems.UPSTREAM_ERROR, `${upstream.message}. No proof.`, { cause: err });
  }
}
