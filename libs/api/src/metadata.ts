/**
 * Image and metadata service: request/response schemas, shared with the service (which validates with them and
 * generates its OpenAPI document from them) and with clients that opt in to response validation.
 */
import { z } from 'zod';
import { MINT_NETWORK_NAMES, NETWORK_NAMES, type AnyNetworkName, type NetworkName } from '@nrp/ens';
import { ensName, ethAddress, queryBoolean } from '@nrp/validation';
import { signedRequestSchema } from './signed-request';

/** The networks of uploads, sign-in and avatars: the L1s, where names resolve. */
export type MetadataNetwork = NetworkName;
/** The networks of token metadata by contract: the L1s (NameWrapper) and the L2s (our L2 registries). */
export type TokenNetwork = AnyNetworkName;
export const IMAGE_KINDS = ['avatar', 'header'] as const;
export type ImageKind = (typeof IMAGE_KINDS)[number];
export const NONCE_SCOPES = ['avatar', 'header', 'avatar+header'] as const;

export const nonceRequestSchema = z.strictObject({
  address: ethAddress,
  scope: z.enum(NONCE_SCOPES).default('avatar+header').meta({
    description: 'What the nonce may authorise: `avatar` calls, `header` calls, or either.',
  }),
});
export type NonceRequest = z.input<typeof nonceRequestSchema>;

export const nonceResponseSchema = z.object({
  nonce: z
    .string()
    .meta({ description: 'At least 16 alphanumeric characters; put it in the sign-in message.' }),
  expiresAt: z.number().int().meta({ description: 'Unix time in milliseconds.' }),
});
export type NonceResponse = z.output<typeof nonceResponseSchema>;

export const profileImageParamsSchema = z.object({
  network: z.enum(NETWORK_NAMES),
  subname: ensName({ min: 1, max: 255 }),
});

/** The file part of an upload, for the OpenAPI document (the service reads the bytes from the multipart part). */
const filePart = z.string().meta({
  format: 'binary',
  description: 'The image file (jpeg, png, gif, webp or svg); its type is taken from its bytes.',
});
/** Multipart body of `POST /profile/{network}/{subname}/avatar`. */
export const avatarUploadBodySchema = signedRequestSchema.extend({ avatar: filePart });
/** Multipart body of `POST /profile/{network}/{subname}/header`. */
export const headerUploadBodySchema = signedRequestSchema.extend({ header: filePart });

const uploadResultBase = {
  subname: z.string(),
  network: z.enum(NETWORK_NAMES),
  uploadedAt: z.string().meta({ description: 'ISO 8601' }),
  fileSize: z.number().int().meta({ description: 'Bytes stored (after SVG sanitising).' }),
  isUpdate: z.boolean(),
  pending: z.boolean().optional(),
  message: z.string().optional(),
};

export const avatarUploadResultSchema = z.object({ ...uploadResultBase, avatarUrl: z.string() });
export const headerUploadResultSchema = z.object({ ...uploadResultBase, headerUrl: z.string() });
export type AvatarUploadResult = z.output<typeof avatarUploadResultSchema>;
export type HeaderUploadResult = z.output<typeof headerUploadResultSchema>;

/** Answer of `POST /profile/{network}/{subname}/{avatar|header}/confirm`. */
export const confirmResultSchema = z.object({
  subname: z.string(),
  network: z.enum(NETWORK_NAMES),
  kind: z.enum(IMAGE_KINDS),
  url: z.string().meta({ description: 'The stable URL, which now serves the confirmed upload.' }),
  uploadedAt: z.string().meta({ description: 'ISO 8601' }),
  fileSize: z.number().int(),
});
export type ConfirmResult = z.output<typeof confirmResultSchema>;

export const deleteResultSchema = z.object({
  subname: z.string(),
  network: z.enum(NETWORK_NAMES),
  message: z.string(),
  deletedAt: z.string().meta({ description: 'ISO 8601' }),
});
export type DeleteResult = z.output<typeof deleteResultSchema>;

const tokenId = z
  .string()
  .regex(/^(0x[0-9a-fA-F]{1,64}|\d{1,78})$/, 'must be a decimal or 0x-hex uint256')
  .refine((value) => {
    try {
      return BigInt(value) < 2n ** 256n;
    } catch {
      return false;
    }
  }, 'must fit in a uint256')
  .meta({ description: 'uint256 of the namehash, decimal or 0x-hex.' });

export const tokenParamsSchema = z.object({
  chainId: z.string().regex(/^\d{1,20}$/, 'must be a decimal chain id'),
  tokenId,
});

