/**
 * Offchain subname service: request/response schemas, shared with the service (which validates with them and
 * generates its OpenAPI document from them) and with clients that opt in to response validation.
 */
import { z } from 'zod';
import { cursorField } from './cursor';
import {
  chainIdAsCoinTypeHint,
  decodeAddress,
  encodeAddress,
  encodeContenthash,
  InvalidAddressError,
  InvalidContenthashError,
} from '@nrp/ens';
import { ensName, ethAddress, INVALID_NAME_ISSUE, lowerCaseAddress } from '@nrp/validation';

/** Limits of the create-or-update input (what an experienced integrator expects; see the OpenAPI document). */
export const OFFCHAIN_LIMITS = {
  labelLength: { min: 1, max: 255 },
  parentNameLength: { min: 7, max: 255 },
  /** A label's UTF-8 length once normalised: it must stay DNS-encodable for CCIP-Read. */
  labelBytes: 255,
  textRecords: 100,
  textKeyLength: 255,
  textValueLength: 4096,
  addressRecords: 50,
  metadataEntries: 20,
  metadataKeyLength: 64,
  metadataValueLength: 256,
  /** The whole metadata map as JSON, in UTF-8 bytes: it is kept inside a btree index entry for fast counts. */
  metadataBytes: 1024,
  contenthashLength: 512,
  ttlMax: 2 ** 31 - 1,
  searchSizeMax: 100,
  searchPageMax: 10_000,
  searchParentNames: 100,
  searchMetadataFilters: 10,
} as const;

const L = OFFCHAIN_LIMITS;

const utf8 = new TextEncoder();
const utf8Length = (text: string): number => utf8.encode(text).length;

/** One label (no dots), normalised with ENSIP-15; failures are INVALID_NAME problems. */
export const subnameLabel = ensName({ min: L.labelLength.min, max: L.labelLength.max }).superRefine(
  (label, ctx) => {
    if (label.includes('.')) {
      ctx.addIssue({
        code: 'custom',
        message: 'must be a single label (no dots)',
        params: { problem: INVALID_NAME_ISSUE },
      });
    } else if (utf8Length(label) > L.labelBytes) {
      ctx.addIssue({
        code: 'custom',
        message: `must be at most ${L.labelBytes} bytes once normalised (UTF-8)`,
        params: { problem: INVALID_NAME_ISSUE },
      });
    }
  },
);

function uniqueKeys<T>(keyOf: (item: T) => string | number, field: string) {
  return (items: T[], ctx: z.RefinementCtx) => {
    const seen = new Set<string | number>();
    items.forEach((item, index) => {
      const key = keyOf(item);
      if (seen.has(key)) {
        ctx.addIssue({ code: 'custom', path: [index, field], message: `duplicate ${field} ${String(key)}` });
      }
      seen.add(key);
    });
  };
}

export const textRecordInput = z.strictObject({
  key: z.string().min(1).max(L.textKeyLength),
  value: z.string().max(L.textValueLength),
});

export const metadataEntryInput = z.strictObject({
  key: z.string().min(1).max(L.metadataKeyLength),
  value: z.string().max(L.metadataValueLength),
});

/** An address record; `value` must encode for `coin` and is stored in its canonical text form (EIP-55 for EVM). */
export const addressRecordInput = z
  .strictObject({
    coin: z
      .number()
      .int()
      .min(0)
      .max(0xffffffff)
      .meta({ description: 'SLIP-44 / ENSIP-11 coin type, e.g. 60 (ETH), 0 (BTC), 2147492101 (Base).' }),
    value: z.string().min(1).max(256),
  })
  .transform((record, ctx) => {
    try {
      return {
        coin: record.coin,
        value: decodeAddress(record.coin, encodeAddress(record.coin, record.value)),
      };
    } catch (err) {
      const message =
        err instanceof InvalidAddressError ? err.message : `not a valid address for coin ${record.coin}`;
      // The Namespace SDK sends an EVM chain id as the coin: say which coin type was meant.
      const hint = chainIdAsCoinTypeHint(record.coin);
      if (hint) ctx.addIssue({ code: 'custom', path: ['coin'], message: `${message}; ${hint}` });
      else ctx.addIssue({ code: 'custom', path: ['value'], message });
      return z.NEVER;
    }
  });

/** A contenthash URI (ipfs://, ipns://, bzz://, sia://, ar://); null or '' clears the record. */
export const contenthashInput = z
  .string()
  .max(L.contenthashLength)
  .nullable()
  .transform((value, ctx) => {
    if (value === null || value.trim() === '') return null;
    try {
      encodeContenthash(value);
      return value.trim();
    } catch (err) {
      ctx.addIssue({
        code: 'custom',
        message: err instanceof InvalidContenthashError ? err.message : 'not an encodable contenthash',
      });
      return z.NEVER;
    }
  })
  .meta({ description: 'ENSIP-7 URI form: ipfs://, ipns://, bzz://, sia://, ar://. null or "" clears it.' });

