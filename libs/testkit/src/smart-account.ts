/**
 * Smart accounts as Coinbase Smart Wallet makes them: an ERC-4337-style factory deploys each account with CREATE2,
 * so its address is known (and signs) before it exists. A not yet deployed account signs with ERC-6492: its
 * factory call wrapped around the owner's signature.
 */
import { AbiCoder, Contract, concat, hashMessage, Interface, type Signer, type Wallet } from 'ethers';
import { deployContract, smartAccountFactoryTestDoubleArtifact } from '@nrp/contracts';
import { ERC6492_MAGIC_SUFFIX } from '@nrp/auth';
import { until } from './until';
import { createPublicClient, http, type Hex } from 'viem';

const factoryInterface = new Interface(smartAccountFactoryTestDoubleArtifact.abi);

export interface SmartAccount {
  /** Where the account is (or will be): the factory's CREATE2 address. */
  address: string;
  owner: Wallet;
  factory: string;
  /** `createAccount(owner, salt)`: the call that deploys it. */
  factoryCalldata: string;
}

/** Deploys the factory double (SmartAccountFactoryTestDouble); returns its address. */
export async function deploySmartAccountFactory(deployer: Signer): Promise<string> {
  return (await deployContract(deployer, smartAccountFactoryTestDoubleArtifact, [])).getAddress();
}

/** The smart account of `owner` (salt `salt`) from `factory`, not deployed by this call. */
export async function smartAccountOf(
  runner: Signer,
  factory: string,
  owner: Wallet,
  salt = 0n,
): Promise<SmartAccount> {
  const contract = new Contract(factory, factoryInterface, runner);
  const address = String(await contract.getFunction('getAddress').staticCall(owner.address, salt));
  const factoryCalldata = factoryInterface.encodeFunctionData('createAccount', [owner.address, salt]);
  return { address, owner, factory, factoryCalldata };
}

/**
 * Sends the factory call: the account exists afterwards. Under load anvil can hand out the receipt before its
 * `latest` state shows the new code, so this also waits until the node answers the account's code.
 */
export async function deploySmartAccount(sender: Signer, account: SmartAccount): Promise<void> {
  await (await sender.sendTransaction({ to: account.factory, data: account.factoryCalldata })).wait();
  const { provider } = sender;
  if (!provider) throw new Error('the sender has no provider');
  await until(
    async () => (await provider.getCode(account.address)) !== '0x',
    `the code of ${account.address}`,
  );
}

/**
 * The account's signature of `message` (EIP-191): its owner's signature of the message hash, as the account's
 * ERC-1271 check expects; with `erc6492`, wrapped for an account that may not be deployed yet
 * (`abi.encode(factory, factoryCalldata, signature)` then the 32 magic bytes).
 */
export function smartAccountSignature(account: SmartAccount, message: string, erc6492: boolean): string {
  const inner = account.owner.signingKey.sign(hashMessage(message)).serialized;
  if (!erc6492) return inner;
  const wrapped = AbiCoder.defaultAbiCoder().encode(
    ['address', 'bytes', 'bytes'],
    [account.factory, account.factoryCalldata, inner],
  );
  return concat([wrapped, ERC6492_MAGIC_SUFFIX]);
}

/**
 * viem's verdict on a sign-in signature, the test's oracle: `verifyMessage` (ERC-6492's universal validator,
 * ERC-1271, ecrecover) and `verifySiweMessage` (the same, and the message's own fields: its address, its times).
 */
export async function viemAcceptsSignIn(
  rpcUrl: string,
  address: string,
  message: string,
  signature: string,
): Promise<boolean> {
  const client = createPublicClient({ transport: http(rpcUrl) });
  const args = { address: address as Hex, message, signature: signature as Hex };
  const [plain, siwe] = await Promise.all([
    client.verifyMessage(args),
    client.verifySiweMessage({ address: args.address, message, signature: args.signature }),
  ]);
  if (plain !== siwe)
    throw new Error(`viem's verifyMessage (${plain}) and verifySiweMessage (${siwe}) disagree`);
  return plain;
}
