import { verifySignedFields, type SignedFields, type VerifiedSignIn } from '@nrp/auth';
import type { NetworkName } from '@nrp/chain';
import type { MetadataContext } from './context';

export type { SignedFields };

/**
 * Verifies the EIP-4361 fields of an upload or delete for `network` (its chain id) and `scope` (`avatar` or
 * `header`), consuming the nonce; contract wallets are checked with ERC-1271 on that network.
 */
export function signIn(
  ctx: MetadataContext,
  network: NetworkName,
  scope: string,
  fields: SignedFields,
): Promise<VerifiedSignIn> {
  const access = ctx.networks[network];
  return verifySignedFields(fields, {
    domains: ctx.config.SIWE_DOMAINS,
    chainId: access.config.chainId,
    scope,
    nonces: ctx.nonces,
    provider: access.provider,
    now: ctx.now(),
  });
}
