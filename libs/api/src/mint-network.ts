/** The networks of the mint API: the L1s and L2s a parent can be listed on, and how `isTestnet` maps to them. */
import { z } from 'zod';
import { MINT_NETWORK_NAMES, NETWORK_NAMES, settlementOf, type AnyNetworkName } from '@nrp/ens';

export const mintNetworkSchema = z
  .enum(MINT_NETWORK_NAMES)
  .meta({ description: '`mainnet`, `sepolia` (L1s) or `base`, `base-sepolia` (L2s).' });
export type MintNetwork = z.output<typeof mintNetworkSchema>;

/** The L1s: where parents are owned and sign-in messages are checked (an L2 listing's settlement L1). */
export const l1NetworkSchema = z.enum(NETWORK_NAMES).meta({ description: '`mainnet` or `sepolia`.' });

/** Whether `network` is a testnet (`sepolia`, or an L2 settling on it): what `isTestnet` must agree with. */
export function isTestnetNetwork(network: AnyNetworkName): boolean {
  return settlementOf(network) === 'sepolia';
}

export const NETWORK_RULE =
  '`network` decides when given; an `isTestnet` that contradicts it (sepolia and base-sepolia are testnets) is a ' +
  '400 naming both. With only `isTestnet` (default false), the listing is looked up on the L1 of that kind ' +
  '(mainnet/sepolia) first, then on its L2 (base/base-sepolia).';

/** `network` and `isTestnet` given together must agree: a 400 naming both fields otherwise. */
export function refineNetworkAgreement(
  value: { network?: AnyNetworkName | undefined; isTestnet?: boolean | undefined },
  ctx: z.RefinementCtx,
): void {
  if (value.network === undefined || value.isTestnet === undefined) return;
  if (isTestnetNetwork(value.network) === value.isTestnet) return;
  const message = `network ${value.network} ${value.isTestnet ? 'is not' : 'is'} a testnet, isTestnet is ${value.isTestnet}`;
  ctx.addIssue({ code: 'custom', path: ['network'], message });
  ctx.addIssue({ code: 'custom', path: ['isTestnet'], message });
}
