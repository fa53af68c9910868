/** Offchain subname service: schemas of bulk import and NDJSON export (data portability), shared with the service. */
import { z } from 'zod';
import { ensName } from '@nrp/validation';

export const BULK_MAX_ITEMS = 1000;

export const bulkSubnamesRequest = z.strictObject({
  items: z
    .array(z.unknown())
    .min(1)
    .max(BULK_MAX_ITEMS)
    .meta({
      description:
        'Up to 1,000 create-or-update bodies, each the shape of `POST /api/v1/subnames` and validated like it; ' +
        'a bad item is named by its index (`body.items.<i>.<field>`). Each (parentName, label) at most once.',
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
    id: z.string().optional().meta({ description: 'The written record’s id (201 and 200).' }),
    fullName: z.string().optional().meta({ description: 'The written name (201 and 200).' }),
    updatedAt: z
      .string()
      .optional()
      .meta({ description: 'When the record was written (201 and 200); read it whole with GET.' }),
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
