import {
  getAddress,
  hashMessage,
  Interface,
  isError,
  isHexString,
  verifyMessage,
  type Provider,
} from 'ethers';
import { toUpstreamError } from '@nrp/chain';
import { dependencyProblem } from '@nrp/server';

/** `bytes4(keccak256("isValidSignature(bytes32,bytes)"))`, what a valid ERC-1271 signature returns. */
export const ERC1271_MAGIC_VALUE = '0x1626ba7e';

const erc1271 = new Interface([
  'function isValidSignature(bytes32 hash, bytes signature) view returns (bytes4)',
]);

export type SignatureKind = 'eoa' | 'erc1271';

/** The address recovered from an EIP-191 personal-message signature, or undefined when it is malformed. */
export function recoverMessageSigner(message: string, signature: string): string | undefined {
  try {
    return getAddress(verifyMessage(message, signature));
  } catch {
    return undefined;
  }
}

/**
 * Checks `signature` over the EIP-191 personal message `message` for `address`: first by ecrecover, then, if
 * that fails, a provider is given and the address has code, by ERC-1271 `isValidSignature(hashMessage(message),
 * signature)`. Returns how it was valid, or undefined when it is not. A failing RPC node is a 502 UPSTREAM_ERROR.
 */
export async function verifyMessageSignature(
  address: string,
  message: string,
  signature: string,
  provider?: Provider,
): Promise<SignatureKind | undefined> {
  const expected = getAddress(address);
  if (recoverMessageSigner(message, signature) === expected) return 'eoa';
  if (!provider || !isHexString(signature)) return undefined;
  try {
    const code = await provider.getCode(expected);
    if (code === '0x') return undefined;
    const data = erc1271.encodeFunctionData('isValidSignature', [hashMessage(message), signature]);
    const result = await provider.call({ to: expected, data });
    const [magic] = erc1271.decodeFunctionResult('isValidSignature', result);
    return typeof magic === 'string' && magic.toLowerCase() === ERC1271_MAGIC_VALUE ? 'erc1271' : undefined;
  } catch (err) {
    // A revert, or an answer that is not a bytes4, is a refusal; anything else is the node failing.
    if (isError(err, 'CALL_EXCEPTION') || isError(err, 'BAD_DATA')) return undefined;
    // The kit's 502, so its `upstream` member is the same as every other RPC failure's.
    throw dependencyProblem(toUpstreamError('ERC-1271 signature check failed', err));
  }
}
