import type { BaseWallet } from 'ethers';
import { MINT_CONTEXT_TYPES, mintEip712Domain, type MintContext as MintParameters } from '@nrp/contracts';

/** The service's EIP-712 signature over `params` for the controller at `controller` on `chainId`. */
export function signMintContext(
  signer: BaseWallet,
  chainId: number,
  controller: string,
  params: MintParameters,
): Promise<string> {
  return signer.signTypedData(mintEip712Domain(chainId, controller), MINT_CONTEXT_TYPES, { ...params });
}
