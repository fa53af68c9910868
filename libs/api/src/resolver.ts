/**
 * resolver-svc (name resolution service, `/ens/v2`): request and response schemas, shared by the service (which
 * validates with them and documents them in /openapi.json) and by clients that opt in to response validation.
 */
import { z } from 'zod';
import { chainByName, isValidCoinType, MINT_NETWORK_NAMES, NETWORK_NAMES, type NetworkName } from '@nrp/ens';
import { commaList, ensName, ethAddress, queryBoolean } from '@nrp/validation';
import { cursorField } from './cursor';

// ---- limits ----

/** Resolution `name` path parameter length (interface spec). */
export const RESOLVER_NAME_MIN = 6;
export const RESOLVER_NAME_MAX = 256;
/** At most this many text keys, coin types or chain names in one request. */
export const MAX_RECORD_SELECTION = 50;
/** Longest accepted text record key. */
export const MAX_TEXT_KEY_LENGTH = 256;
/** At most this many names or addresses in one bulk request. */
export const MAX_BULK_ITEMS = 20;
export type ResolverNetwork = NetworkName;

// ---- response schemas ----

export const textRecordSchema = z.object({
  key: z.string(),
  exists: z.boolean(),
  value: z.string(),
});

export const addressRecordSchema = z.object({
  coin: z.number().int().meta({ description: 'Coin type (SLIP-44; ENSIP-11 for EVM chains).' }),
  exists: z.boolean(),
  chain: z
    .string()
    .meta({ description: "The chain's short name (see GET /ens/v2/chains); '' when unknown." }),
  value: z.string().meta({
    description:
      "Address in the chain's native format (EVM: EIP-55 checksummed); raw 0x-hex when the coin type has no known format.",
  }),
});

export const contenthashRecordSchema = z.object({
  exists: z.boolean(),
  value: z.string().meta({ description: "URI form, e.g. 'ipfs://bafy…'; '' when unset." }),
});

export const profileSchema = z.object({
  name: z.string().meta({ description: 'The normalised (ENSIP-15) name.' }),
  texts: z.array(textRecordSchema),
  addresses: z.array(addressRecordSchema),
  contenthash: contenthashRecordSchema
    .optional()
    .meta({ description: 'Present when the contenthash was requested.' }),
  resolver: z
    .string()
    .optional()
    .meta({ description: 'Address of the resolver that answered; absent when the name has none.' }),
});

export const addressesResultSchema = z.object({ name: z.string(), addresses: z.array(addressRecordSchema) });
export const textsResultSchema = z.object({ name: z.string(), texts: z.array(textRecordSchema) });

export const reverseProfileSchema = z.object({
  address: z.string().meta({ description: 'The requested address, EIP-55 checksummed.' }),
  coinType: z.number().int().meta({
    description:
      'ENSIP-19 coin type of the primary name: 60 (Ethereum), 0x80000000 | chainId for an EVM chain, 2147483648 for the default EVM name.',
  }),
  hasReverseRecord: z.boolean(),
  name: z.string().nullable(),
  avatar: z.string().nullable(),
  avatarUrl: z.string().nullable().meta({
    description:
      'The avatar as an HTTPS image URL of metadata-svc (`{METADATA_PUBLIC_URL}/{network}/avatar/{name}`, any ENSIP-12 record resolved and sized there); null without an avatar record or when METADATA_PUBLIC_URL is not configured.',
  }),
  displayName: z.string().nullable(),
  description: z.string().nullable(),
  profile: profileSchema.nullable(),
});

/** The upstream's own error: a JSON-RPC error's message and numeric code, or ethers' code (TIMEOUT, …). */
export const upstreamDetailSchema = z.object({
  message: z.string(),
  code: z.union([z.string(), z.number()]).nullable(),
});

const bulkErrorFields = {
  type: z.literal('error'),
  input: z.string(),
  status: z.number().int(),
  code: z.string(),
  detail: z.string(),
  upstream: upstreamDetailSchema.optional(),
};

