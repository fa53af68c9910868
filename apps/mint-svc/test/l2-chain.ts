/**
 * mint-svc's parents on the L2 of @nrp/testkit's startL2Chain: per parent an L2Registry and the L2MintController
 * that mints under it, trusting the service's signer.
 */
import type { Address } from 'viem';
import type { PrivateKeyAccount } from 'viem/accounts';
import { Wallet } from 'ethers';
import { contractRevert, l2MintControllerAbi, type L2Chain } from '@nrp/testkit';
import { SIGNER_KEY, type MintArgs } from './helpers';

/** One parent on the L2: its registry and controller. */
export interface L2ParentContracts {
  registry: Address;
  controller: Address;
}

/** Deploys the registry of `parentName` and its controller; `enable` lets the controller register. */
export async function deployL2Parent(
  l2: L2Chain,
  parentName: string,
  treasury: string,
  enable = true,
): Promise<L2ParentContracts> {
  const registry = await l2.deployRegistry(parentName);
  const controller = await l2.deployMintController(registry, treasury, new Wallet(SIGNER_KEY).address);
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
