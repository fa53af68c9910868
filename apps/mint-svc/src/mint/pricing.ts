import { formatEther } from 'ethers';
import type { ListingSettings } from '@nrp/api';

export const SECONDS_PER_YEAR = 365 * 24 * 3600;

export interface Quote {
  /** Wei. */
  price: bigint;
  /** Wei. */
  fee: bigint;
  isStandardFee: boolean;
}

/** Length of a normalised label in Unicode code points (what ENS apps show as the length). */
export function labelLength(label: string): number {
  return [...label].length;
}

/** Price per year of `label`: its exact-length entry, else the base price. */
export function yearlyPrice(
  settings: Pick<ListingSettings, 'basePriceWei' | 'lengthPrices'>,
  label: string,
): bigint {
  const length = labelLength(label);
  const entry = settings.lengthPrices.find((p) => p.length === length);
  return BigInt(entry ? entry.priceWei : settings.basePriceWei);
}

/**
 * Price and fee of minting `label` for `years` whole years, in wei (integer arithmetic only). A `share` fee is
 * basisPoints/10000 of the price, rounded down; the standard fee is `standardFeeWei` per mint.
 */
export function quoteMint(
  settings: Pick<ListingSettings, 'basePriceWei' | 'lengthPrices' | 'fee'>,
  label: string,
  years: number,
  standardFeeWei: bigint,
): Quote {
  if (!Number.isInteger(years) || years < 1) throw new RangeError('years must be a positive integer');
  const price = yearlyPrice(settings, label) * BigInt(years);
  if (settings.fee.type === 'standard') return { price, fee: standardFeeWei, isStandardFee: true };
  return { price, fee: (price * BigInt(settings.fee.basisPoints)) / 10_000n, isStandardFee: false };
}

/**
 * Ether as a JSON number, derived from the exact decimal text of the wei amount: the nearest double to
 * `formatEther(wei)`. For amounts with up to 15 significant digits it converts back to the same wei.
 */
export function weiToEtherNumber(wei: bigint): number {
  return Number(formatEther(wei));
}

/**
 * Expiry (Unix seconds) of a name minted now for `years`, never beyond `parentExpiry` when there is one.
 */
export function mintExpiry(nowSeconds: number, years: number, parentExpiry: number | null): number {
  const wanted = nowSeconds + years * SECONDS_PER_YEAR;
  return parentExpiry === null ? wanted : Math.min(wanted, parentExpiry);
}
