import type { Hex } from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import type { AnvilNode } from './anvil';
import { DEV_L2_PARENT, type DevAccount } from './dev-stack';
import type { EnsFixture } from './ens-fixture';
import { l2ChainOn } from './l2-chain';

/**
 * The dev stack's L2 parent: `l2.eth` registered on L1 to `owner` (no resolver yet: offchain-svc's hook deploys its
 * L2NameResolver) and its L2Registry on `l2`, owned by `owner`. Returns the registry's address.
 */
export async function deployDevL2Parent(ens: EnsFixture, l2: AnvilNode, owner: DevAccount): Promise<string> {
  await ens.registerEthName(DEV_L2_PARENT.replace(/\.eth$/, ''), owner.address, { resolver: null });
  return l2ChainOn(l2).deployRegistry(DEV_L2_PARENT, { owner: privateKeyToAccount(owner.privateKey as Hex) });
}
