/**
 * The prover behind ProvenL2Resolver (libs/contracts/README.md, “Proven L2 subnames”): an EIP-3668 gateway built on
 * `@unruggable/gateways` (its Gateway and OP rollup classes) that answers `proveRequest(context, request)` with
 * Merkle-Patricia proofs of an L2's storage against an output root the rollup posted on L1. It holds no key and
 * its answers need no trust: the L1 verifier checks every proof, so anyone may run one (offchain-svc does, and so
 * does `npm run prover`).
 */
import { isAddress, isHexString, type JsonRpcApiProvider } from 'ethers';
import { GATEWAY_ABI, Gateway, OPFaultRollup, OPRollup, type Rollup } from '@unruggable/gateways';
import type { L2NetworkName } from '@nrp/ens';

/** Where the L2's state commitments are on L1, and which ones the prover proves against. */
export type L2ProofRollupConfig =
  | {
      /** OP-stack L2OutputOracle behind an OptimismPortal (the dev stack's rollup): OPVerifier + OPOutputFinder. */
      kind: 'op-output-oracle';
      optimismPortal: string;
      outputFinder: string;
      /** Only outputs at least this old (seconds); 0: the oracle's finalization period. */
      minAgeSec: number;
      /** The L1 block the prover reads the latest output at: `finalized` on real chains, `latest` on anvil. */
      l1BlockTag: 'latest' | 'finalized';
    }
  | {
      /** OP fault-dispute games (Base, Base Sepolia): OPFaultVerifier + OPFaultGameFinder. */
      kind: 'op-fault';
      anchorStateRegistry: string;
      gameFinder: string;
      /** 0: only finalized games; otherwise unfinalized games at least this old (seconds). */
      minAgeSec: number;
      /** Accepted game types; empty: the registry's respected game type. */
      gameTypes: readonly number[];
    };

export interface L2ProverOptions {
  l1: JsonRpcApiProvider;
  l2: JsonRpcApiProvider;
  rollup: L2ProofRollupConfig;
  /** How long the latest posted commitment is cached before the L1 is asked again. */
  commitPollMs: number;
}

/** A request the prover refuses (not `proveRequest`, not decodable): the client's fault, never retried. */
export class L2ProofRequestError extends Error {
  override name = 'L2ProofRequestError';
}

export interface L2Prover {
  /**
   * The answer to an EIP-3668 request `data` from `sender` (the resolver, or a universal resolver relaying it):
   * the ABI-encoded proofs of the request at the commitment it names (or the newest one the prover has, if older).
   * Throws L2ProofRequestError for a bad request; any other error is the L1 or L2 RPC failing.
   */
  prove(sender: string, data: string): Promise<string>;
}

function rollupOf({ l1, l2, rollup }: L2ProverOptions): Rollup {
  const providers = { provider1: l1, provider2: l2 };
  if (rollup.kind === 'op-output-oracle') {
    const op = new OPRollup(
      providers,
      { OptimismPortal: rollup.optimismPortal, OutputFinder: rollup.outputFinder },
      rollup.minAgeSec,
    );
    op.latestBlockTag = rollup.l1BlockTag;
    return op;
  }
  const fault = new OPFaultRollup(
    providers,
    { AnchorStateRegistry: rollup.anchorStateRegistry, GameFinder: rollup.gameFinder },
    rollup.minAgeSec,
  );
  fault.gameTypes = rollup.gameTypes.map(BigInt);
  return fault;
}

const PROVE_REQUEST = GATEWAY_ABI.getFunction('proveRequest');

/** Refuses what is not `proveRequest(bytes context, (bytes ops) request)` from an address, before any RPC call. */
function checkRequest(sender: string, data: string): void {
  if (!isAddress(sender)) throw new L2ProofRequestError('sender is not an address');
  if (!isHexString(data) || !PROVE_REQUEST || !data.toLowerCase().startsWith(PROVE_REQUEST.selector))
    throw new L2ProofRequestError('data is not a proveRequest(bytes,(bytes)) call');
  try {
    GATEWAY_ABI.decodeFunctionData(PROVE_REQUEST, data);
  } catch {
    throw new L2ProofRequestError('data does not decode as proveRequest(bytes,(bytes))');
  }
}

export function createL2Prover(options: L2ProverOptions): L2Prover {
  const gateway = new Gateway(rollupOf(options));
  gateway.latestCache.cacheMs = options.commitPollMs;
  return {
    async prove(sender, data) {
      checkRequest(sender, data);
      const { data: answer } = await gateway.handleRead(sender, data, { protocol: 'raw' });
      return answer;
    },
  };
}

/**
 * What Base and Base Sepolia post on L1: OP fault-dispute games (the package's AnchorStateRegistry and
 * OPFaultGameFinder addresses for each). Accepted: the registry's respected game type (no list of our own), and
 * games at least `minAgeSec` old that nobody challenged, unfinalized; 0 would wait for finalized games (about 7
 * days on Base: 3.5 days of game clock, then 3.5 days of finality delay), which is too late for records.
 */
export const L2_FAULT_PROOF_ROLLUPS = {
  base: {
    kind: 'op-fault',
    anchorStateRegistry: OPFaultRollup.baseMainnetConfig.AnchorStateRegistry,
    gameFinder: OPFaultRollup.baseMainnetConfig.GameFinder,
    minAgeSec: 3600,
    gameTypes: [],
  },
  'base-sepolia': {
    kind: 'op-fault',
    anchorStateRegistry: OPFaultRollup.baseSepoliaConfig.AnchorStateRegistry,
    gameFinder: OPFaultRollup.baseSepoliaConfig.GameFinder,
    minAgeSec: 3600,
    gameTypes: [],
  },
} as const satisfies Record<L2NetworkName, L2ProofRollupConfig>;
