import { Interface, JsonRpcProvider, Wallet, type InterfaceAbi } from 'ethers';
import { deployContract, l2RegistryArtifact } from '@nrp/contracts';
import { dnsEncode, namehash } from '@nrp/ens';
import { startAnvil, type AnvilNode } from '@nrp/testkit';

const registryInterface = new Interface(l2RegistryArtifact.abi as InterfaceAbi);

/** An anvil with Base Sepolia's chain id carrying one L2Registry, its owner (anvil account 0) a controller. */
export interface L2Chain {
  anvil: AnvilNode;
  provider: JsonRpcProvider;
  registry: string;
  /** Sends `fn(args)` to the registry from its owner and waits until it is mined. */
  registryTx(fn: string, args: unknown[]): Promise<void>;
  /** Registers `label` under the parent to `holder` until `expiry` (Unix seconds). */
  register(label: string, holder: string, expiry: bigint): Promise<void>;
  /** The timestamp of the latest block. */
  now(): Promise<bigint>;
  stop(): Promise<void>;
}

export async function startL2Chain(parent: string): Promise<L2Chain> {
  const anvil = await startAnvil({ chainId: 84532 });
  const provider = new JsonRpcProvider(anvil.rpcUrl, 84532, { staticNetwork: true });
  const deployer = anvil.accounts[0];
  if (!deployer) throw new Error('anvil accounts');
  const owner = new Wallet(deployer.privateKey, provider);
  const contract = await deployContract(owner, l2RegistryArtifact, [
    `${parent} subnames`,
    'L2',
    namehash(parent),
    dnsEncode(parent),
    owner.address,
  ]);
  const registry = await contract.getAddress();
  const registryTx = async (fn: string, args: unknown[]): Promise<void> => {
    // anvil's unlocked account: anvil picks the nonce, so no client-side nonce can go stale.
    const hash = (await provider.send('eth_sendTransaction', [
      { from: owner.address, to: registry, data: registryInterface.encodeFunctionData(fn, args) },
    ])) as string;
    for (;;) {
      const receipt = await provider.getTransactionReceipt(hash);
      if (receipt) {
        if (receipt.status !== 1) throw new Error(`${fn} reverted`);
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  };
  // The owner registers directly, as a controller (what an L2MintController is in production).
  await registryTx('setController', [owner.address, true]);
  return {
    anvil,
    provider,
    registry,
    registryTx,
    register: (label, holder, expiry) => registryTx('register', [label, holder, expiry, 0]),
    now: async () => {
      const block = await provider.getBlock('latest');
      if (!block) throw new Error('no block');
      return BigInt(block.timestamp);
    },
    stop: async () => {
      provider.destroy();
      await anvil.stop();
    },
  };
}
