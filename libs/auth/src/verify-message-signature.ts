import { getAddress, hashMessage, isHexString, verifyMessage, type Provider } from 'ethers';
import { callView, erc1271Interface, NoValue, toUpstreamError } from '@nrp/chain';
import { dependencyProblem } from '@nrp/server';

/** `bytes4(keccak256("isValidSignature(bytes32,bytes)"))`, what a valid ERC-1271 signature returns. */
export const ERC1271_MAGIC_VALUE = '0x1626ba7e';

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
  const context = 'ERC-1271 signature check';
  // A failing node is the kit's 502, so its `upstream` member is the same as every other RPC failure's.
  const code = await provider.getCode(expected).catch((err: unknown) => {
    throw dependencyProblem(toUpstreamError(context, err));
  });
  if (code === '0x') return undefined;
  const answer = await callView<[string]>(provider, {
    to: expected,
    abi: erc1271Interface,
    fn: 'isValidSignature',
    args: [hashMessage(message), signature],
    context,
  }).catch((err: unknown) => {
    throw dependencyProblem(err);
  });
  // A revert, or an answer that is not a bytes4, is a refusal.
  if (answer instanceof NoValue) return undefined;
  const [magic] = answer;
  return typeof magic === 'string' && magic.toLowerCase() === ERC1271_MAGIC_VALUE ? 'erc1271' : undefined;
}