export const bulkProfileResultSchema = z.object({
  results: z.array(
    z.discriminatedUnion('type', [
      z.object({ type: z.literal('success'), input: z.string(), profile: profileSchema }),
      z.object(bulkErrorFields),
    ]),
  ),
});

export const bulkReverseResultSchema = z.object({
  results: z.array(
    z.discriminatedUnion('type', [
      z.object({ type: z.literal('success'), input: z.string(), reverse: reverseProfileSchema }),
      z.object(bulkErrorFields),
    ]),
  ),
});

export const chainInfoSchema = z.object({
  chain: z.string().meta({ description: "Short name, as in the address records' `chain`." }),
  coin: z.number().int(),
  label: z.string(),
  chainId: z.number().int().nullable().meta({ description: 'EVM chain id; null for non-EVM chains.' }),
  isEvm: z.boolean(),
  aliases: z.array(z.string()),
});

export const chainsResultSchema = z.object({ chains: z.array(chainInfoSchema) });

export type TextRecord = z.output<typeof textRecordSchema>;
export type AddressRecord = z.output<typeof addressRecordSchema>;
export type ContenthashRecord = z.output<typeof contenthashRecordSchema>;
export type Profile = z.output<typeof profileSchema>;
export type AddressesResult = z.output<typeof addressesResultSchema>;
export type TextsResult = z.output<typeof textsResultSchema>;
export type ReverseProfile = z.output<typeof reverseProfileSchema>;
export type UpstreamDetail = z.output<typeof upstreamDetailSchema>;
export type BulkProfileResult = z.output<typeof bulkProfileResultSchema>;
export type BulkReverseResult = z.output<typeof bulkReverseResultSchema>;
export type ChainInfo = z.output<typeof chainInfoSchema>;
export type ChainsResult = z.output<typeof chainsResultSchema>;

// ---- request schemas ----

export const resolverNameParam = ensName({ min: RESOLVER_NAME_MIN, max: RESOLVER_NAME_MAX });

const textKey = z
  .string()
  .max(MAX_TEXT_KEY_LENGTH, `a text key is at most ${MAX_TEXT_KEY_LENGTH} characters`)
  .refine(
    (key) => ![...key].some((ch) => ch.charCodeAt(0) < 0x20),
    'a text key cannot contain control characters',
  );

function coinTypeText(value: string): number | undefined {
  if (!/^\d{1,10}$/.test(value)) return undefined;
  const n = Number(value);
  return isValidCoinType(n) ? n : undefined;
}

/** A decimal coin type (0..4294967295). */
const coinTypeItem = z.string().transform((value, ctx) => {
  const coin = coinTypeText(value);
  if (coin === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `${JSON.stringify(value)} is not a coin type (decimal 0..4294967295)`,
    });
    return z.NEVER;
  }
  return coin;
});

/** A chain short name or alias (GET /ens/v2/chains), mapped to its coin type. */
const chainNameItem = z.string().transform((value, ctx) => {
  const chain = chainByName(value);
  if (!chain) {
    ctx.addIssue({
      code: 'custom',
      message: `unknown chain name ${JSON.stringify(value)} (see GET /ens/v2/chains)`,
    });
    return z.NEVER;
  }
  return chain.coinType;
});

/** A coin type or a chain name, mapped to a coin type. */
const coinOrChainItem = z.string().transform((value, ctx) => {
  const coin = /^\d+$/.test(value) ? coinTypeText(value) : chainByName(value)?.coinType;
  if (coin === undefined) {
    ctx.addIssue({
      code: 'custom',
      message: `${JSON.stringify(value)} is neither a coin type nor a known chain name (see GET /ens/v2/chains)`,
    });
    return z.NEVER;
  }
  return coin;
});

const dedupe = (values: number[]): number[] => [...new Set(values)];
const selectionLimit = { max: MAX_RECORD_SELECTION };

const networkQuery = z
  .enum(NETWORK_NAMES)
  .optional()
  .meta({ description: "`mainnet` or `sepolia`; default: the service's DEFAULT_NETWORK." });
