/**
 * The mint service's API: request/response schemas (the service validates with these same schemas; clients may
 * opt in to response validation). Amounts are wei as decimal strings; times are Unix seconds unless named otherwise.
 */
import { z } from 'zod';
import { L2_NETWORK_NAMES } from '@nrp/ens';
import { ensName, ethAddress, INVALID_NAME_ISSUE, queryBoolean } from '@nrp/validation';
import { cursorField } from './cursor';
import { signedRequestSchema } from './signed-request';
import {
  NETWORK_RULE,
  l1NetworkSchema,
  mintNetworkSchema,
  refineNetworkAgreement,
  type MintNetwork,
} from './mint-network';

export { isTestnetNetwork, l1NetworkSchema, mintNetworkSchema, type MintNetwork } from './mint-network';

// ----- shared pieces -----

/** A whole number of wei as a decimal string (uint256 range). */
export const weiString = z
  .string()
  .regex(/^(0|[1-9]\d{0,77})$/, 'must be a whole number of wei as a decimal string')
  // zod runs refinements after a failed regex too (the issue is not fatal): BigInt must only see digits.
  .refine((v) => !/^\d+$/.test(v) || BigInt(v) < 2n ** 256n, 'must fit in uint256')
  .meta({ description: 'Amount in wei, decimal string.', example: '1000000000000000' });

/** A whole number of wei as a decimal string, of any size (an amount the service computed, not one it accepts). */
const computedWeiString = z
  .string()
  .regex(/^(0|[1-9]\d*)$/)
  .meta({ description: 'Amount in wei, decimal string.', example: '1000000000000000' });

/** The most a listing may ask a year for a label, in wei: 10^30 (a trillion ether). */
export const MAX_LISTING_PRICE_WEI = 10n ** 30n;

/**
 * The longest term of a mint, in years: with MAX_LISTING_PRICE_WEI, price × term + a fee of at most the price stays
 * far inside uint256, what a transaction's value and the controller's arithmetic hold.
 */
export const MAX_MINT_YEARS = 100;

/** A listing's price a year: wei, at most MAX_LISTING_PRICE_WEI. */
const listingPriceWei = weiString.refine(
  (v) => !/^\d+$/.test(v) || BigInt(v) <= MAX_LISTING_PRICE_WEI,
  `must be at most ${MAX_LISTING_PRICE_WEI} wei (10^30, the ceiling of a yearly price)`,
);

/** One ENS label (no dots), normalised with ENSIP-15. */
export function ensLabel(limits: { min: number; max: number }) {
  return ensName(limits).superRefine((value, ctx) => {
    if (value.includes('.')) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be a single label (no dots)',
        params: { problem: INVALID_NAME_ISSUE },
      });
    }
  });
}

/**
 * The reasons a mint is not allowed, in the order the service lists them: the contract's six, then
 * PRICE_NOT_PAYABLE (price × years + fee past uint256, which no transaction's value holds: only a listing stored
 * before MAX_LISTING_PRICE_WEI, or a huge STANDARD_FEE_WEI, can come to that).
 */
export const VALIDATION_ERRORS = [
  'SUBNAME_TAKEN',
  'MINTER_NOT_TOKEN_OWNER',
  'MINTER_NOT_WHITELISTED',
  'LISTING_EXPIRED',
  'SUBNAME_RESERVED',
  'VERIFIED_MINTER_ADDRESS_REQUIRED',
  'PRICE_NOT_PAYABLE',
] as const;
export const validationErrorSchema = z.enum(VALIDATION_ERRORS);
export type MintValidationError = z.output<typeof validationErrorSchema>;

// ----- estimate and mint -----

export const mintEstimateQuerySchema = z
  .object({
    parentName: ensName({ min: 3, max: 100 }),
    label: ensLabel({ min: 1, max: 100 }),
    minterAddress: ethAddress,
    network: mintNetworkSchema.optional().meta({ description: `The parent's network. ${NETWORK_RULE}` }),
    isTestnet: queryBoolean
      .optional()
      .meta({ description: `true: a testnet; false (default): mainnet or base. ${NETWORK_RULE}` }),
    expiryInYears: z.coerce
      .number()
      .int()
      .min(1)
      .max(MAX_MINT_YEARS)
      .default(1)
      .meta({ description: `Whole years, 1 to ${MAX_MINT_YEARS}; default 1. The price is per year.` }),
  })
  .superRefine(refineNetworkAgreement);
