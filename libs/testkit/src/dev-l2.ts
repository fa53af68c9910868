import { JsonRpcProvider } from 'ethers';
import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { createL2Prover, startL2ProverServer } from '@nrp/chain';
import { deployContract, provenL2ResolverArtifact } from '@nrp/contracts';
import type { AnvilNode } from './anvil';
import { deployDevRollup, type DevRollup } from './dev-rollup';
import { DEV_L2_PARENT, DEV_PROVEN_L2_PARENT, type DevAccount } from './dev-stack';
import type { EnsChain, EnsFixture } from './ens-fixture';
import { l2ChainOn } from './l2-chain';

/** How far (L1 seconds) a prover's root may trail the latest posted one on the dev stack. */
export const DEV_PROOF_WINDOW_SECONDS = 30;

/**
 * The dev stack's L2 parent: `l2.eth` registered on L1 to `owner` (no resolver yet: offchain-svc's hook deploys its
 * L2NameResolver) and its L2Registry on `l2`, owned by `owner`. Returns the registry's address.
 */
export async function deployDevL2Parent(ens: EnsFixture, l2: AnvilNode, owner: DevAccount): Promise<string> {
  await ens.registerEthName(DEV_L2_PARENT.replace(/\.eth$/, ''), owner.address, { resolver: null });
  return l2ChainOn(l2).deployRegistry(DEV_L2_PARENT, { owner: privateKeyToAccount(owner.privateKey as Hex) });
}

export interface DevProvenL2Parent {
  /** The L2Registry of `proven.eth` on the L2. */
  registry: string;
  /** Its ProvenL2Resolver on L1. */
  resolver: string;
  /** The rollup on L1 its proofs are checked against (start its proposer to post roots). */
  rollup: DevRollup;
}

/**
 * The dev stack's proven L2 parent: `proven.eth` registered on L1 to `owner`, its L2Registry on `l2` owned by
 * `owner`, the dev rollup on L1 (deployed and proposing from `operator`, an account nothing else sends from) and a
 * ProvenL2Resolver (deployed by the ENS fixture's deployer) that sends its lookups to `proverUrl` and checks them with the rollup's
 * verifier, set as the resolver of `proven.eth`.
 */
export async function deployDevProvenL2Parent(
  ens: EnsFixture,
  chains: { l1: AnvilNode; l2: AnvilNode },
  owner: DevAccount,
  operator: DevAccount,
  proverUrl: string,
): Promise<DevProvenL2Parent> {
  const registry = await l2ChainOn(chains.l2).deployRegistry(DEV_PROVEN_L2_PARENT, {
    owner: privateKeyToAccount(owner.privateKey as Hex),
  });
  const rollup = await deployDevRollup({
    l1RpcUrl: chains.l1.rpcUrl,
    l2RpcUrl: chains.l2.rpcUrl,
    operatorKey: operator.privateKey,
    gatewayUrls: [proverUrl],
    windowSeconds: DEV_PROOF_WINDOW_SECONDS,
  });
  try {
    const resolver = await deployProvenL2Resolver(ens, {
      parentName: DEV_PROVEN_L2_PARENT,
      owner: owner.address,
      verifier: rollup.verifier,
      l2ChainId: chains.l2.chainId,
      registry,
      gatewayUrls: [proverUrl],
    });
    return { registry, resolver, rollup };
  } catch (err) {
    rollup.stop();
    throw err;
  }
}

/**
 * A ProvenL2Resolver (deployed by the ENS fixture's deployer) of `registry` on chain `l2ChainId`, checked by
 * `verifier`, its lookups sent to `gatewayUrls`, set as the resolver of the .eth name `parentName` registered to
 * `owner`. Returns its address.
 */
async function deployProvenL2Resolver(
  ens: EnsFixture,
  parent: {
    parentName: string;
    owner: string;
    verifier: string;
    l2ChainId: number;
    registry: string;
    gatewayUrls: readonly string[];
  },
): Promise<string> {
  const deployed = await deployContract(ens.deployer, provenL2ResolverArtifact, [
    parent.verifier,
    parent.l2ChainId,
    parent.registry,
    parent.gatewayUrls,
  ]);
  const resolver = await deployed.getAddress();
  await ens.registerEthName(parent.parentName.replace(/\.eth$/, ''), parent.owner, { resolver });
  return resolver;
}

/** A parent on ProvenL2Resolver in a test (`startProvenL2Parent`). */
export interface ProvenL2Parent {
  /** Its ProvenL2Resolver on L1. */
  resolver: string;
  rollup: DevRollup;
  /** The prover its lookups go to: in this process, over HTTP, reading the latest root at each lookup. */
  proverUrl: string;
  /** Posts the root of the L2's latest block: a change on the L2 resolves once this is done. */
  propose(): Promise<void>;
  close(): Promise<void>;
}

/**
 * A parent whose subnames on `l2` resolve through storage proofs, for a service's tests: the dev rollup on `l1`
 * (deployed and proposing from `operatorKey`, an account the test sends nothing else from), a prover serving
 * `registry`, and the ProvenL2Resolver of `parentName` (registered on `l1` to `owner`), with a root already posted.
 */
export async function startProvenL2Parent(
  l1: EnsChain,
  l2: AnvilNode,
  parent: { parentName: string; registry: string; owner: string; operatorKey: string },
): Promise<ProvenL2Parent> {
  const rollup = await deployDevRollup({
    l1RpcUrl: l1.anvil.rpcUrl,
    l2RpcUrl: l2.rpcUrl,
    operatorKey: parent.operatorKey,
    gatewayUrls: [],
    windowSeconds: DEV_PROOF_WINDOW_SECONDS,
  });
  const l1Provider = new JsonRpcProvider(l1.anvil.rpcUrl, undefined, { staticNetwork: true });
  const l2Provider = new JsonRpcProvider(l2.rpcUrl, undefined, { staticNetwork: true });
  const prover = createL2Prover({
    l1: l1Provider,
    l2: l2Provider,
    rollup: rollup.proverRollup,
    commitPollMs: 0,
    servedContracts: [parent.registry],
  });
  const server = await startL2ProverServer(prover, { host: '127.0.0.1', port: 0, onError: () => undefined });
  const close = async () => {
    await server.close();
    rollup.stop();
    l1Provider.destroy();
    l2Provider.destroy();
  };
  try {
    const resolver = await deployProvenL2Resolver(l1.ens, {
      ...parent,
      verifier: rollup.verifier,
      l2ChainId: l2.chainId,
      gatewayUrls: [server.url],
    });
    await rollup.propose();
    return {
      resolver,
      rollup,
      proverUrl: server.url,
      propose: async () => {
        await rollup.propose();
      },
      close,
    };
  } catch (err) {
    await close();
    throw err;
  }
}
