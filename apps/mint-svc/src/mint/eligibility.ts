import { MaxUint256 } from 'ethers';
import { VALIDATION_ERRORS, type ListingSettings, type MintValidationError } from '@nrp/api';

export interface EligibilityInput {
  settings: Pick<
    ListingSettings,
    'allowList' | 'tokenGate' | 'reservedLabels' | 'expiresAt' | 'requireVerifiedMinter'
  >;
  label: string;
  /** EIP-55 address. */
  minter: string;
  subnameTaken: boolean;
  /** Minter's balance of the gating token; null when there is no gate. */
  gateBalance: bigint | null;
  /** Whether the minter holds a live verification (only asked when the listing requires one). */
  minterVerified: boolean;
  nowSeconds: number;
  /** Price plus fee, wei: what the mint transaction's value must be. */
  due: bigint;
}

/** Every reason the mint is not allowed, in the fixed order of VALIDATION_ERRORS; empty when it is. */
export function mintValidationErrors(input: EligibilityInput): MintValidationError[] {
  const { settings } = input;
  const found = new Set<MintValidationError>();
  if (input.subnameTaken) found.add('SUBNAME_TAKEN');
  if (settings.tokenGate) {
    const needed = BigInt(settings.tokenGate.minBalance);
    if ((input.gateBalance ?? 0n) < needed) found.add('MINTER_NOT_TOKEN_OWNER');
  }
  if (settings.allowList.length > 0) {
    const minter = input.minter.toLowerCase();
    if (!settings.allowList.some((a) => a.toLowerCase() === minter)) found.add('MINTER_NOT_WHITELISTED');
  }
  if (settings.expiresAt !== null && settings.expiresAt <= input.nowSeconds) found.add('LISTING_EXPIRED');
  if (settings.reservedLabels.includes(input.label)) found.add('SUBNAME_RESERVED');
  if (settings.requireVerifiedMinter && !input.minterVerified) found.add('VERIFIED_MINTER_ADDRESS_REQUIRED');
  // A transaction's value (and the controller's uint256 sum) cannot hold more.
  if (input.due > MaxUint256) found.add('PRICE_NOT_PAYABLE');
  return VALIDATION_ERRORS.filter((code) => found.has(code));
}
