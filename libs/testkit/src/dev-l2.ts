import { JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import { deployContract, l2RegistryArtifact } from '@nrp/contracts';
import { dnsEncode, namehash } from '@nrp/ens';
import type { AnvilNode } from './anvil';
import { DEV_L2_PARENT, type DevAccount } from './dev-stack';
import type { EnsFixture } from './ens-fixture';

/**
 * The dev stack's L2 parent: `l2.eth` registered on L1 to `owner` (no resolver yet: offchain-svc's hook deploys its
 * L2NameResolver) and its L2Registry on `l2`, owned by `owner`. Returns the registry's address.
 */
export async function deployDevL2Parent(ens: EnsFixture, l2: AnvilNode, owner: DevAccount): Promise<string> {
  await ens.registerEthName(DEV_L2_PARENT.replace(/\.eth$/, ''), owner.address, { resolver: null });
  const provider = new JsonRpcProvider(l2.rpcUrl, undefined, { staticNetwork: true, pollingInterval: 50 });
  try {
    const deployer = new NonceManager(new Wallet(owner.privateKey, provider));
    const registry = await deployContract(deployer, l2RegistryArtifact, [
      `${DEV_L2_PARENT} subnames`,
      'L2ETH',
      namehash(DEV_L2_PARENT),
      dnsEncode(DEV_L2_PARENT),
      owner.address,
    ]);
    return await registry.getAddress();
  } finally {
    provider.destroy();
  }
}
