import { verifySignedFields, type SignedFields, type VerifiedSignIn } from '@nrp/auth';
import type { MintNetwork } from '@nrp/api';
import { settlementOf } from '@nrp/chain';
import type { MintContext } from '../context';

export type { SignedFields };

/** What a signed request acts on: a listing (updated or deleted) or the minter verification of a network. */
export type SignedAction =
  | { scope: 'listing'; operation: 'update' | 'delete'; parentName: string }
  | { scope: 'minter'; operation: 'verify' };

/** The operations a bound message's statement or resource fragment may name, per scope. */
const OPERATIONS = { listing: ['update', 'delete'], minter: ['verify'] } as const;

/** The URL a bound message names for `action`: the listing's own URL, or the minter verification route. */
export function signedActionUrl(baseUrl: string, network: MintNetwork, action: SignedAction): string {
  return action.scope === 'listing'
    ? `${baseUrl}/api/v1/listings/${network}/${encodeURIComponent(action.parentName)}`
    : `${baseUrl}/api/v1/minters/verify`;
}

/** What verifying a sign-in reads. */
export type SignInContext = Pick<MintContext, 'config' | 'networks' | 'nonces' | 'now'>;

/**
 * Verifies a sign-in message for `network` (its chain id) and the scope of `action` (`listing` or `minter`) and
 * consumes its nonce; 401 with the precise auth code otherwise. ERC-1271 wallets (and ERC-6492 signatures of smart
 * accounts not deployed yet) are checked on that network's chain. For a listing on an L2 the chain id (and the
 * ERC-1271 check) is the L1's it settles on. A message that binds itself (Resources, or a URI of this service, under
 * `{PUBLIC_BASE_URL}`) must name the listing (or the minter verification) and the operation.
 */

export function verifySignedRequest(
  ctx: SignInContext,
  network: MintNetwork,
  action: SignedAction,
  fields: SignedFields,
): Promise<VerifiedSignIn> {
  const net = ctx.networks[settlementOf(network)];
  return verifySignedFields(fields, {
    domains: ctx.config.SIWE_DOMAINS,
    chainId: net.config.chainId,
    scope: action.scope,
    binding: {
      resource: signedActionUrl(ctx.config.PUBLIC_BASE_URL, network, action),
      operation: action.operation,
      operations: OPERATIONS[action.scope],
      serviceUrl: ctx.config.PUBLIC_BASE_URL,
    },
    nonces: ctx.nonces,
    provider: net.provider,
    now: ctx.now(),
  });
}
