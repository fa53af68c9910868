/**
 * A Base Sepolia anvil (84532) carrying, per parent, an L2Registry and the L2MintController that mints under it
 * (trusting the service's signer), driven with viem: what the service's L2 tests mint on.
 */
import {
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createTestClient,
  createWalletClient,
  getAddress,
  http,
  type Abi,
  type Address,
  type Hex,
  type PublicClient,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { Wallet } from 'ethers';
import { l2MintControllerArtifact, l2RegistryArtifact, type ContractArtifact } from '@nrp/contracts';
import { dnsEncode, namehash } from '@nrp/ens';
import { startAnvil, type AnvilNode } from '@nrp/testkit';
import { SIGNER_KEY, type MintArgs } from './helpers';

export const L2_CHAIN_ID = 84532;
export const registryAbi = l2RegistryArtifact.abi as Abi;
export const controllerAbi = l2MintControllerArtifact.abi as Abi;

/** One parent on the L2: its registry and controller. */
export interface L2ParentContracts {
  registry: Address;
  controller: Address;
}

export interface L2Chain {
  anvil: AnvilNode;
  client: PublicClient;
  /** Anvil account `index` (the same keys, so the same addresses, as the L1 test chain's). */
  account(index: number): PrivateKeyAccount;
  /** Deploys the registry of `parentName` and its controller; `enable` lets the controller register. */
  deployParent(parentName: string, treasury: string, enable?: boolean): Promise<L2ParentContracts>;
  /** Sends `functionName(args)` from `account` (simulated first: a revert throws its ContractFunctionRevertedError). */
  send(
    account: PrivateKeyAccount,
    address: Address,
    abi: Abi,
    functionName: string,
    args: readonly unknown[],
    value?: bigint,
  ): Promise<void>;
  /** Sends mint(...) from `account` with `value`, like `send`. */
  mint(account: PrivateKeyAccount, controller: Address, args: MintArgs, value: bigint): Promise<void>;
  /** The custom error a mint would revert with now; undefined when it would succeed. */
  mintRevert(
    account: PrivateKeyAccount,
    controller: Address,
    args: MintArgs,
    value: bigint,
  ): Promise<string | undefined>;
  /** Moves the L2's clock forward and mines a block. */
  increaseTime(seconds: number): Promise<void>;
  stop(): Promise<void>;
}

export async function startL2Chain(): Promise<L2Chain> {
  const anvil = await startAnvil({ chainId: L2_CHAIN_ID });
  const client = createPublicClient({ transport: http(anvil.rpcUrl), pollingInterval: 20 });
  const account = (index: number): PrivateKeyAccount => {
    const key = anvil.accounts[index]?.privateKey;
    if (!key) throw new Error(`no anvil account ${index}`);
    return privateKeyToAccount(key as Hex);
  };
  const deployer = account(0);
  const wallet = (from: PrivateKeyAccount) =>
    createWalletClient({ account: from, transport: http(anvil.rpcUrl) });

  async function deploy(artifact: ContractArtifact, args: unknown[]): Promise<Address> {
    const hash = await wallet(deployer).deployContract({
      abi: artifact.abi as Abi,
      bytecode: artifact.bytecode as Hex,
      args,
      chain: null,
    });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (!receipt.contractAddress) throw new Error(`${artifact.contractName} not deployed`);
    return getAddress(receipt.contractAddress);
  }

  async function send(
    from: PrivateKeyAccount,
    address: Address,
    abi: Abi,
    functionName: string,
    args: readonly unknown[],
    value = 0n,
  ): Promise<void> {
    const { request } = await client.simulateContract({
      account: from,
      address,
      abi,
      functionName,
      args,
      value,
    });
    const hash = await wallet(from).writeContract({ ...request, chain: null });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (receipt.status !== 'success') throw new Error(`${functionName} reverted`);
  }

  const mint: L2Chain['mint'] = (from, controller, args, value) =>
    send(from, controller, controllerAbi, 'mint', args, value);

  return {
    anvil,
    client,
    account,
    async deployParent(parentName, treasury, enable = true) {
      const registry = await deploy(l2RegistryArtifact, [
        `${parentName} subnames`,
        'L2SUB',
        namehash(parentName),
        dnsEncode(parentName),
        deployer.address,
      ]);
      const controller = await deploy(l2MintControllerArtifact, [
        registry,
        treasury,
        new Wallet(SIGNER_KEY).address,
        deployer.address,
      ]);
      if (enable) await send(deployer, registry, registryAbi, 'setController', [controller, true]);
      return { registry, controller };
    },
    send,
    mint,
    async mintRevert(from, controller, args, value) {
      try {
        await client.simulateContract({
          account: from,
          address: controller,
          abi: controllerAbi,
          functionName: 'mint',
          args,
          value,
        });
        return undefined;
      } catch (err) {
        const reverted =
          err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : null;
        if (reverted instanceof ContractFunctionRevertedError) return reverted.data?.errorName;
        throw err;
      }
    },
    async increaseTime(seconds) {
      const testClient = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) });
      await testClient.increaseTime({ seconds });
      await testClient.mine({ blocks: 1 });
    },
    stop: () => anvil.stop(),
  };
}
