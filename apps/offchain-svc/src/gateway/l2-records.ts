/** Records of L2 names, read from our L2Registry contracts over the L2's RPC node, all of one request at one block. */
import { isHexString, toQuantity } from 'ethers';
import {
  readBlock,
  resolverInterface,
  toUpstreamError,
  type L2NetworkName,
  type L2NetworksConfig,
  type L2Providers,
  type UpstreamError,
} from '@nrp/chain';
import { namehash } from '@nrp/ens';
import { DEPENDENCY_RETRY_AFTER_SECONDS, upstreamDetail } from '@nrp/server';
import { commonProblems, ProblemError, type ProblemDef } from '@nrp/validation';
import type { RecordCall } from './lookup';
import { offchainProblems } from '../problems';

export interface L2RecordReader {
  /** Whether `registry` is one of the L2Registry contracts configured for `network` (any letter case). */
  serves(network: L2NetworkName, registry: string): boolean;
  /**
   * The ABI-encoded result of each call for `name` on `registry`, read at the L2's latest block. Throws a
   * ProblemError (nothing may be signed): 503 L2_UNAVAILABLE when the node does not answer, 503 L2_STALE when its
   * latest block is older than the limit, 502 UPSTREAM_ERROR when it answers a lower block than it did before, an
   * error, or a result that is not the canonical ABI encoding of the function's result.
   */
  read(
    network: L2NetworkName,
    registry: string,
    name: string,
    calls: readonly RecordCall[],
  ): Promise<Buffer[]>;
}

/** The registry function each record call is read with: the ENS resolver selectors, on the registry itself. */
const FUNCTION: Record<RecordCall['kind'], string> = {
  addr: 'addr(bytes32)',
  addrWithCoin: 'addr(bytes32,uint256)',
  text: 'text(bytes32,string)',
  contenthash: 'contenthash(bytes32)',
};

function registryCallData(call: RecordCall, node: string): string {
  switch (call.kind) {
    case 'addrWithCoin':
      return resolverInterface.encodeFunctionData(FUNCTION.addrWithCoin, [node, call.coinType]);
    case 'text':
      return resolverInterface.encodeFunctionData(FUNCTION.text, [node, call.key]);
    default:
      return resolverInterface.encodeFunctionData(FUNCTION[call.kind], [node]);
  }
}

/** EIP-3668 clients read `message`; `detail` says the same to everyone else. */
function problem(
  def: ProblemDef,
  detail: string,
  extra: { cause?: unknown; retry?: boolean } = {},
): ProblemError {
  return new ProblemError(def, detail, {
    extensions: { message: detail },
    ...(extra.retry ? { headers: { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) } } : {}),
    cause: extra.cause,
  });
}

/**
 * An RPC failure as the gateway answers it: nothing answered (connection, DNS, time-out) is 503 L2_UNAVAILABLE in
 * our words; an answer that is an error or garbage is 502 UPSTREAM_ERROR with `upstream` (as the L1 services
 * answer an UpstreamError). Host names, ports and socket codes stay in `cause`, for the logs.
 */
function rpcProblem(err: UpstreamError): ProblemError {
  if (err.upstreamCode === 'UNREACHABLE' || err.upstreamCode === 'TIMEOUT') {
    return problem(offchainProblems.L2_UNAVAILABLE, `${err.message}. Nothing was signed.`, {
      cause: err,
      retry: true,
    });
  }
  return new ProblemError(commonProblems.UPSTREAM_ERROR, err.message, {
    extensions: { message: err.message, upstream: upstreamDetail(err) },
    cause: err,
  });
}

/**
 * The eth_call answer `raw` as the result of `call`, only when it is exactly the ABI encoding the registry returns
 * (what decodes and encodes back to the same bytes: in-range offsets and lengths, zero padding and high bytes,
 * UTF-8 text, nothing after); anything else is garbage.
 */
function checkedResult(call: RecordCall, raw: unknown, context: string): Buffer {
  const fn = FUNCTION[call.kind];
  let canonical: string | undefined;
  if (typeof raw === 'string') {
    try {
      const values = resolverInterface.decodeFunctionResult(fn, raw);
      canonical = resolverInterface.encodeFunctionResult(fn, values.toArray(true));
    } catch {
      canonical = undefined;
    }
  }
  if (typeof raw !== 'string' || canonical !== raw.toLowerCase()) {
    // Said in our words: what a node answered is not repeated to clients.
    const answered = isHexString(raw) ? `${(raw.length - 2) / 2} bytes` : 'no hex data';
    throw rpcProblem(
      toUpstreamError(context, new Error(`answered ${answered}, not the ABI encoding of ${fn}'s result`)),
    );
  }
  return Buffer.from(raw.slice(2), 'hex');
}

/**
 * The one L2 record reader of a replica: it remembers the highest block each L2's node answered, so a node that
 * answers a lower one afterwards (a lagging or lying node behind a load balancer) is refused, never signed.
 */
export function createL2RecordReader(
  networks: L2NetworksConfig,
  providers: L2Providers,
  limits: { maxBlockAgeSeconds: number; now: () => number },
): L2RecordReader {
  const highestBlock = new Map<L2NetworkName, number>();
  const served = new Map(
    Object.values(networks).map((n) => [n.name, new Set(n.registries.map((r) => r.toLowerCase()))]),
  );

  async function latestBlock(network: L2NetworkName): Promise<number> {
    const context = `latest block of ${network}`;
    const block = await readBlock(providers[network], 'latest', context).catch((err: unknown) => {
      throw rpcProblem(toUpstreamError(context, err));
    });
    if (!block) throw rpcProblem(toUpstreamError(context, new Error('the node answered no latest block')));
    const highest = highestBlock.get(network) ?? 0;
    if (block.number < highest) {
      throw rpcProblem(
        toUpstreamError(
          context,
          new Error(`the node answered block ${block.number}, below ${highest} it answered before`),
        ),
      );
    }
    highestBlock.set(network, block.number);
    const age = Math.floor(limits.now() / 1000) - block.timestamp;
    if (age > limits.maxBlockAgeSeconds) {
      throw problem(
        offchainProblems.L2_STALE,
        `The latest block of ${network} (${block.number}) is ${age} s old, more than ${limits.maxBlockAgeSeconds} s: ` +
          'its RPC node is not following the chain. Nothing was signed.',
        { retry: true },
      );
    }
    return block.number;
  }

  return {
    serves: (network, registry) => served.get(network)?.has(registry.toLowerCase()) ?? false,

    async read(network, registry, name, calls) {
      const blockNumber = await latestBlock(network);
      const node = namehash(name);
      const provider = providers[network];
      const context = `L2Registry ${registry} on ${network} at block ${blockNumber}`;
      // Sent in the same tick: ethers sends them as one JSON-RPC batch (up to its 100 calls), one round trip.
      const answers = await Promise.all(
        calls.map((call) =>
          provider.send('eth_call', [
            { to: registry, data: registryCallData(call, node) },
            toQuantity(blockNumber),
          ]),
        ),
      ).catch((err: unknown) => {
        throw rpcProblem(toUpstreamError(context, err, `RPC node for ${network}`));
      });
      return calls.map((call, i) => checkedResult(call, answers[i], context));
    },
  };
}
