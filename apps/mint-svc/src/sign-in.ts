import { verifySignedFields, type SignedFields, type VerifiedSignIn } from '@nrp/auth';
import type { MintNetwork } from '@nrp/api';
import type { MintServiceContext } from './context';

export type { SignedFields };

/**
 * Verifies a sign-in message for `network` (its chain id) and `scope` (`listing` or `minter`) and consumes its
 * nonce; 401 with the precise auth code otherwise. ERC-1271 wallets are checked on that network's chain.
 */
export function verifySignedRequest(
  ctx: MintServiceContext,
  network: MintNetwork,
  scope: 'listing' | 'minter',
  fields: SignedFields,
): Promise<VerifiedSignIn> {
  const net = ctx.networks[network];
  return verifySignedFields(fields, {
    domains: ctx.siweDomains,
    chainId: net.config.chainId,
    scope,
    nonces: ctx.nonces,
    provider: net.provider,
    now: new Date(ctx.now()),
  });
}
