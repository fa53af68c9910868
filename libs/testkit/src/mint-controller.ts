/**
 * Our MintController on the local ENS chain, and per L2 parent an L2Registry with its L2MintController on the L2 of
 * `startL2Chain`: deployed, approved and called as a parent owner's and a minter's wallets do. For mint-svc's tests
 * and for the tests of services that read what it mints; the service under test is the caller's.
 */
import { Contract, JsonRpcProvider, Wallet, type NonceManager, type Signer } from 'ethers';
import type { Address } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import {
  deployMintController,
  mintControllerArtifact,
  type MintContext as MintParameters,
} from '@nrp/contracts';
import { startEnsChain, type EnsChain } from './ens-fixture';
import { contractRevert, l2MintControllerAbi, type L2Chain } from './l2-chain';

/** The key mint-svc signs mints with in tests (its SIGNER_PRIVATE_KEY); the controllers trust its address. */
export const MINT_SIGNER_KEY = '0x' + '11'.repeat(32);

/** anvil + ENS + a MintController trusting MINT_SIGNER_KEY, its treasury anvil account 9. */
export interface MintControllerChain {
  chain: EnsChain;
  provider: JsonRpcProvider;
  controller: Contract;
  controllerAddress: string;
  treasury: string;
  stop(): Promise<void>;
}

export async function startMintControllerChain(): Promise<MintControllerChain> {
  const chain = await startEnsChain();
  try {
    const provider = new JsonRpcProvider(chain.anvil.rpcUrl, undefined, {
      staticNetwork: true,
      pollingInterval: 50,
    });
    const treasury = accountAt(chain, 9).address;
    const controller = await deployMintController(chain.ens.deployer, {
      registry: chain.contracts.ensRegistry,
      nameWrapper: chain.contracts.nameWrapper,
      resolver: chain.contracts.publicResolver,
      treasury,
      signer: new Wallet(MINT_SIGNER_KEY).address,
      owner: accountAt(chain, 0).address,
    });
    const controllerAddress = await controller.getAddress();
    return {
      chain,
      provider,
      controller: new Contract(controllerAddress, mintControllerArtifact.abi, provider),
      controllerAddress,
      treasury,
      stop: async () => {
        provider.destroy();
        await chain.stop();
      },
    };
  } catch (err) {
    await chain.stop();
    throw err;
  }
}

export function accountAt(chain: EnsChain, index: number): { address: string; privateKey: string } {
  const account = chain.accounts[index];
  if (!account) throw new Error(`no anvil account ${index}`);
  return account;
}

/** A funded nonce-managed signer for anvil account `index`. */
export function walletAt(env: Pick<MintControllerChain, 'chain'>, index: number): NonceManager {
  return env.chain.ens.signerOf(accountAt(env.chain, index).privateKey);
}

/** Approves the controller on the registry (unwrapped parent) or the NameWrapper (wrapped parent). */
export async function approveController(
  env: Pick<MintControllerChain, 'chain' | 'controllerAddress'>,
  ownerIndex: number,
  wrapped: boolean,
): Promise<void> {
  const signer = walletAt(env, ownerIndex);
  const target = wrapped ? env.chain.ens.contract('nameWrapper') : env.chain.ens.contract('ensRegistry');
  await env.chain.ens.send(target, signer, 'setApprovalForAll', [env.controllerAddress, true]);
}

export type MintArgs = [MintParameters, string, string[], string];

/** The mint(...) arguments for a POST /api/v1/mint response body. */
export function mintArgs(
  body: {
    content: Record<string, unknown>;
    signature: string;
  },
  resolverData: string[] = [],
): MintArgs {
  const c = body.content;
  return [
    {
      owner: String(c.owner),
      label: String(c.label),
      parentNode: String(c.parentNode),
      price: BigInt(String(c.price)),
      fee: BigInt(String(c.fee)),
      paymentReceiver: String(c.paymentReceiver),
      expiry: BigInt(Number(c.expiry)),
      signatureExpiry: BigInt(Number(c.signatureExpiry)),
      verifiedMinter: String(c.verifiedMinter),
      fuses: Number(c.fuses),
    },
    body.signature,
    resolverData,
    '0x',
  ];
}

/** Sends mint(...) from `signer` with `value`; resolves to the receipt or rejects with the revert. */
export async function sendMint(
  env: Pick<MintControllerChain, 'controller'>,
  signer: Signer,
  args: MintArgs,
  value: bigint,
) {
  const controller = env.controller.connect(signer) as Contract;
  try {
    const tx = await controller.getFunction('mint').send(...args, { value });
    return await tx.wait();
  } catch (err) {
    if ('reset' in signer && typeof signer.reset === 'function') signer.reset();
    throw err;
  }
}

/** The custom error name of a failed contract call, e.g. `SignatureExpired`. */
export function revertName(env: Pick<MintControllerChain, 'controller'>, err: unknown): string | undefined {
  const data = (err as { data?: unknown }).data;
  if (typeof data !== 'string') return undefined;
  return env.controller.interface.parseError(data)?.name;
}

/** One parent on the L2: its registry and controller. */
export interface L2ParentContracts {
  registry: Address;
  controller: Address;
}

/** Deploys the registry of `parentName` and its controller (trusting MINT_SIGNER_KEY); `enable` lets it register. */
export async function deployL2Parent(
  l2: L2Chain,
  parentName: string,
  treasury: string,
  enable = true,
): Promise<L2ParentContracts> {
  const registry = await l2.deployRegistry(parentName);
  const controller = await l2.deployMintController(registry, treasury, new Wallet(MINT_SIGNER_KEY).address);
  if (enable) await l2.setController(registry, controller);
  return { registry, controller };
}

/** Sends mint(...) from `account` with `value` (simulated first: a revert throws its error). */
export const mintOnL2 = (
  l2: L2Chain,
  account: PrivateKeyAccount,
  controller: Address,
  args: MintArgs,
  value: bigint,
): Promise<unknown> => l2.send(account, controller, l2MintControllerAbi, 'mint', args, value);

/** The custom error a mint would revert with now; undefined when it would succeed. */
export async function mintRevertOnL2(
  l2: L2Chain,
  account: PrivateKeyAccount,
  controller: Address,
  args: MintArgs,
  value: bigint,
): Promise<string | undefined> {
  try {
    await l2.client.simulateContract({
      account,
      address: controller,
      abi: l2MintControllerAbi,
      functionName: 'mint',
      args,
      value,
    });
    return undefined;
  } catch (err) {
    const reverted = contractRevert(err);
    if (!reverted) throw err;
    return reverted.name;
  }
}