/** What a client sends as the estimate's query string. */
export interface MintEstimateQuery {
  parentName: string;
  label: string;
  minterAddress: string;
  network?: MintNetwork;
  isTestnet?: boolean;
  expiryInYears?: number;
}

export const mintEstimateResponseSchema = z.object({
  canMint: z.boolean(),
  estimatedPriceEth: z
    .number()
    .meta({ description: 'Price in ether: Number(formatEther(estimatedPriceWei)).' }),
  estimatedFeeEth: z.number().meta({ description: 'Fee in ether: Number(formatEther(estimatedFeeWei)).' }),
  isStandardFee: z.boolean(),
  validationErrors: z.array(validationErrorSchema),
  estimatedPriceWei: computedWeiString.meta({
    description: 'Exact price in wei (addition to the contract).',
  }),
  estimatedFeeWei: computedWeiString.meta({ description: 'Exact fee in wei (addition to the contract).' }),
  expiry: z.number().int().meta({ description: 'Expiry (Unix seconds) a mint now would get.' }),
});
export type MintEstimateResponse = z.output<typeof mintEstimateResponseSchema>;

export const mintRequestSchema = z
  .strictObject({
    label: ensLabel({ min: 1, max: 255 }),
    parentName: ensName({ min: 1, max: 255 }),
    minterAddress: ethAddress,
    expiryInYears: z.number().int().min(1).max(MAX_MINT_YEARS).default(1),
    network: mintNetworkSchema.optional().meta({ description: `The parent's network. ${NETWORK_RULE}` }),
    isTestnet: z
      .boolean()
      .optional()
      .meta({ description: `true: a testnet; false (default): mainnet or base. ${NETWORK_RULE}` }),
    owner: ethAddress.optional().meta({ description: 'Owner of the new subname; default minterAddress.' }),
  })
  .superRefine(refineNetworkAgreement);
export type MintRequest = z.input<typeof mintRequestSchema>;

export const mintResponseSchema = z.object({
  content: z.object({
    label: z.string(),
    owner: z.string(),
    fee: weiString,
    price: weiString,
    parentNode: z.string(),
    paymentReceiver: z.string(),
    verifiedMinter: z.string(),
    signatureExpiry: z.number().int(),
    expiry: z.number().int(),
    fuses: z.number().int(),
  }),
  signature: z.string(),
  mintController: z.string().meta({ description: 'The controller to send mint(...) to (addition).' }),
  chainId: z.number().int().meta({ description: 'Chain id of the EIP-712 domain (addition).' }),
});
export type MintResponse = z.output<typeof mintResponseSchema>;

// ----- sign-in -----

export const MINT_NONCE_SCOPES = ['listing', 'minter'] as const;

export const mintNonceRequestSchema = z.strictObject({
  address: ethAddress,
  scope: z
    .enum(MINT_NONCE_SCOPES)
    .default('listing')
    .meta({ description: '`listing` for listing changes, `minter` for minter verification.' }),
});
export type MintNonceRequest = z.input<typeof mintNonceRequestSchema>;

export const mintNonceResponseSchema = z.object({
  nonce: z.string(),
  expiresAt: z.number().int().meta({ description: 'Unix time in milliseconds.' }),
});
export type MintNonceResponse = z.output<typeof mintNonceResponseSchema>;

/** Minters are verified per L1; a listing on an L2 checks the verifications of the L1 it settles on. */
export const verifyMinterRequestSchema = signedRequestSchema.extend({ network: l1NetworkSchema });
export type VerifyMinterRequest = z.input<typeof verifyMinterRequestSchema>;

export const verifiedMinterSchema = z.object({
  network: l1NetworkSchema,
  address: z.string(),
  verifiedUntil: z.number().int().meta({ description: 'Unix seconds.' }),
});
export type VerifiedMinter = z.output<typeof verifiedMinterSchema>;

