import type { VerifiedMinter } from '@nrp/api';
import type { NetworkName } from '@nrp/ens';
import type { MintContext } from '../context';
import { recordVerifiedMinter } from '../data/verified-minters';
import { verifySignedRequest, type SignedFields, type SignInContext } from '../sign-in/sign-in';

/**
 * Records the signer of a sign-in message (scope `minter`) as a verified minter of `network` for
 * MINTER_VERIFICATION_TTL_SECONDS, consuming the nonce.
 */
export async function verifyMinter(
  ctx: SignInContext & Pick<MintContext, 'db'>,
  network: NetworkName,
  fields: SignedFields,
): Promise<VerifiedMinter> {
  const signIn = await verifySignedRequest(ctx, network, { scope: 'minter', operation: 'verify' }, fields);
  const now = ctx.now();
  const verifiedUntil = Math.floor(now.getTime() / 1000) + ctx.config.MINTER_VERIFICATION_TTL_SECONDS;
  await recordVerifiedMinter(ctx.db, network, signIn.address, now, new Date(verifiedUntil * 1000));
  return { network, address: signIn.address, verifiedUntil };
}