export const createSubnameRequest = z
  .strictObject({
    parentName: ensName({ min: L.parentNameLength.min, max: L.parentNameLength.max }),
    label: subnameLabel,
    owner: ethAddress.nullable().optional(),
    texts: z
      .array(textRecordInput)
      .max(L.textRecords)
      .superRefine(uniqueKeys((t) => t.key, 'key'))
      .optional(),
    addresses: z
      .array(addressRecordInput)
      .max(L.addressRecords)
      .superRefine(uniqueKeys((a) => a.coin, 'coin'))
      .optional(),
    metadata: z
      .array(metadataEntryInput)
      .max(L.metadataEntries)
      .superRefine(uniqueKeys((m) => m.key, 'key'))
      .refine(
        (entries) =>
          utf8Length(JSON.stringify(Object.fromEntries(entries.map((m) => [m.key, m.value])))) <=
          L.metadataBytes,
        { message: `metadata must be at most ${L.metadataBytes} bytes as a JSON object` },
      )
      .optional(),
    contenthash: contenthashInput.optional(),
    ttl: z.number().int().min(0).max(L.ttlMax).nullable().optional().meta({ description: 'Seconds.' }),
  })
  .meta({
    description:
      'Creates the subname or updates it. A list that is present replaces the stored list; a field that is ' +
      'absent keeps what is stored; `null` clears `owner`, `contenthash` or `ttl`.',
  });

export type CreateSubnameInput = z.input<typeof createSubnameRequest>;
export type CreateSubnameData = z.output<typeof createSubnameRequest>;

/** `{fullSubname}` of `GET`/`PUT`/`DELETE /api/v1/subnames/{fullSubname}`: the subname with its parent. */
export const fullSubnameParamsSchema = z.object({ fullSubname: ensName({ min: 3, max: 511 }) });

/** `{namehash}` of `GET /api/v1/subnames/namehash/{namehash}`. */
export const namehashParamsSchema = z.object({
  namehash: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x followed by 64 hex digits'),
});

export const offchainSubnameSchema = z
  .object({
    id: z.string(),
    fullName: z.string(),
    parentName: z.string(),
    label: z.string(),
    texts: z.record(z.string(), z.string()),
    addresses: z
      .record(z.string(), z.string())
      .meta({ description: 'Map from coin type (decimal) to address.' }),
    metadata: z.record(z.string(), z.string()),
    contenthash: z.string().nullable(),
    namehash: z.string(),
    owner: z.string().nullable(),
    ttl: z.number().int().nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .meta({ id: 'OffchainSubname' });

export type OffchainSubname = z.output<typeof offchainSubnameSchema>;

/** Where a search page ends: the last record answered (label order, then parent name). */
export const searchCursorSchema = z.strictObject({
  label: z.string().min(1).max(255),
  parentName: z.string().min(1).max(255),
});

export const searchSubnamesRequest = z
  .strictObject({
    parentName: ensName({ min: 1, max: 255 }).optional(),
    parentNames: z
      .array(ensName({ min: 1, max: 255 }))
      .min(1)
      .max(L.searchParentNames)
      .optional(),
    labelSearch: z
      .string()
      .min(1)
      .max(255)
      .optional()
      .meta({ description: 'Case-insensitive substring of the label.' }),
    page: z.number().int().min(1).max(L.searchPageMax).default(1),
    cursor: cursorField(searchCursorSchema).optional().meta({
      description:
        'The `nextCursor` of the previous answer: the page continues after its last item (leave `page` out).',
    }),
    size: z.number().int().min(1).max(L.searchSizeMax).default(25),
    owner: ethAddress.optional(),
    metadata: z
      .record(z.string().min(1).max(L.metadataKeyLength), z.string().max(L.metadataValueLength))
      .refine((m) => Object.keys(m).length <= L.searchMetadataFilters, {
        message: `at most ${L.searchMetadataFilters} metadata filters`,
      })
      .optional()
      .meta({ description: 'Every entry must match (key equals value).' }),
  })
  .refine((q) => q.parentName !== undefined || q.parentNames !== undefined || q.owner !== undefined, {
    path: ['parentName'],
    message: 'give parentName, parentNames or owner',
  })
  .refine((q) => q.cursor === undefined || q.page === 1, {
    path: ['page'],
    message: 'a cursor continues a search: leave page out',
  });

export type SearchSubnamesInput = z.input<typeof searchSubnamesRequest>;
export type SearchSubnamesQuery = z.output<typeof searchSubnamesRequest>;

export const searchSubnamesResponse = z.object({
  items: z.array(offchainSubnameSchema),
  totalItems: z.number().int(),
  page: z.number().int(),
  size: z.number().int(),
  nextCursor: z
    .string()
    .optional()
    .meta({
      description:
        'Present when more matches follow this page: send it as `cursor` for the next one. A page also ends ' +
        'early (fewer than `size` items) when its records would pass the answer budget.',
    }),
});

export type SearchSubnamesResult = z.output<typeof searchSubnamesResponse>;

/** EIP-3668 POST body of the CCIP-Read gateway. */
export const gatewayRequest = z.strictObject({
  sender: lowerCaseAddress,
  data: z.string().regex(/^0x([0-9a-fA-F]{2})*$/, 'must be 0x-prefixed hex bytes'),
});

export const gatewayResponse = z.object({ data: z.string() });

/** Response schemas by client method, for `createOffchainClient({ responseSchemas: offchainResponseSchemas })`. */
export const offchainResponseSchemas = {
  createOrUpdateSubname: offchainSubnameSchema,
  getSubname: offchainSubnameSchema,
  getSubnameByNamehash: offchainSubnameSchema,
  searchSubnames: searchSubnamesResponse,
};
