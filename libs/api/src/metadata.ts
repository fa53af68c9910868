/**
 * Image and metadata service: request/response schemas, shared with the service (which validates with them and
 * generates its OpenAPI document from them) and with clients that opt in to response validation.
 */
import { z } from 'zod';
import { NETWORK_NAMES, type NetworkName } from '@nrp/ens';
import { ensName, ethAddress } from '@nrp/validation';
import { signedRequestSchema } from './signed-request';

export type MetadataNetwork = NetworkName;
export const IMAGE_KINDS = ['avatar', 'header'] as const;
export type ImageKind = (typeof IMAGE_KINDS)[number];
export const NONCE_SCOPES = ['avatar', 'header', 'avatar+header'] as const;

export const nonceRequestSchema = z.object({
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

export const deleteResultSchema = z.object({
  subname: z.string(),
  network: z.enum(NETWORK_NAMES),
  message: z.string(),
  deletedAt: z.string().meta({ description: 'ISO 8601' }),
});
export type DeleteResult = z.output<typeof deleteResultSchema>;

export const tokenParamsSchema = z.object({
  chainId: z.string().regex(/^\d{1,20}$/, 'must be a decimal chain id'),
  tokenId: z
    .string()
    .regex(/^(0x[0-9a-fA-F]{1,64}|\d{1,78})$/, 'must be a decimal or 0x-hex uint256')
    .refine((value) => {
      try {
        return BigInt(value) < 2n ** 256n;
      } catch {
        return false;
      }
    }, 'must fit in a uint256')
    .meta({ description: 'uint256 of the namehash, decimal or 0x-hex.' }),
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
};
