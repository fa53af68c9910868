import { AbiCoder, concat, getAddress, hashMessage, isHexString, verifyMessage, type Provider } from 'ethers';
import { callDeployless, callView, erc1271Interface, NoValue, toUpstreamError } from '@nrp/chain';
import { erc6492SignatureValidatorArtifact } from '@nrp/contracts';
import { dependencyProblem } from '@nrp/server';

/** `bytes4(keccak256("isValidSignature(bytes32,bytes)"))`, what a valid ERC-1271 signature returns. */
export const ERC1271_MAGIC_VALUE = '0x1626ba7e';

/** The 32 bytes that end an ERC-6492 signature: `abi.encode(factory, factoryCalldata, signature)` comes before them. */
export const ERC6492_MAGIC_SUFFIX = `0x${'6492'.repeat(16)}`;

export type SignatureKind = 'eoa' | 'erc1271' | 'erc6492';

/**
 * ERC-6492's verdict on `signature` (it ends in the magic suffix) of `address` over `hash`: one deployless `eth_call`
 * of the universal validator, which deploys a counterfactual account through its factory call (nothing persists) and
 * asks its ERC-1271 `isValidSignature`. A reverted check (a signature that does not decode) is a refusal.
 */
async function erc6492Valid(
  provider: Provider,
  address: string,
  hash: string,
  signature: string,
): Promise<boolean> {
  const args = AbiCoder.defaultAbiCoder().encode(['address', 'bytes32', 'bytes'], [address, hash, signature]);
  const answer = await callDeployless(provider, {
    data: concat([erc6492SignatureValidatorArtifact.bytecode, args]),
    context: 'ERC-6492 signature check',
  }).catch((err: unknown) => {
    throw dependencyProblem(err);
  });
  return answer === '0x01';
}

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
 * that fails and a provider is given: a signature ending in ERC6492_MAGIC_SUFFIX by ERC-6492's universal validator
 * (a smart account deployed or not yet deployed), any other, when the address has code, by ERC-1271
 * `isValidSignature(hashMessage(message), signature)`. Returns how it was valid, or undefined when it is not. A
 * failing RPC node is a 502 UPSTREAM_ERROR.
 */
export async function verifyMessageSignature(
  address: string,
  message: string,
  signature: string,
  provider?: Provider,
): Promise<SignatureKind | undefined> {
  const expected = getAddress(address);
  if (recoverMessageSigner(message, signature) === expected) return 'eoa';
  if (!provider || !isHexString(signature, true)) return undefined;
  if (signature.toLowerCase().endsWith(ERC6492_MAGIC_SUFFIX.slice(2))) {
    return (await erc6492Valid(provider, expected, hashMessage(message), signature)) ? 'erc6492' : undefined;
  }
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
