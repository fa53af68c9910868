/**
 * Offchain subname service: bulk import and NDJSON export (data portability). Schemas shared with the service,
 * and the client methods.
 */
import { z } from 'zod';
import { ensName } from '@nrp/validation';
import { requestJson, serviceError, serviceUrl, type ClientOptions } from './http';
import { offchainSubnameSchema, type CreateSubnameInput, type OffchainSubname } from './offchain';

export const BULK_MAX_ITEMS = 1000;

export const bulkSubnamesRequest = z.object({
  items: z
    .array(z.unknown())
    .min(1)
    .max(BULK_MAX_ITEMS)
    .meta({
      description:
        'Up to 1,000 create-or-update bodies, each the shape of `POST /api/v1/subnames` and validated like it; ' +
        'a bad item is named by its index (`body.items.<i>.<field>`).',
    }),
});

export const bulkSubnamesQuery = z.object({
  atomic: z
    .enum(['true', 'false'])
    .default('true')
    .transform((v) => v === 'true')
    .meta({ description: '`false`: each item succeeds or fails on its own (per-item results).' }),
});

export const bulkItemResultSchema = z
  .object({
    index: z.number().int(),
    status: z.number().int().meta({ description: '201 created, 200 updated, or the problem status.' }),
    // Lazy: offchain.ts imports this module to build its client, so the schema is not defined yet at load time.
    subname: z.lazy(() => offchainSubnameSchema).optional(),
    error: z
      .object({
        code: z.string(),
        detail: z.string(),
        errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
      })
      .optional(),
  })
  .meta({ id: 'BulkItemResult' });

export const bulkSubnamesResponse = z.object({
  created: z.number().int(),
  updated: z.number().int(),
  failed: z.number().int(),
  results: z.array(bulkItemResultSchema),
});

export type BulkSubnamesResult = z.output<typeof bulkSubnamesResponse>;

export const exportSubnamesQuery = z.object({
  parentName: ensName({ min: 1, max: 255 }),
  cursor: z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({ description: 'The `label` of the last record received: the export continues after it.' }),
});

export const NDJSON_CONTENT_TYPE = 'application/x-ndjson';

/** A record as the create-or-update body that writes it again (what an export line becomes for a bulk import). */
export function toCreateSubnameInput(record: OffchainSubname): CreateSubnameInput {
  const entries = (map: Record<string, string>) =>
    Object.entries(map).map(([key, value]) => ({ key, value }));
  return {
    parentName: record.parentName,
    label: record.label,
    owner: record.owner,
    texts: entries(record.texts),
    addresses: Object.entries(record.addresses).map(([coin, value]) => ({ coin: Number(coin), value })),
    metadata: entries(record.metadata),
    contenthash: record.contenthash,
    ttl: record.ttl,
  };
}

export interface OffchainBulkMethods {
  /** Up to 1,000 creates or updates; `atomic: false` answers per-item results instead of all-or-nothing. */
  bulkImportSubnames(
    items: CreateSubnameInput[],
    apiKey: string,
    options?: { atomic?: boolean; idempotencyKey?: string },
  ): Promise<BulkSubnamesResult>;
  /** Every subname of `parentName`, streamed; `cursor` (a label) resumes after that record. */
  exportSubnames(
    parentName: string,
    apiKey: string,
    options?: { cursor?: string },
  ): AsyncGenerator<OffchainSubname>;
}

export function offchainBulkMethods(options: ClientOptions): OffchainBulkMethods {
  return {
    bulkImportSubnames: (items, apiKey, { atomic, idempotencyKey } = {}) =>
      requestJson(options, '/api/v1/subnames/bulk', bulkSubnamesResponse, {
        method: 'POST',
        query: { atomic },
        body: { items },
        headers: {
          'x-auth-token': apiKey,
          ...(idempotencyKey === undefined ? {} : { 'idempotency-key': idempotencyKey }),
        },
      }),
    async *exportSubnames(parentName, apiKey, { cursor } = {}) {
      const url = serviceUrl(options, '/api/v1/subnames/export', { parentName, cursor });
      const response = await (options.fetch ?? fetch)(url, {
        headers: { accept: NDJSON_CONTENT_TYPE, ...options.headers, 'x-auth-token': apiKey },
      });
      if (!response.ok || !response.body) {
        const text = await response.text();
        throw serviceError(response, text ? JSON.parse(text) : undefined);
      }
      const decoder = new TextDecoder();
      let buffered = '';
      const reader = response.body.getReader();
      for (let read = await reader.read(); !read.done; read = await reader.read()) {
        const chunk = read.value;
        buffered += decoder.decode(chunk, { stream: true });
        let newline: number;
        while ((newline = buffered.indexOf('\n')) >= 0) {
          const line = buffered.slice(0, newline);
          buffered = buffered.slice(newline + 1);
          if (line) yield offchainSubnameSchema.parse(JSON.parse(line));
        }
      }
      if (buffered.trim()) yield offchainSubnameSchema.parse(JSON.parse(buffered));
    },
  };
}
