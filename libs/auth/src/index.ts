export { authProblems, type AuthProblemCode } from './problems';
export { scopeAllows, parseScope, isValidScope } from './scope';
export { generateNonce } from './generate-nonce';
export {
  createNonceStore,
  type NonceStore,
  type PgNonceStore,
  type NonceStoreOptions,
  type IssuedNonce,
  type NonceRow,
  type NonceTables,
} from './nonce-store';
export { nonceMigration, DEFAULT_NONCE_TABLE } from './nonce-migration';
export { parseSignInMessage, MAX_SIGN_IN_MESSAGE_LENGTH, type SignInMessage } from './parse-sign-in-message';
export {
  verifyMessageSignature,
  recoverMessageSigner,
  ERC1271_MAGIC_VALUE,
  ERC6492_MAGIC_SUFFIX,
  type SignatureKind,
} from './verify-message-signature';
export {
  verifySignIn,
  normalizeDomain,
  type SignInInput,
  type SignInContext,
  type VerifiedSignIn,
} from './verify-sign-in';
export { checkSignInBinding, SIGN_IN_BINDING_RULE, type SignInBinding } from './check-sign-in-binding';
export { generateApiKey, hashApiKey, apiKeyMatches } from './api-key';
export { verifySignedFields, type SignedFields } from './verify-signed-fields';
export { startNonceSweeper } from './nonce-sweeper';
export { nonceRoute, type NonceRouteOptions } from './nonce-route';
