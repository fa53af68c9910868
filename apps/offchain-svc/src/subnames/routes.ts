import {
  bulkSubnamesQuery,
  bulkSubnamesRequest,
  bulkSubnamesResponse,
  createSubnameRequest,
  exportSubnamesQuery,
  fullSubnameParamsSchema,
  namehashParamsSchema,
  NDJSON_CONTENT_TYPE,
  offchainSubnameSchema,
  searchSubnamesRequest,
  searchSubnamesResponse,
} from '@nrp/api';
import { MAX_ANSWER_BYTES, defineRoute, type RouteDefinition } from '@nrp/server';
import { commonProblems, ProblemError } from '@nrp/validation';
import { requireApiKey, verifiedApiKey } from '../keys/api-keys';
import { bulkImport } from './bulk-import';
import { offchainProblems } from '../problems';
import { exportSubnames } from './export';
import { streamNdjson } from './ndjson-stream';
import {
  createOrUpdateSubname,
  findSubnames,
  answerSubname,
  answerSubnameByNamehash,
  removeSubname,
} from './subnames';
import type { OffchainContext } from '../context';

const TAG = ['subnames'];
const authProblems = [
  commonProblems.UNAUTHORIZED,
  offchainProblems.KEY_OWNER_CHANGED,
  offchainProblems.PARENT_NOT_ALLOWED,
];

/** The `Idempotency-Key` header: 1 to 255 characters, or a 400. */
function idempotencyKeyOf(header: string | string[] | undefined): string | undefined {
  if (header === undefined) return undefined;
  const key = Array.isArray(header) ? header.join(',') : header;
  if (key.length === 0 || key.length > 255) {
    throw new ProblemError(commonProblems.INVALID_INPUT, 'Idempotency-Key must be 1 to 255 characters.', {
      errors: [{ path: 'headers.idempotency-key', message: 'must be 1 to 255 characters' }],
    });
  }
  return key;
}

/** How a read stays consistent with writes, for the descriptions of the reads. */
const READ_CACHE =
  ' Answers are cached per replica (ANSWER_CACHE_SECONDS, default 10 s, in at most ANSWER_CACHE_MB); every ' +
  'committed write of the subname drops them at once in this replica and, through Redis pub/sub when REDIS_URL is ' +
  'set, in the others, so a read after a write sees the write. Should a message be lost, a read is stale for at ' +
  'most ANSWER_CACHE_SECONDS.';