/** `/{network}/{contractAddress}/{tokenId}`, the ENS metadata service's path: L1 NameWrapper or an L2 registry. */
export const contractTokenParamsSchema = z.object({
  network: z.enum(MINT_NETWORK_NAMES).meta({
    description: '`mainnet`, `sepolia` (NameWrapper tokens), `base` or `base-sepolia` (L2 registry tokens).',
  }),
  contractAddress: ethAddress.meta({
    description:
      "The network's NameWrapper, or one of the L2Registry contracts this service serves on the L2.",
  }),
  tokenId,
});

export const metadataAttributeSchema = z.object({
  trait_type: z.string(),
  display_type: z.string(),
  value: z.union([z.string(), z.number(), z.boolean(), z.record(z.string(), z.unknown())]),
});

export const tokenMetadataSchema = z.object({
  name: z.string(),
  description: z.string(),
  image: z.string(),
  image_url: z.string(),
  attributes: z.array(metadataAttributeSchema),
  name_length: z.number().int(),
  segment_length: z.number().int(),
  url: z.string().nullable(),
  is_normalized: z.boolean(),
  version: z.number().int(),
  background_image: z.string().optional(),
});
export type TokenMetadata = z.output<typeof tokenMetadataSchema>;

/** Response schemas by client method, for `createMetadataClient({ responseSchemas: metadataResponseSchemas })`. */
export const metadataResponseSchemas = {
  getNonce: nonceResponseSchema,
  uploadAvatar: avatarUploadResultSchema,
  uploadHeader: headerUploadResultSchema,
  deleteImage: deleteResultSchema,
  getTokenMetadata: tokenMetadataSchema,
  getContractTokenMetadata: tokenMetadataSchema,
};

/** `/{network}/avatar/{name}`, `/{network}/header/{name}` and their `/meta`, as ENS's metadata service names them. */
export const imageParamsSchema = z.object({
  network: z.enum(NETWORK_NAMES),
  name: ensName({ min: 1, max: 255 }),
});

/**
 * The widths and heights a transform may ask for (px): a fixed set, so the variants of one image are a fixed set too
 * and query strings cannot grow blob storage. The original (no width or height) serves larger screens.
 */
export const TRANSFORM_SIZES = [16, 32, 48, 64, 96, 128, 256, 512, 1024] as const;
export const MAX_TRANSFORM_DIMENSION = TRANSFORM_SIZES[TRANSFORM_SIZES.length - 1];
export const TRANSFORM_FITS = ['cover', 'contain', 'inside', 'outside', 'fill'] as const;
export const OUTPUT_FORMATS = ['webp', 'avif', 'png', 'jpeg'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

const dimension = z
  .enum(TRANSFORM_SIZES.map(String) as [string, ...string[]])
  .transform(Number)
  .optional()
  .describe(`Pixels, one of ${TRANSFORM_SIZES.join(', ')}`);

const noCache = queryBoolean
  .optional()
  .describe('true: read the record on chain now, not from the cache, and refresh the cache with it');

/** `?noCache=` of the avatar and header routes and their `/meta`. */
export const freshnessQuerySchema = z.strictObject({ noCache });

/** `?width=&height=&fit=&format=&noCache=` of the avatar and header routes; anything else is 400. */
export const transformQuerySchema = z.strictObject({
  noCache,
  width: dimension,
  height: dimension,
  fit: z.enum(TRANSFORM_FITS).optional().describe('How the image fits width × height (default cover)'),
  format: z
    .enum(OUTPUT_FORMATS)
    .optional()
    .describe('Output format; when absent it is negotiated from Accept'),
});
export type TransformQuery = z.output<typeof transformQuerySchema>;

/** What `/meta` tells of a name's avatar or header: the record, how it was read, and why no image shows. */
export const imageMetaSchema = z.object({
  network: z.enum(NETWORK_NAMES),
  name: z.string(),
  kind: z.enum(IMAGE_KINDS),
  record: z.string().meta({ description: 'The text record as set.' }),
  recordKind: z
    .enum(['upload', 'https', 'ipfs', 'ipns', 'arweave', 'data', 'erc721', 'erc1155'])
    .nullable()
    .meta({ description: 'How the record was read (null: unsupported scheme).' }),
  imageUrl: z.string().nullable().meta({
    description: 'The URL the image came from (gateway URL for ipfs/ipns/ar); null for inline data.',
  }),
  ownershipVerified: z.boolean().nullable().meta({
    description: "NFTs: whether the name's ETH address owns the token; uploads: true; plain URLs: null.",
  }),
  nft: z
    .object({ chainId: z.number(), contract: z.string(), tokenId: z.string(), owner: z.string().nullable() })
    .optional(),
  contentType: z.string().optional(),
  sha256: z.string().optional(),
  reason: z
    .string()
    .optional()
    .meta({ description: 'Why no image could be shown (see AVATAR_UNAVAILABLE).' }),
  detail: z.string().optional(),
});
export type ImageMeta = z.output<typeof imageMetaSchema>;
