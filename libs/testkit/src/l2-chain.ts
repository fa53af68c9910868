/**
 * An L2 for tests: anvil with Base Sepolia's chain id (84532) and our L2Registry / L2MintController deployed and
 * driven with viem. Services add their own bits (an RPC proxy, their signer) around it in their tests.
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
  type TransactionReceipt,
} from 'viem';
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts';
import { l2MintControllerArtifact, l2RegistryArtifact, type ContractArtifact } from '@nrp/contracts';
import { dnsEncode, namehash } from '@nrp/ens';
import { startAnvil, type AnvilNode } from './anvil';

export const L2_CHAIN_ID = 84532;
export const l2RegistryAbi = l2RegistryArtifact.abi as Abi;
export const l2MintControllerAbi = l2MintControllerArtifact.abi as Abi;

/** The custom error a contract call reverted with. */
export interface ContractRevert {
  name: string | undefined;
  args: readonly unknown[] | undefined;
}

/** The custom error inside a viem error; undefined when `err` is not a contract revert. */
export function contractRevert(err: unknown): ContractRevert | undefined {
  const reverted =
    err instanceof BaseError ? err.walk((e) => e instanceof ContractFunctionRevertedError) : null;
  if (!(reverted instanceof ContractFunctionRevertedError)) return undefined;
  return { name: reverted.data?.errorName, args: reverted.data?.args };
}

/** The custom error `call` reverted with; throws when it succeeds or fails otherwise. */
export async function revertOf(call: Promise<unknown>): Promise<ContractRevert> {
  try {
    await call;
  } catch (err) {
    const reverted = contractRevert(err);
    if (reverted) return reverted;
    throw err;
  }
  throw new Error('the call did not revert');
}

export interface L2RegistryOptions {
  /** Deploys and owns the registry; default anvil account 0. */
  owner?: PrivateKeyAccount;
  /** Makes the owner a controller, so it registers names directly (as an L2MintController does). */
  ownerIsController?: boolean;
}

export interface L2Chain {
  anvil: AnvilNode;
  /** Reads the L2 itself: an OffchainLookup revert surfaces as an error, it is not followed. */
  client: PublicClient;
  /** Anvil account `index` (the same keys, so the same addresses, as an L1 test chain's). */
  account(index: number): PrivateKeyAccount;
  /** Deploys `artifact` with constructor `args` from `from` (default account 0). */
  deploy(artifact: ContractArtifact, args: readonly unknown[], from?: PrivateKeyAccount): Promise<Address>;
  /** Sends `functionName(args)` from `from`, simulated first: a revert throws its ContractFunctionRevertedError. */
  send(
    from: PrivateKeyAccount,
    address: Address,
    abi: Abi,
    functionName: string,
    args: readonly unknown[],
    value?: bigint,
  ): Promise<TransactionReceipt>;
  /** Deploys the L2Registry of `parentName`. */
  deployRegistry(parentName: string, options?: L2RegistryOptions): Promise<Address>;
  /** Deploys an L2MintController for `registry` trusting `signer`, owned by account 0 (not yet a controller). */
  deployMintController(registry: Address, treasury: string, signer: string): Promise<Address>;
  /** Lets (or stops) `controller` register on `registry`, sent by the registry's owner account 0. */
  setController(registry: Address, controller: Address, enabled?: boolean): Promise<void>;
  /** Registers `label` to `holder` until `expiry` (Unix seconds), sent by account 0 as a controller. */
  register(registry: Address, label: string, holder: string, expiry: bigint, fuses?: number): Promise<void>;
  /** The timestamp of the latest block. */
  now(): Promise<bigint>;
  /** Moves the L2's clock forward and mines a block. */
  increaseTime(seconds: number): Promise<void>;
  stop(): Promise<void>;
}

/** Drives an anvil that is already running (the dev stack's L2); `stop` stops it. */
export function l2ChainOn(anvil: AnvilNode): L2Chain {
  const client = createPublicClient({ transport: http(anvil.rpcUrl), ccipRead: false, pollingInterval: 20 });
  const account = (index: number): PrivateKeyAccount => {
    const key = anvil.accounts[index]?.privateKey;
    if (!key) throw new Error(`no anvil account ${index}`);
    return privateKeyToAccount(key as Hex);
  };
  const deployer = account(0);
  const wallet = (from: PrivateKeyAccount) =>
    createWalletClient({ account: from, transport: http(anvil.rpcUrl) });

  const deploy: L2Chain['deploy'] = async (artifact, args, from = deployer) => {
    const hash = await wallet(from).deployContract({
      abi: artifact.abi as Abi,
      bytecode: artifact.bytecode as Hex,
      args,
      chain: null,
    });
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (!receipt.contractAddress) throw new Error(`${artifact.contractName} not deployed`);
    return getAddress(receipt.contractAddress);
  };

  const send: L2Chain['send'] = async (from, address, abi, functionName, args, value = 0n) => {
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
    return receipt;
  };

  const setController: L2Chain['setController'] = async (registry, controller, enabled = true) => {
    await send(deployer, registry, l2RegistryAbi, 'setController', [controller, enabled]);
  };

  return {
    anvil,
    client,
    account,
    deploy,
    send,
    async deployRegistry(parentName, { owner = deployer, ownerIsController = false } = {}) {
      const registry = await deploy(
        l2RegistryArtifact,
        [`${parentName} subnames`, 'L2ETH', namehash(parentName), dnsEncode(parentName), owner.address],
        owner,
      );
      if (ownerIsController)
        await send(owner, registry, l2RegistryAbi, 'setController', [owner.address, true]);
      return registry;
    },
    deployMintController: (registry, treasury, signer) =>
      deploy(l2MintControllerArtifact, [registry, treasury, signer, deployer.address]),
    setController,
    async register(registry, label, holder, expiry, fuses = 0) {
      await send(deployer, registry, l2RegistryAbi, 'register', [label, holder, expiry, fuses]);
    },
    now: async () => (await client.getBlock()).timestamp,
    async increaseTime(seconds) {
      const testClient = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) });
      await testClient.increaseTime({ seconds });
      await testClient.mine({ blocks: 1 });
    },
    stop: () => anvil.stop(),
  };
}

/** Starts an anvil with Base Sepolia's chain id and drives it (nothing deployed yet). */
export async function startL2Chain(): Promise<L2Chain> {
  return l2ChainOn(await startAnvil({ chainId: L2_CHAIN_ID }));
}