export function subnameRoutes(ctx: OffchainContext): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/subnames',
      operationId: 'createOrUpdateSubname',
      budget: { bodyBytes: 1024 * 1024, answerBytes: MAX_ANSWER_BYTES, timeMs: 10_000 },
      security: 'apiKey',
      summary: 'Create or update a subname',
      description:
        'Needs an API key (`x-auth-token`) issued for `parentName`. 201 when the subname was created, 200 when it ' +
        'was updated. Lists that are present replace the stored lists; absent fields keep their stored values. ' +
        'The whole write is one statement: concurrent writes of one name never create two rows or lose a field. ' +
        'Emits `subname.created` or `subname.updated` (webhooks), recorded in the same transaction.',
      tags: TAG,
      body: createSubnameRequest,
      before: [requireApiKey(ctx)],
      responses: {
        200: { description: 'Updated.', schema: offchainSubnameSchema },
        201: { description: 'Created.', schema: offchainSubnameSchema },
      },
      problems: [commonProblems.INVALID_INPUT, commonProblems.INVALID_NAME, ...authProblems],
      handler: async ({ body }, req, res) => {
        const { subname, created } = await createOrUpdateSubname(ctx, verifiedApiKey.of(req), body);
        res.status(created ? 201 : 200);
        return subname;
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/subnames/bulk',
      operationId: 'bulkImportSubnames',
      budget: {
        bodyBytes: 1024 * 1024,
        answerBytes: MAX_ANSWER_BYTES,
        timeMs: 30_000,
        concurrency: { name: 'bulk-import', limit: 4 },
      },
      security: 'apiKey',
      summary: 'Create or update up to 1,000 subnames',
      description:
        'Body `{ items: [...] }`, each item a create-or-update body (same rules as `POST /api/v1/subnames`, ' +
        'applied in order) for a parent the key may manage; a name appears at most once (a repeat is a 400 ' +
        'naming both indexes, whatever `atomic` says). ' +
        'Default (`atomic=true`): all or nothing — any invalid item is a 400 naming every bad field as ' +
        '`body.items.<index>.<field>`, an item under a parent the key may not manage a 403 naming its index, and ' +
        'nothing is written. `atomic=false`: the valid items are written and each result carries its own ' +
        'status (201, 200, 400 or 403 with the problem). Either way the items are written in one transaction ' +
        'with their `subname.created` / `subname.updated` events; the answer is 200 with a result per item, in ' +
        'order: its `id`, `fullName` and `updatedAt`, not the record (read it with GET). With an ' +
        '`Idempotency-Key` header (1–255 characters, per API key, kept at least 24 hours) the ' +
        'first successful answer is stored with the write and replayed for a retry of the same request; the ' +
        'same key with a different body or `atomic` is a 409 `IDEMPOTENCY_KEY_REUSED`. Failed requests are not ' +
        'stored (a retry runs again).',
      tags: TAG,
      query: bulkSubnamesQuery,
      body: bulkSubnamesRequest,
      before: [requireApiKey(ctx)],
      responses: { 200: { description: 'One result per item.', schema: bulkSubnamesResponse } },
      problems: [
        commonProblems.INVALID_INPUT,
        commonProblems.INVALID_NAME,
        ...authProblems,
        offchainProblems.IDEMPOTENCY_KEY_REUSED,
      ],
      handler: async ({ query, body }, req) =>
        bulkImport(ctx, {
          apiKey: verifiedApiKey.of(req),
          items: body.items,
          atomic: query.atomic,
          idempotencyKey: idempotencyKeyOf(req.headers['idempotency-key']),
        }),
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/subnames/export',
      operationId: 'exportSubnames',
      budget: {
        bodyBytes: 0,
        answerBytes: 'stream',
        timeMs: 10_000,
        concurrency: { name: 'export', limit: 4 },
      },
      security: 'apiKey',
      summary: 'Export every subname of a parent (NDJSON)',
      description:
        'Needs an API key for `parentName` (403 otherwise). `application/x-ndjson`: one record per line, the ' +
        'record shape of `GET /api/v1/subnames/{fullSubname}` (texts in their stored order), in label order (code ' +
        'points), streamed page by ' +
        'page (at most 1,000 records and 1 MB) so the service holds one page whatever the size. An interrupted export resumes with `cursor` = ' +
        'the `label` of the last complete line received. To import an export elsewhere, turn each record into ' +
        'a create body (`toCreateSubnameInput` in the typed client) and send them to `POST ' +
        '/api/v1/subnames/bulk`: the records come back identical except `id`, `createdAt` and `updatedAt`, which ' +
        'the importing service assigns.',
      tags: TAG,
      query: exportSubnamesQuery,
      before: [requireApiKey(ctx)],
      responses: {
        200: {
          description: 'One record per line.',
          schema: offchainSubnameSchema,
          contentType: NDJSON_CONTENT_TYPE,
        },
      },
      problems: [commonProblems.INVALID_INPUT, commonProblems.INVALID_NAME, ...authProblems],
      handler: async ({ query }, req, res) => {
        await streamNdjson(res, exportSubnames(ctx, verifiedApiKey.of(req), query));
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/subnames/search',
      operationId: 'searchSubnames',
      budget: { bodyBytes: 64 * 1024, answerBytes: MAX_ANSWER_BYTES, timeMs: 10_000 },
      summary: 'Search subnames',
      description:
        'Filters: `parentName` and/or `parentNames`, or `owner` alone (its subnames under every parent), ' +
        '`labelSearch` (case-insensitive substring of ' +
        'the label), `owner`, `metadata` (every key must equal its value). Ordered by label; `page` from 1, ' +
        '`size` 1 to 100 (default 25); `totalItems` counts every match. A page holds at most `size` items and ' +
        'ends early rather than pass its answer budget; when more matches follow, `nextCursor` is given: send it ' +
        'as `cursor` (without `page`) for the next page.',
      tags: TAG,
      body: searchSubnamesRequest,
      responses: { 200: { description: 'One page of matches.', schema: searchSubnamesResponse } },
      problems: [commonProblems.INVALID_INPUT, commonProblems.INVALID_NAME],
      handler: ({ body }) => findSubnames(ctx, body),
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/subnames/namehash/:namehash',
      operationId: 'getSubnameByNamehash',
      budget: { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 5_000 },
      summary: 'Get a subname by namehash',
      description: 'Used by the metadata service to find an offchain subname from a token id.' + READ_CACHE,
      tags: TAG,
      params: namehashParamsSchema,
      responses: { 200: { description: 'The subname.', schema: offchainSubnameSchema } },
      problems: [commonProblems.INVALID_INPUT, offchainProblems.SUBNAME_NOT_FOUND],
      handler: ({ params }, _req, res) => answerSubnameByNamehash(ctx, res, params.namehash),
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/subnames/:fullSubname',
      operationId: 'getSubname',
      budget: { bodyBytes: 0, answerBytes: MAX_ANSWER_BYTES, timeMs: 5_000 },
      summary: 'Get a subname by full name',
      description: 'The name is normalised (ENSIP-15) before the lookup.' + READ_CACHE,
      tags: TAG,
      params: fullSubnameParamsSchema,
      responses: { 200: { description: 'The subname.', schema: offchainSubnameSchema } },
      problems: [commonProblems.INVALID_NAME, offchainProblems.SUBNAME_NOT_FOUND],
      handler: ({ params }, _req, res) => answerSubname(ctx, res, params.fullSubname),
    }),
    defineRoute({
      method: 'delete',
      path: '/api/v1/subnames/:fullSubname',
      operationId: 'deleteSubname',
      budget: { bodyBytes: 0, answerBytes: 1024, timeMs: 10_000 },
      security: 'apiKey',
      summary: 'Delete a subname',
      description:
        'Needs an API key issued for the subname’s parent name. 204 when deleted. Emits `subname.deleted` ' +
        '(its data is the record as it was).',
      tags: TAG,
      params: fullSubnameParamsSchema,
      before: [requireApiKey(ctx)],
      responses: { 204: { description: 'Deleted.' } },
      problems: [commonProblems.INVALID_NAME, ...authProblems, offchainProblems.SUBNAME_NOT_FOUND],
      handler: async ({ params }, req, res) => {
        await removeSubname(ctx, verifiedApiKey.of(req), params.fullSubname);
        res.status(204).end();
      },
    }),
  ];
}
