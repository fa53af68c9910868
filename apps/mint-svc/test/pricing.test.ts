import { formatEther, parseEther } from 'ethers';
import { listingInputSchema, storedListingSchema } from '@nrp/api';
import { mintValidationErrors, type EligibilityInput } from '../src/mint/eligibility';
import { labelLength, mintExpiry, quoteMint, SECONDS_PER_YEAR, weiToEtherNumber } from '../src/mint/pricing';

const settings = listingInputSchema.parse({
  basePriceWei: '1000000000000000',
  lengthPrices: [
    { length: 1, priceWei: '1000000000000000000' },
    { length: 3, priceWei: '50000000000000000' },
  ],
  fee: { type: 'share', basisPoints: 333 },
});

describe('quoteMint (integer wei only)', () => {
  it.each([
    ['a', 1, 10n ** 18n],
    ['abc', 2, 10n ** 17n],
    ['abcd', 5, 5n * 10n ** 15n],
    ['日本', 1, 10n ** 15n],
    ['🚀', 1, 10n ** 18n],
  ])('%s for %i year(s) costs %s wei', (label, years, price) => {
    expect(quoteMint(settings, label, years, 7n).price).toBe(price);
  });

  it('a share fee is basis points of the price, rounded down; the standard fee is fixed per mint', () => {
    // 333 bps of 0.1 ETH = 0.00333 ETH exactly.
    expect(quoteMint(settings, 'abc', 2, 7n)).toEqual({
      price: 10n ** 17n,
      fee: 333n * 10n ** 13n,
      isStandardFee: false,
    });
    const odd = listingInputSchema.parse({ basePriceWei: '9999', fee: { type: 'share', basisPoints: 1 } });
    expect(quoteMint(odd, 'abcd', 1, 0n).fee).toBe(0n);
    expect(quoteMint(odd, 'abcd', 3, 0n).fee).toBe(2n); // 29997 / 10000
    const standard = listingInputSchema.parse({ basePriceWei: '5' });
    expect(quoteMint(standard, 'abcd', 10, 123n)).toEqual({ price: 50n, fee: 123n, isStandardFee: true });
  });

  it('handles amounts far beyond Number.MAX_SAFE_INTEGER exactly', () => {
    // Above the API's ceiling: a listing stored before it.
    const huge = storedListingSchema.parse({
      basePriceWei: (2n ** 200n).toString(),
      fee: { type: 'share', basisPoints: 10_000 },
    });
    expect(quoteMint(huge, 'abcd', 100, 0n)).toEqual({
      price: 2n ** 200n * 100n,
      fee: 2n ** 200n * 100n,
      isStandardFee: false,
    });
  });

  it('refuses a non-integer year count', () => {
    expect(() => quoteMint(settings, 'abcd', 1.5, 0n)).toThrow(RangeError);
    expect(() => quoteMint(settings, 'abcd', 0, 0n)).toThrow(RangeError);
  });

  it('labelLength counts code points, not UTF-16 units or bytes', () => {
    expect(labelLength('abc')).toBe(3);
    expect(labelLength('🚀')).toBe(1);
    expect(labelLength('日本語')).toBe(3);
  });
});

describe('weiToEtherNumber', () => {
  it.each([
    [1n, 1e-18],
    [1000n, 1e-15],
    [10n ** 15n, 0.001],
    [123456789n * 10n ** 9n, 0.123456789],
    [3n * 10n ** 17n, 0.3],
    [10n ** 27n, 1e9],
  ])('%s wei is %s ether', (wei, ether) => {
    expect(weiToEtherNumber(wei)).toBe(ether);
  });

  it('is the nearest double to the exact decimal, and round-trips for up to 15 significant digits', () => {
    for (const wei of [1n, 7n, 999n, 123456789012345n, 10n ** 18n + 1n, 987654321098765n * 10n ** 12n]) {
      const ether = weiToEtherNumber(wei);
      expect(ether).toBe(Number(formatEther(wei)));
      const digits = wei.toString().replace(/0+$/, '').length;
      // Shortest decimal text of the double (exponent form only for tiny values, where toFixed is exact).
      const text = /e/.test(String(ether)) ? ether.toFixed(18) : String(ether);
      if (digits <= 15) expect(parseEther(text)).toBe(wei);
    }
  });
});

describe('mintExpiry', () => {
  it('is now + whole years of 365 days, never past the parent expiry', () => {
    expect(mintExpiry(1000, 2, null)).toBe(1000 + 2 * SECONDS_PER_YEAR);
    expect(mintExpiry(1000, 2, 5000)).toBe(5000);
    expect(mintExpiry(1000, 1, 1000 + 2 * SECONDS_PER_YEAR)).toBe(1000 + SECONDS_PER_YEAR);
  });
});

describe('mintValidationErrors', () => {
  const minter = '0x70997970C51812dc3A010C7d01b50e554d6Fb8db';
  const open = listingInputSchema.parse({ basePriceWei: '1' });
  const base: EligibilityInput = {
    settings: open,
    label: 'abc',
    minter,
    subnameTaken: false,
    gateBalance: null,
    minterVerified: false,
    nowSeconds: 1000,
    due: 1n,
  };

  it('an open listing allows anyone', () => {
    expect(mintValidationErrors(base)).toEqual([]);
  });

  it('each condition yields its code', () => {
    const gate = { standard: 'erc1155' as const, contract: minter, tokenId: '1', minBalance: '2' };
    expect(mintValidationErrors({ ...base, subnameTaken: true })).toEqual(['SUBNAME_TAKEN']);
    expect(
      mintValidationErrors({ ...base, settings: { ...open, tokenGate: gate }, gateBalance: 1n }),
    ).toEqual(['MINTER_NOT_TOKEN_OWNER']);
    expect(
      mintValidationErrors({ ...base, settings: { ...open, tokenGate: gate }, gateBalance: 2n }),
    ).toEqual([]);
    expect(
      mintValidationErrors({ ...base, settings: { ...open, allowList: [minter.toLowerCase()] } }),
    ).toEqual([]);
    expect(
      mintValidationErrors({ ...base, settings: { ...open, allowList: ['0x' + '1'.repeat(40)] } }),
    ).toEqual(['MINTER_NOT_WHITELISTED']);
    expect(mintValidationErrors({ ...base, settings: { ...open, expiresAt: 1000 } })).toEqual([
      'LISTING_EXPIRED',
    ]);
    expect(mintValidationErrors({ ...base, settings: { ...open, expiresAt: 1001 } })).toEqual([]);
    expect(mintValidationErrors({ ...base, settings: { ...open, reservedLabels: ['abc'] } })).toEqual([
      'SUBNAME_RESERVED',
    ]);
    expect(mintValidationErrors({ ...base, settings: { ...open, requireVerifiedMinter: true } })).toEqual([
      'VERIFIED_MINTER_ADDRESS_REQUIRED',
    ]);
    expect(
      mintValidationErrors({
        ...base,
        settings: { ...open, requireVerifiedMinter: true },
        minterVerified: true,
      }),
    ).toEqual([]);
  });
});