const noCacheQuery = queryBoolean
  .optional()
  .meta({ description: 'true: skip the cache, resolve on chain and refresh the cache. Default false.' });
const textsQuery = commaList(textKey, selectionLimit)
  .optional()
  .meta({
    description: `Comma-separated text keys (at most ${MAX_RECORD_SELECTION}); default: the 12 default keys.`,
  });
const addressesQuery = commaList(coinOrChainItem, selectionLimit)
  .transform(dedupe)
  .optional()
  .meta({
    description: `Comma-separated chain names or coin types (at most ${MAX_RECORD_SELECTION}); default: the 8 default chains.`,
  });

export const profileQuerySchema = z.object({
  network: networkQuery,
  noCache: noCacheQuery,
  contenthash: queryBoolean.optional().meta({ description: 'Include the contenthash. Default false.' }),
  texts: textsQuery,
  addresses: addressesQuery,
});

const reverseQueryFields = z.object({
  network: networkQuery,
  noCache: noCacheQuery.meta({
    description:
      'true: skip the cache for both the reverse and the forward lookup, and refresh it. Default false.',
  }),
  coinType: coinTypeItem.optional().meta({
    description:
      'ENSIP-19 coin type of the primary name (decimal): 60 (default) for Ethereum, 0x80000000 | chainId for an EVM chain (Base: 2147492101), 2147483648 for the default EVM name. Not together with `chain`.',
  }),
  chain: chainNameItem.optional().meta({
    description:
      'Chain name (see GET /ens/v2/chains) whose primary name to read, e.g. `base`. Not together with `coinType`.',
  }),
  contenthash: queryBoolean
    .optional()
    .meta({ description: 'Include the contenthash in the profile. Default true.' }),
  texts: textsQuery,
  addresses: addressesQuery,
});

function coinTypeOrChain(query: { coinType?: number; chain?: number }, ctx: z.RefinementCtx): void {
  if (query.coinType !== undefined && query.chain !== undefined) {
    ctx.addIssue({ code: 'custom', path: ['chain'], message: 'give either coinType or chain, not both' });
  }
}

export const reverseQuerySchema = reverseQueryFields.superRefine(coinTypeOrChain);

export const addressesQuerySchema = z
  .object({
    network: networkQuery,
    noCache: noCacheQuery,
    coins: commaList(coinTypeItem, selectionLimit)
      .transform(dedupe)
      .optional()
      .meta({ description: `Comma-separated coin types, e.g. \`60,0\` (at most ${MAX_RECORD_SELECTION}).` }),
    chains: commaList(chainNameItem, selectionLimit)
      .transform(dedupe)
      .optional()
      .meta({
        description: `Comma-separated chain names, e.g. \`eth,btc,base\` (at most ${MAX_RECORD_SELECTION}). Not together with \`coins\`.`,
      }),
  })
  .superRefine((query, ctx) => {
    if (query.coins !== undefined && query.chains !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['chains'], message: 'give either coins or chains, not both' });
    }
  });

export const textsQuerySchema = z.object({
  network: networkQuery,
  noCache: noCacheQuery,
  keys: commaList(textKey, selectionLimit)
    .optional()
    .meta({
      description: `Comma-separated text keys (at most ${MAX_RECORD_SELECTION}); default: every well-known key.`,
    }),
});

export const bulkProfileQuerySchema = profileQuerySchema.extend({
  names: commaList(z.string(), { max: MAX_BULK_ITEMS }).meta({
    description: `Comma-separated names, at most ${MAX_BULK_ITEMS}; duplicates are removed.`,
  }),
});

export const bulkReverseQuerySchema = reverseQueryFields
  .extend({
    addresses: commaList(z.string(), { max: MAX_BULK_ITEMS }).meta({
      description: `Comma-separated addresses, at most ${MAX_BULK_ITEMS}; duplicates are removed.`,
    }),
    records: addressesQuery.meta({
      description: `Address records of each profile: comma-separated chain names or coin types (at most ${MAX_RECORD_SELECTION}).`,
    }),
  })
  .superRefine(coinTypeOrChain);