// ----- listings -----

export const listingFeeSchema = z
  .discriminatedUnion('type', [
    z.strictObject({ type: z.literal('standard') }),
    z.strictObject({ type: z.literal('share'), basisPoints: z.number().int().min(0).max(10_000) }),
  ])
  .meta({
    description:
      '`standard`: the platform fee (STANDARD_FEE_WEI per mint); `share`: basisPoints/10000 of the price, rounded down.',
  });

export const tokenGateSchema = z
  .strictObject({
    standard: z.enum(['erc721', 'erc1155']),
    contract: ethAddress,
    tokenId: weiString.optional().meta({ description: 'Required for erc1155 (decimal uint256).' }),
    minBalance: weiString.default('1'),
  })
  .refine((gate) => gate.standard === 'erc721' || gate.tokenId !== undefined, {
    message: 'tokenId is required for erc1155',
    path: ['tokenId'],
  });

/** A listing's settings, its prices checked by `price`. */
function listingSchemaOf(price: z.ZodType<string, string>) {
  return z.strictObject({
    basePriceWei: price.meta({
      description: `Price per year of labels without a lengthPrices entry; at most ${MAX_LISTING_PRICE_WEI} wei.`,
    }),
    lengthPrices: z
      .array(z.strictObject({ length: z.number().int().min(1).max(255), priceWei: price }))
      .max(255)
      .default([])
      .refine((items) => new Set(items.map((i) => i.length)).size === items.length, 'lengths must be unique')
      .meta({ description: 'Price per year of labels of exactly this many characters (code points).' }),
    fee: listingFeeSchema.default({ type: 'standard' }),
    paymentReceiver: ethAddress.optional().meta({ description: 'Receives the price; default the lister.' }),
    allowList: z.array(ethAddress).max(10_000).default([]).meta({ description: 'Empty: anyone may mint.' }),
    tokenGate: tokenGateSchema.nullable().default(null),
    reservedLabels: z
      .array(ensLabel({ min: 1, max: 255 }))
      .max(10_000)
      .default([]),
    expiresAt: z
      .number()
      .int()
      .positive()
      .nullable()
      .default(null)
      .meta({ description: 'Unix seconds after which the listing no longer mints; null: never.' }),
    requireVerifiedMinter: z.boolean().default(false),
    fuses: z
      .number()
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .default(0)
      .meta({ description: 'NameWrapper fuses of minted subnames of a wrapped parent.' }),
  });
}

/** A listing as the API and the listings file take it: yearly prices at most MAX_LISTING_PRICE_WEI. */
export const listingInputSchema = listingSchemaOf(listingPriceWei);

/** A stored listing: rows written before the price ceiling keep their price (their mints are PRICE_NOT_PAYABLE). */
export const storedListingSchema = listingSchemaOf(weiString);

export type ListingInput = z.input<typeof listingInputSchema>;
export type ListingSettings = z.output<typeof listingInputSchema>;

export const listingParamsSchema = z.object({
  network: mintNetworkSchema,
  parentName: ensName({ min: 1, max: 255 }),
});

export const putListingRequestSchema = signedRequestSchema.extend({ listing: listingInputSchema });
export type PutListingRequest = z.input<typeof putListingRequestSchema>;

export const listingL2MetadataSchema = z
  .object({
    registryNetwork: z.enum(L2_NETWORK_NAMES),
    chainId: z.number().int(),
    registryAddress: z
      .string()
      .meta({ description: "The parent's L2Registry (subnames are its ERC-721 tokens)." }),
    mintController: z.string().meta({ description: 'The L2MintController that mints the subnames.' }),
  })
  .meta({ description: 'Where the subnames of an L2 listing live; null for an L1 listing.' });
export type ListingL2Metadata = z.output<typeof listingL2MetadataSchema>;

