import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { deployContract, provenL2ResolverArtifact } from '@nrp/contracts';
import type { AnvilNode } from './anvil';
import { deployDevRollup, type DevRollup } from './dev-rollup';
import { DEV_L2_PARENT, DEV_PROVEN_L2_PARENT, type DevAccount } from './dev-stack';
import type { EnsFixture } from './ens-fixture';
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
    const deployed = await deployContract(ens.deployer, provenL2ResolverArtifact, [
      rollup.verifier,
      chains.l2.chainId,
      registry,
      [proverUrl],
    ]);
    const resolver = await deployed.getAddress();
    await ens.registerEthName(DEV_PROVEN_L2_PARENT.replace(/\.eth$/, ''), owner.address, { resolver });
    return { registry, resolver, rollup };
  } catch (err) {
    rollup.stop();
    throw err;
  }
}