export const nameParamsSchema = z.object({ name: resolverNameParam });
export const addressParamsSchema = z.object({ address: ethAddress });

// ---- the names of an address ----

/**
 * Where the next page of an address's names starts in each source (`minted`: mint-svc's cursor on the request's L1,
 * empty for its first page; `mintedL2`: the same on the L2 that settles on it; `offchainPage`: offchain-svc's page);
 * a source without a key has no more names.
 */
const mintedCursor = z
  .string()
  .max(1024)
  .regex(/^[A-Za-z0-9_-]*$/);

export const addressNamesCursorSchema = z
  .strictObject({
    minted: mintedCursor.optional(),
    mintedL2: mintedCursor.optional(),
    offchainPage: z.number().int().min(1).max(10_000).optional(),
  })
  // The last page hands out no cursor: one with no source left was not issued.
  .refine((position) => Object.keys(position).length > 0);
export type AddressNamesCursor = z.output<typeof addressNamesCursorSchema>;

export const addressNamesQuerySchema = z.strictObject({
  network: networkQuery,
  noCache: noCacheQuery,
  cursor: cursorField(addressNamesCursorSchema).optional(),
});

export const NAME_SOURCES = ['minted', 'offchain'] as const;
/** The sources of an address's names as `failedSources` names them: `mintedL2` is mint-svc's index of the L2. */
export const ADDRESS_NAME_SOURCES = ['minted', 'mintedL2', 'offchain', 'primaryName'] as const;
export type AddressNameSource = (typeof ADDRESS_NAME_SOURCES)[number];

export const addressNameSchema = z
  .object({
    name: z.string(),
    source: z.enum(NAME_SOURCES).meta({
      description:
        '`minted`: minted through our mint controller on the L1 or its L2 (mint-svc index; `network` says which); ' +
        '`offchain`: an offchain subname.',
    }),
    parentName: z.string(),
    network: z
      .enum(MINT_NETWORK_NAMES)
      .optional()
      .meta({
        description:
          "Minted names: where the token lives, the request's L1 (`mainnet`, `sepolia`: ENS, NameWrapper when " +
          "wrapped) or the L2 settling on it (`base`, `base-sepolia`: the parent's L2Registry). Absent on offchain " +
          'subnames (no token).',
      }),
    expiry: z
      .number()
      .int()
      .nullable()
      .optional()
      .meta({
        description:
          'Minted names: on an L1 the NameWrapper expiry (Unix seconds), null when unwrapped; on an L2 the ' +
          'L2Registry expiry, null when it never expires.',
      }),
    isPrimary: z
      .boolean()
      .meta({ description: "The address's verified primary name (ENSIP-19, coin type 60)." }),
  })
  .meta({ id: 'AddressName' });
export type AddressName = z.output<typeof addressNameSchema>;

export const addressNamesSchema = z
  .object({
    address: z.string(),
    primaryName: z.string().nullable(),
    names: z.array(addressNameSchema),
    nextCursor: z
      .string()
      .nullable()
      .meta({ description: 'Cursor of the next page; null on the last page.' }),
    partial: z
      .boolean()
      .meta({ description: 'true when a source failed: its names are missing from this page.' }),
    failedSources: z.array(z.enum(ADDRESS_NAME_SOURCES)).meta({
      description: "The sources that failed (mint-svc's L1 and L2 index, offchain-svc, the reverse lookup).",
    }),
  })
  .meta({ id: 'AddressNames' });
export type AddressNames = z.output<typeof addressNamesSchema>;

/** Response schemas by client method, for `createResolverClient({ responseSchemas: resolverResponseSchemas })`. */
export const resolverResponseSchemas = {
  getProfile: profileSchema,
  getProfiles: bulkProfileResultSchema,
  getAddresses: addressesResultSchema,
  getTexts: textsResultSchema,
  getReverseProfile: reverseProfileSchema,
  names: addressNamesSchema,
  getReverseProfiles: bulkReverseResultSchema,
  getChains: chainsResultSchema,
};
