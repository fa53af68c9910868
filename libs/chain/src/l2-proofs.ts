/**
 * The prover behind ProvenL2Resolver (libs/contracts/README.md, “Proven L2 subnames”): an EIP-3668 gateway built on
 * `@unruggable/gateways` (its Gateway and OP rollup classes) that answers `proveRequest(context, request)` with
 * Merkle-Patricia proofs of an L2's storage against an output root the rollup posted on L1. It holds no key and
 * its answers need no trust: the L1 verifier checks every proof, so anyone may run one (offchain-svc does, and so
 * does `npm run prover`).
 */
import type { JsonRpcApiProvider } from 'ethers';
import {
  decodeFunctionData,
  getAddress,
  isAddress,
  isHex,
  keccak256,
  parseAbi,
  size,
  slice,
  type Address,
  type Hex,
} from 'viem';
import { z } from 'zod';
import {
  CallbackError,
  Gateway,
  LRU,
  OPFaultRollup,
  OPRollup,
  isTargetNeed,
  type Rollup,
  type RollupCommit,
  type AbstractProver,
} from '@unruggable/gateways';
import { perL2Network, type L2NetworkName } from '@nrp/ens';
import { ethAddress } from '@nrp/validation';
import { envPrefix } from './networks';

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
      /** Dispute games (Base, Base Sepolia): OPFaultVerifier + a game finder with OPFaultGameFinder's ABI. */
      kind: 'op-fault';
      anchorStateRegistry: string;
      /** The finder the L1 verifier was deployed with (our DisputeGameFinder for Base's games since Azul). */
      gameFinder: string;
      /** 0: only games resolved for the proposer; otherwise also unchallenged games at least this old (seconds). */
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
  /** When given, the only L2 contracts it proves (our registries): a request reading another is refused. */
  servedContracts?: readonly string[];
}

/** A request the prover refuses (not `proveRequest`, not decodable): the client's fault, never retried. */
export class L2ProofRequestError extends Error {
  override name = 'L2ProofRequestError';
}

/** A request that reads an L2 contract the prover does not serve (`servedContracts`). */
export class L2ProofNotServedError extends Error {
  override name = 'L2ProofNotServedError';
}

/** A `proveRequest(bytes context, (bytes ops) request)` lookup, parsed once (`parseL2ProofRequest`). */
export interface L2ProofRequest {
  /** The resolver that raised it (or a universal resolver relaying it). */
  sender: Address;
  /** The rollup commitment (output or game index) the lookup names: the context's first word. */
  commitIndex: bigint;
  /** The package's encoded request program. */
  ops: Hex;
}

export interface L2Prover {
  /**
   * The answer to an EIP-3668 proof request: the ABI-encoded proofs of the request at the commitment it names (or
   * the newest one the prover has, if older). Throws L2ProofNotServedError for one reading a contract not served;
   * any other error is the L1 or L2 RPC failing.
   */
  prove(request: L2ProofRequest): Promise<Hex>;
}

