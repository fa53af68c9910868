import { verifySignedFields, type SignedFields, type VerifiedSignIn } from '@nrp/auth';
import type { NetworkName } from '@nrp/chain';
import type { MetadataContext } from '../context';
import type { ImageKind } from '../data/schema';
import { stableImageUrl } from '../uploads/stable-url';

export type { SignedFields };

export type ImageOperation = 'upload' | 'delete';

/** The operations a bound message's statement or resource fragment may name. */
const IMAGE_OPERATIONS: readonly ImageOperation[] = ['upload', 'delete'];

/**
 * Verifies the EIP-4361 fields of an upload or delete of the `kind` (also the nonce scope) of `name` on `network`
 * (its chain id), consuming the nonce; contract wallets are checked with ERC-1271 on that network. A message that
 * binds itself (Resources, or a URI under `{PUBLIC_BASE_URL}/profile/`) must name this image and operation.
 */
export function signIn(
  ctx: Pick<MetadataContext, 'config' | 'networks' | 'nonces' | 'now'>,
  target: { network: NetworkName; name: string; kind: ImageKind },
  operation: ImageOperation,
  fields: SignedFields,
): Promise<VerifiedSignIn> {
  const access = ctx.networks[target.network];
  const base = ctx.config.PUBLIC_BASE_URL;
  return verifySignedFields(fields, {
    domains: ctx.config.SIWE_DOMAINS,
    chainId: access.config.chainId,
    scope: target.kind,
    binding: {
      resource: stableImageUrl(base, target.network, target.name, target.kind),
      operation,
      operations: IMAGE_OPERATIONS,
      serviceUrl: base,
    },
    nonces: ctx.nonces,
    provider: access.provider,
    now: ctx.now(),
  });
}
