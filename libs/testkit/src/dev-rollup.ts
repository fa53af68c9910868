/**
 * The dev stack's rollup, on its two anvils: the L2's output roots posted on the L1 in the OP-stack format (our
 * L2OutputOracle behind an OptimismPortal), as Base's proposer posts them, and the Unruggable Gateways verifier
 * that checks storage proofs against them (OPVerifier with EthVerifierHooks and OPOutputFinder, deployed from the
 * package's own artifacts). A proving resolver (ProvenL2Resolver) uses `verifier`; a prover (`createL2Prover`)
 * uses `proverRollup`.
 */
import { AbiCoder, JsonRpcProvider, Wallet, ZeroHash, keccak256, type Contract } from 'ethers';
import {
  deployContract,
  l2OutputOracleArtifact,
  optimismPortalArtifact,
  unruggableArtifact,
} from '@nrp/contracts';
import type { L2ProofRollupConfig } from '@nrp/chain';

/** The OP-stack predeploy whose storage root is part of an output root (absent on an anvil L2: the empty trie). */
const L2_TO_L1_MESSAGE_PASSER = '0x4200000000000000000000000000000000000016';

export interface DevRollupOptions {
  /** L1 JSON-RPC URL (where the oracle and the verifier are deployed). */
  l1RpcUrl: string;
  /** L2 JSON-RPC URL (whose blocks' output roots are posted). */
  l2RpcUrl: string;
  /** Deploys the contracts and proposes the roots (an L1 key no other component sends from). */
  operatorKey: string;
  /** The verifier's default gateway URLs (a resolver may name its own). */
  gatewayUrls: readonly string[];
  /**
   * Oldest answer the verifier accepts, in seconds of L1 time behind the latest posted root: a prover answering
   * from a root more than this older than the latest one is refused (CommitTooOld).
   */
  windowSeconds: number;
}

export interface PostedOutput {
  index: bigint;
  l2BlockNumber: bigint;
  outputRoot: string;
}

export interface DevRollup {
  optimismPortal: string;
  l2OutputOracle: string;
  outputFinder: string;
  /** OPVerifier: the address a ProvenL2Resolver is deployed with. */
  verifier: string;
  /** What a prover for this rollup is configured with (`createL2Prover({ rollup })`). */
  proverRollup: L2ProofRollupConfig;
  /** Posts the output root of the L2's latest block, unless that block's root is already the latest posted. */
  propose(): Promise<PostedOutput | undefined>;
  /** The latest posted output; undefined before the first. */
  latestOutput(): Promise<PostedOutput | undefined>;
  /** Posts `outputRoot` for `l2BlockNumber` as given (a lying proposer, for tests of what the verifier checks). */
  proposeRoot(outputRoot: string, l2BlockNumber: bigint): Promise<PostedOutput>;
  /** Proposes every `everyMs` while the L2 moved on; stops with `stop`. */
  startProposer(everyMs: number, onError: (err: unknown) => void): void;
  stop(): void;
}

const abi = AbiCoder.defaultAbiCoder();

/**
 * The OP-stack output root of the L2's block at `blockTag`, as a proposer posts it:
 * keccak256(abi.encode(0, stateRoot, messagePasserStorageRoot, blockHash)).
 */
export async function l2OutputRootAt(
  l2: JsonRpcProvider,
  blockTag: bigint | 'latest',
): Promise<{ outputRoot: string; l2BlockNumber: bigint }> {
  const tag = typeof blockTag === 'bigint' ? `0x${blockTag.toString(16)}` : blockTag;
  const block = (await l2.send('eth_getBlockByNumber', [tag, false])) as {
    number: string;
    hash: string;
    stateRoot: string;
  };
  const passer = (await l2.send('eth_getProof', [L2_TO_L1_MESSAGE_PASSER, [], block.number])) as {
    storageHash: string;
  };
  const outputRoot = keccak256(
    abi.encode(
      ['bytes32', 'bytes32', 'bytes32', 'bytes32'],
      [ZeroHash, block.stateRoot, passer.storageHash, block.hash],
    ),
  );
  return { outputRoot, l2BlockNumber: BigInt(block.number) };
}

export async function deployDevRollup(options: DevRollupOptions): Promise<DevRollup> {
  const l1 = new JsonRpcProvider(options.l1RpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  const l2 = new JsonRpcProvider(options.l2RpcUrl, undefined, { staticNetwork: true, cacheTimeout: -1 });
  const operator = new Wallet(options.operatorKey, l1);
  const address = (contract: Contract) => contract.getAddress();

  const oracle = await deployContract(operator, l2OutputOracleArtifact, [
    operator.address,
    operator.address,
    0,
    0,
  ]);
  const portal = await deployContract(operator, optimismPortalArtifact, [await address(oracle)]);
  const finder = await deployContract(operator, unruggableArtifact('OPOutputFinder'));
  const hooks = await deployContract(operator, unruggableArtifact('EthVerifierHooks'));
  const vm = await deployContract(operator, unruggableArtifact('GatewayVM'));
  const verifier = await deployContract(
    operator,
    unruggableArtifact('OPVerifier', { GatewayVM: await address(vm) }),
    // minAgeSec 0: the oracle's finalization period (0 here), so every posted root is usable at once.
    [
      options.gatewayUrls,
      options.windowSeconds,
      await address(hooks),
      await address(portal),
      await address(finder),
      0,
    ],
  );

  async function proposeRoot(outputRoot: string, l2BlockNumber: bigint): Promise<PostedOutput> {
    const tx = (await oracle.getFunction('proposeL2Output')(outputRoot, l2BlockNumber, ZeroHash, 0)) as {
      wait(): Promise<unknown>;
    };
    await tx.wait();
    const index = ((await oracle.getFunction('nextOutputIndex')()) as bigint) - 1n;
    return { index, l2BlockNumber, outputRoot };
  }

  async function latestOutput(): Promise<PostedOutput | undefined> {
    const next = (await oracle.getFunction('nextOutputIndex')()) as bigint;
    if (next === 0n) return undefined;
    const output = (await oracle.getFunction('getL2Output')(next - 1n)) as {
      outputRoot: string;
      l2BlockNumber: bigint;
    };
    return { index: next - 1n, l2BlockNumber: output.l2BlockNumber, outputRoot: output.outputRoot };
  }

  let posting: Promise<unknown> = Promise.resolve();
  async function propose(): Promise<PostedOutput | undefined> {
    const latest = await l2OutputRootAt(l2, 'latest');
    const posted = await latestOutput();
    if (posted && posted.l2BlockNumber >= latest.l2BlockNumber) return undefined;
    return proposeRoot(latest.outputRoot, latest.l2BlockNumber);
  }

  let timer: NodeJS.Timeout | undefined;
  return {
    optimismPortal: await address(portal),
    l2OutputOracle: await address(oracle),
    outputFinder: await address(finder),
    verifier: await address(verifier),
    proverRollup: {
      kind: 'op-output-oracle',
      optimismPortal: await address(portal),
      outputFinder: await address(finder),
      minAgeSec: 0,
      l1BlockTag: 'latest',
    },
    propose: () => {
      const next = posting.then(propose);
      posting = next.catch(() => undefined);
      return next;
    },
    latestOutput,
    proposeRoot,
    startProposer(everyMs, onError) {
      timer ??= setInterval(() => {
        const next = posting.then(propose);
        posting = next.catch(onError);
      }, everyMs);
      timer.unref();
    },
    stop() {
      if (timer) clearInterval(timer);
      timer = undefined;
      l1.destroy();
      l2.destroy();
    },
  };
}