export const listingSchema = z.object({
  network: mintNetworkSchema,
  type: z
    .enum(['L1', 'L2'])
    .meta({ description: '`L2`: subnames are minted on an L2 registry (`l2Metadata`); `L1`: in ENS.' }),
  l2Metadata: listingL2MetadataSchema.nullable(),
  parentName: z.string(),
  parentNode: z.string(),
  basePriceWei: weiString,
  lengthPrices: z.array(z.object({ length: z.number().int(), priceWei: weiString })),
  fee: listingFeeSchema,
  paymentReceiver: z.string(),
  allowList: z.array(z.string()),
  tokenGate: z
    .object({
      standard: z.enum(['erc721', 'erc1155']),
      contract: z.string(),
      tokenId: weiString.optional(),
      minBalance: weiString,
    })
    .nullable(),
  reservedLabels: z.array(z.string()),
  expiresAt: z.number().int().nullable(),
  requireVerifiedMinter: z.boolean(),
  fuses: z.number().int(),
  listedBy: z.string().nullable().meta({ description: 'Address that signed the listing; null from a file.' }),
  source: z.enum(['api', 'file']),
  createdAt: z.string(),
  updatedAt: z.string(),
});
export type Listing = z.output<typeof listingSchema>;

export const deleteListingResponseSchema = z.object({
  network: mintNetworkSchema,
  parentName: z.string(),
  deletedAt: z.string(),
});
export type DeleteListingResponse = z.output<typeof deleteListingResponseSchema>;

/** One entry of the LISTINGS_FILE JSON array. */
export const listingFileEntrySchema = z.object({
  network: mintNetworkSchema,
  parentName: ensName({ min: 1, max: 255 }),
  listing: listingInputSchema,
});
export const listingFileSchema = z.array(listingFileEntrySchema);

// ----- the index of minted names -----

export const NAMES_PAGE_MAX = 100;

/** Where a page of names ends: the last name answered (names are listed in code point order). */
export const namesCursorSchema = z.strictObject({ name: z.string().min(1).max(1024) });

export const namesQuerySchema = z.strictObject({
  network: mintNetworkSchema,
  owner: ethAddress.optional().meta({ description: 'Only the names this address holds now.' }),
  parentName: ensName({ min: 1, max: 255 })
    .optional()
    .meta({ description: 'Only the children of this name.' }),
  labelSearch: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({ description: 'Case-insensitive substring of the label.' }),
  cursor: cursorField(namesCursorSchema).optional(),
  size: z.coerce
    .number()
    .int()
    .min(1)
    .max(NAMES_PAGE_MAX)
    .default(25)
    .meta({ description: `Names per page, 1 to ${NAMES_PAGE_MAX} (default 25).` }),
});
/** The query a client sends (`size` as a number). */
export type NamesQuery = Omit<z.input<typeof namesQuerySchema>, 'size'> & { size?: number };

export const mintedNameSchema = z
  .object({
    name: z.string(),
    parentName: z.string(),
    owner: z
      .string()
      .meta({ description: 'Checksummed address of the holder now (NameWrapper holder when wrapped).' }),
    wrapped: z.boolean().meta({ description: 'Held in the NameWrapper (L1); always false on an L2.' }),
    expiry: z
      .number()
      .int()
      .nullable()
      .meta({
        description:
          'Unix seconds: the NameWrapper expiry of a wrapped name (null when unwrapped); on an L2 the L2Registry ' +
          'expiry (null: never).',
      }),
    mintedAt: z.string().meta({ description: 'ISO time of the block of the mint.' }),
    txHash: z.string().meta({ description: 'The mint transaction.' }),
  })
  .meta({ id: 'MintedName' });
export type MintedName = z.output<typeof mintedNameSchema>;

export const namesPageSchema = z.object({
  items: z.array(mintedNameSchema),
  nextCursor: z.string().nullable().meta({ description: 'Cursor of the next page; null on the last page.' }),
});
export type NamesPage = z.output<typeof namesPageSchema>;

/** Response schemas by client method, for `createMintClient({ responseSchemas: mintResponseSchemas })`. */
export const mintResponseSchemas = {
  getMintEstimate: mintEstimateResponseSchema,
  requestMint: mintResponseSchema,
  requestMintNonce: mintNonceResponseSchema,
  verifyMinter: verifiedMinterSchema,
  getListing: listingSchema,
  putListing: listingSchema,
  deleteListing: deleteListingResponseSchema,
  listNames: namesPageSchema,
};
