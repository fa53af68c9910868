import { defineProblems } from '@nrp/validation';

/** Every way a sign-in can fail. All are 401: the credential (message, signature or nonce) is not acceptable. */
export const authProblems = defineProblems({
  INVALID_SIGNATURE: {
    status: 401,
    title: 'Invalid sign-in signature',
    hint: 'Sign the exact EIP-4361 message text with the wallet named in it (EIP-191 personal_sign, or ERC-1271 for a contract wallet), and send the message unchanged.',
  },
  INVALID_NONCE: {
    status: 401,
    title: 'Invalid nonce',
    hint: 'The nonce is unknown, already used, or was issued to another address. Request a new nonce for this address and sign a new message.',
  },
  EXPIRED_NONCE: {
    status: 401,
    title: 'Nonce expired',
    hint: 'Nonces live a few minutes (see `expiresAt`). Request a new nonce and sign a new message.',
  },
  NONCE_SCOPE_MISMATCH: {
    status: 401,
    title: 'Nonce scope does not allow this operation',
    hint: 'Request a nonce whose scope covers this operation (e.g. `avatar`, `header` or `avatar+header`).',
  },
  ADDRESS_MISMATCH: {
    status: 401,
    title: 'Address does not match the signed message',
    hint: 'The `address` field must be the address on the second line of the sign-in message.',
  },
  CHAIN_MISMATCH: {
    status: 401,
    title: 'Chain id does not match',
    hint: "The message's `Chain ID` must be the chain id of the network in the request path (mainnet 1, sepolia 11155111).",
  },
  DOMAIN_MISMATCH: {
    status: 401,
    title: 'Domain not accepted',
    hint: "The message's domain (first line) must be one of the domains this service is configured for.",
  },
  MESSAGE_EXPIRED: {
    status: 401,
    title: 'Sign-in message not valid at this time',
    hint: 'Check `Expiration Time`, `Not Before` and `Issued At` against the current time; sign a new message with a fresh timestamp.',
  },
  RESOURCE_MISMATCH: {
    status: 401,
    title: 'Sign-in message bound to something else',
    hint: "The message's `Resources` (or its URI, when it is a URL of this service) name another request, or its statement names another operation. Sign a message whose URI and only resource are the URL of this request (e.g. `{base}/profile/{network}/{name}/{avatar|header}`) and whose statement names this operation.",
  },
});

export type AuthProblemCode = keyof typeof authProblems;
