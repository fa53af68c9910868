/** The fields of an EIP-4361 (Sign-In with Ethereum) message. */
export interface SignInMessageFields {
  /** `host[:port]` the wallet shows and the service checks (one of its accepted domains), e.g. `app.example.com`. */
  domain: string;
  /** EIP-55 checksummed, as wallets give it (viem's `account.address`, ethers' `signer.address`). */
  address: string;
  /** One line saying what the signature allows. */
  statement?: string;
  /** The resource the signature is about (RFC 3986). */
  uri: string;
  chainId: number;
  /** From the service's nonce endpoint. */
  nonce: string;
  /** Default: now. */
  issuedAt?: Date;
  expirationTime?: Date;
  notBefore?: Date;
  requestId?: string;
  resources?: readonly string[];
}

function singleLine(field: string, value: string): string {
  if (/[\r\n]/.test(value)) throw new TypeError(`${field} must be a single line`);
  return value;
}

/** The message text exactly as EIP-4361 lays it out (LF line ends); sign it with the wallet (EIP-191). */
export function buildSignInMessage(fields: SignInMessageFields): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(fields.address)) {
    throw new TypeError('address must be a 0x-prefixed 20-byte address (EIP-55 checksummed)');
  }
  if (!/^[a-zA-Z0-9]{8,}$/.test(fields.nonce)) throw new TypeError('nonce must be at least 8 alphanumerics');
  const lines = [
    `${singleLine('domain', fields.domain)} wants you to sign in with your Ethereum account:`,
    fields.address,
    '',
    ...(fields.statement === undefined ? [] : [singleLine('statement', fields.statement)]),
    '',
    `URI: ${singleLine('uri', fields.uri)}`,
    'Version: 1',
    `Chain ID: ${fields.chainId}`,
    `Nonce: ${fields.nonce}`,
    `Issued At: ${(fields.issuedAt ?? new Date()).toISOString()}`,
  ];
  if (fields.expirationTime) lines.push(`Expiration Time: ${fields.expirationTime.toISOString()}`);
  if (fields.notBefore) lines.push(`Not Before: ${fields.notBefore.toISOString()}`);
  if (fields.requestId !== undefined) lines.push(`Request ID: ${singleLine('requestId', fields.requestId)}`);
  if (fields.resources?.length) {
    lines.push('Resources:', ...fields.resources.map((resource) => `- ${singleLine('resource', resource)}`));
  }
  return lines.join('\n');
}

/** Chain ids of the networks the services serve: the `Chain ID` of a sign-in message for that network. */
export { NETWORK_CHAIN_IDS } from '@nrp/ens';

export interface BoundSignInInput {
  domain: string;
  address: string;
  nonce: string;
  chainId: number;
  /** The URL of what the request acts on: the message's URI and its only resource. */
  url: string;
  /** One line naming the operation, e.g. `Upload the avatar of alice.eth on sepolia.` */
  statement: string;
  issuedAt?: Date;
  /** Default: ten minutes after `issuedAt`. */
  expirationTime?: Date;
}

/**
 * A message bound to one request: its URI and only resource are the URL of what the request acts on and its
 * statement names the operation, so the services refuse it (401 RESOURCE_MISMATCH) for anything else.
 */
export function boundSignInMessage(input: BoundSignInInput): string {
  const issuedAt = input.issuedAt ?? new Date();
  return buildSignInMessage({
    domain: input.domain,
    address: input.address,
    statement: input.statement,
    uri: input.url,
    chainId: input.chainId,
    nonce: input.nonce,
    issuedAt,
    expirationTime: input.expirationTime ?? new Date(issuedAt.getTime() + 10 * 60_000),
    resources: [input.url],
  });
}