/** The package's rollup a prover proves against (its OPRollup or OPFaultRollup, configured from `rollup`). */
export function createL2ProofRollup({
  l1,
  l2,
  rollup,
}: Pick<L2ProverOptions, 'l1' | 'l2' | 'rollup'>): OPRollup | OPFaultRollup {
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

const PROVE_REQUEST_ABI = parseAbi(['function proveRequest(bytes context, (bytes ops) request)']);

/**
 * The lookup in `data` from `sender`, or L2ProofRequestError unless `data` is `proveRequest(bytes context, (bytes
 * ops) request)` from an address with a commitment index in its context: what a prover checks first, before any
 * RPC call. viem decodes it: the package's own dispatcher decodes with ethers, which took 150 us a request.
 */
export function parseL2ProofRequest(sender: string, data: string): L2ProofRequest {
  if (!isAddress(sender, { strict: false })) throw new L2ProofRequestError('sender is not an address');
  if (!isHex(data, { strict: true })) throw new L2ProofRequestError('data is not hex');
  let args: readonly [Hex, { ops: Hex }];
  try {
    ({ args } = decodeFunctionData({ abi: PROVE_REQUEST_ABI, data }));
  } catch {
    throw new L2ProofRequestError('data is not a proveRequest(bytes,(bytes)) call');
  }
  const [context, { ops }] = args;
  if (size(context) < 32) throw new L2ProofRequestError('the context names no commitment');
  return { sender: getAddress(sender), commitIndex: BigInt(slice(context, 0, 32)), ops };
}

/**
 * Refuses, before any proof is fetched, to prove storage of a contract outside `served`: the package evaluates the
 * request first (reading values without proofs), then proves what it needs, target by target.
 */
function onlyServed(served: readonly string[]): (commit: RollupCommit<AbstractProver>) => void {
  const allowed = new Set(served.map((address) => address.toLowerCase()));
  return (commit) => {
    const prove = commit.prover.prove.bind(commit.prover);
    commit.prover.prove = (needs) => {
      const other = needs.find((need) => isTargetNeed(need) && !allowed.has(need.target.toLowerCase()));
      if (other && isTargetNeed(other))
        return Promise.reject(
          new L2ProofNotServedError(`this prover does not serve ${getAddress(other.target)}`),
        );
      return prove(needs);
    };
  };
}

/** Answers kept, one per commitment and request: the package's default. */
const ANSWER_CACHE_ENTRIES = 1000;

/**
 * Answers longer than this (hex characters, 32 KiB of proofs; one record's answer is about 5 KB) are answered but not
 * kept, so the cache holds at most ANSWER_CACHE_ENTRIES x 64 KB, whatever requests ask for.
 */
const CACHED_ANSWER_MAX_CHARS = 64 * 1024;

/**
 * A prover on the package's Gateway for its commitments (the latest polled every `commitPollMs`, with their
 * parents); requests are answered as the package's `proveRequest` handler does, without its ABI dispatcher (see
 * `parseL2ProofRequest`): at min(named, latest) commitment, one cached answer per commitment and request (see
 * CACHED_ANSWER_MAX_CHARS), and a request whose program fails with a callback error answered with that error.
 */
export function createL2Prover(options: L2ProverOptions): L2Prover {
  const rollup = createL2ProofRollup(options);
  if (options.servedContracts) rollup.configure = onlyServed(options.servedContracts);
  return proverOn(rollup, options.commitPollMs);
}

function proverOn<R extends Rollup>(rollup: R, commitPollMs: number): L2Prover {
  const gateway = new Gateway(rollup);
  gateway.latestCache.cacheMs = commitPollMs;
  const answers = new LRU<string, Hex>(ANSWER_CACHE_ENTRIES);
  return {
    async prove({ commitIndex, ops }) {
      const commit = await gateway.getRecentCommit(commitIndex);
      // The request's hash, not its bytes: a key's size does not grow with the request.
      const key = `${commit.index}:${keccak256(ops)}`;
      const answer = await answers.cache(key, async () => {
        try {
          const state = await commit.prover.evalDecoded(ops);
          return rollup.encodeWitness(commit, await commit.prover.prove(state.needs)) as Hex;
        } catch (err) {
          if (err instanceof CallbackError) return err.data as Hex;
          throw err;
        }
      });
      if (answer.length > CACHED_ANSWER_MAX_CHARS) answers.delete(key);
      return answer;
    },
  };
}

/**
 * What Base and Base Sepolia post on L1: dispute games (their AnchorStateRegistry, as the package configures it).
 * Accepted: proper games (the registry's) of its respected game type, at least `minAgeSec` (an hour) old and either
 * unchallenged or resolved for the proposer. 0 would wait for games to resolve (days), too late for records; an hour
 * leaves the challengers time to dispute a bad root before answers rely on it.
 * The game finder here is the package's OPFaultGameFinder, the only one known without a deployment: it reads the
 * fault-dispute games Base posted before Azul (types 0 and 1), not the AggregateVerifier games (type 621) it has
 * posted since (Base Sepolia 2026-04-20, Base 2026-05-28). Give the finder the deploy script deployed with the
 * verifier (our DisputeGameFinder, which reads both): `<L2>_PROOF_GAME_FINDER`.
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

/** A comma-separated list of dispute game types (`0,1`); empty: the registry's respected game type. */
const gameTypesEnv = z
  .string()
  .regex(/^(\d+(,\d+)*)?$/, 'comma-separated game type numbers, or empty for the respected game type')
  .transform((list) => (list === '' ? [] : list.split(',').map(Number)));

/**
 * zod schema of the prover's env vars: `<L2>_PROOF_OPTIMISM_PORTAL` and `<L2>_PROOF_OUTPUT_FINDER` (an
 * L2OutputOracle rollup, as the dev stack's; unset: the dispute games of L2_FAULT_PROOF_ROLLUPS, whose
 * `<L2>_PROOF_GAME_FINDER`, accepted `<L2>_PROOF_GAME_TYPES` and `<L2>_PROOF_MIN_AGE_SECONDS` must be those its L1
 * verifier was deployed with),
 * `L2_PROOF_L1_BLOCK_TAG` (the L1 block the output oracle is read at: `finalized`, or `latest` on anvil) and
 * `L2_PROOF_COMMIT_POLL_MS` (how long the latest root is cached).
 */
export const l2ProofsEnvSchema = z.object({
  BASE_PROOF_OPTIMISM_PORTAL: ethAddress.optional(),
  BASE_PROOF_OUTPUT_FINDER: ethAddress.optional(),
  BASE_SEPOLIA_PROOF_OPTIMISM_PORTAL: ethAddress.optional(),
  BASE_SEPOLIA_PROOF_OUTPUT_FINDER: ethAddress.optional(),
  BASE_PROOF_GAME_FINDER: ethAddress.optional(),
  BASE_SEPOLIA_PROOF_GAME_FINDER: ethAddress.optional(),
  BASE_PROOF_GAME_TYPES: gameTypesEnv.optional(),
  BASE_SEPOLIA_PROOF_GAME_TYPES: gameTypesEnv.optional(),
  BASE_PROOF_MIN_AGE_SECONDS: z.coerce.number().int().min(0).optional(),
  BASE_SEPOLIA_PROOF_MIN_AGE_SECONDS: z.coerce.number().int().min(0).optional(),
  L2_PROOF_L1_BLOCK_TAG: z.enum(['latest', 'finalized']).default('finalized'),
  L2_PROOF_COMMIT_POLL_MS: z.coerce.number().int().min(0).default(5000),
});
type L2ProofsEnv = z.infer<typeof l2ProofsEnvSchema>;

/** The rollup each L2's prover proves against, from `l2ProofsEnvSchema`. */
export function l2ProofRollupsFromEnv(parsed: L2ProofsEnv): Record<L2NetworkName, L2ProofRollupConfig> {
  const env = parsed as Record<string, unknown>;
  return perL2Network((name): L2ProofRollupConfig => {
    const prefix = envPrefix(name);
    const portal = env[`${prefix}_PROOF_OPTIMISM_PORTAL`];
    const finder = env[`${prefix}_PROOF_OUTPUT_FINDER`];
    if (typeof portal !== 'string' || typeof finder !== 'string') {
      const games = L2_FAULT_PROOF_ROLLUPS[name];
      const gameFinder = env[`${prefix}_PROOF_GAME_FINDER`] as string | undefined;
      const gameTypes = env[`${prefix}_PROOF_GAME_TYPES`] as number[] | undefined;
      const minAgeSec = env[`${prefix}_PROOF_MIN_AGE_SECONDS`] as number | undefined;
      return {
        ...games,
        gameFinder: gameFinder ?? games.gameFinder,
        gameTypes: gameTypes ?? games.gameTypes,
        minAgeSec: minAgeSec ?? games.minAgeSec,
      };
    }
    return {
      kind: 'op-output-oracle',
      optimismPortal: portal,
      outputFinder: finder,
      minAgeSec: 0,
      l1BlockTag: parsed.L2_PROOF_L1_BLOCK_TAG,
    };
  });
}
