import { verifySignIn, type VerifiedSignIn } from '@nrp/auth';
import type { MintNetwork } from '@nrp/client';
import type { MintServiceContext } from './context';

export interface SignedFields {
  siweMessage: string;
  siweSignature: string;
  address: string;
}

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
  return verifySignIn(
    { message: fields.siweMessage, signature: fields.siweSignature, address: fields.address },
    {
      domains: ctx.siweDomains,
      chainId: net.config.chainId,
      scope,
      nonces: ctx.nonces,
      provider: net.provider,
      now: new Date(ctx.now()),
    },
  );
}
