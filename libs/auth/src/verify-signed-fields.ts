import { verifySignIn, type SignInContext, type VerifiedSignIn } from './verify-sign-in';

/** The sign-in members of a request body, as every service's API names them. */
export interface SignedFields {
  siweMessage: string;
  siweSignature: string;
  address: string;
}

/**
 * `verifySignIn` for a request carrying `siweMessage`, `siweSignature` and `address`: the service passes its
 * accepted domains, the chain id and provider of the request's network (ERC-1271 wallets are checked there), the
 * scope of the operation, its nonce store and clock. Consumes the nonce; throws the precise 401 problem otherwise.
 */
export function verifySignedFields(fields: SignedFields, context: SignInContext): Promise<VerifiedSignIn> {
  return verifySignIn(
    { message: fields.siweMessage, signature: fields.siweSignature, address: fields.address },
    context,
  );
}
