import { z } from 'zod';
import {
  createSubnameRequest,
  offchainSubnameSchema,
  searchSubnamesRequest,
  searchSubnamesResponse,
  type CreateSubnameData,
} from '@nrp/client';
import { namehash, parentOf } from '@nrp/ens';
import { defineRoute, type RouteDefinition } from '@nrp/server';
import { commonProblems, ensName, ProblemError } from '@nrp/validation';
import { assertKeyAllowsParent, requireApiKey } from '../api-keys';
import type { OffchainDb } from '../data/database';
import {
  deleteSubname,
  findSubnameByName,
  findSubnameByNamehash,
  searchSubnames,
  upsertSubname,
  type SubnameWrite,
} from '../data/subnames';
import { offchainProblems } from '../problems';

const TAG = ['subnames'];
const fullNameParams = z.object({ fullSubname: ensName({ min: 3, max: 511 }) });
const authProblems = [commonProblems.UNAUTHORIZED, offchainProblems.PARENT_NOT_ALLOWED];

function toMap(
  entries: Array<{ key: string; value: string }> | undefined,
): Record<string, string> | undefined {
  return entries && Object.fromEntries(entries.map((e) => [e.key, e.value]));
}

/** The validated body → one write; absent fields stay undefined so the stored values are kept. */
export function toWrite(body: CreateSubnameData): SubnameWrite {
  const fullName = `${body.label}.${body.parentName}`;
  return {
    fullName,
    parentName: body.parentName,
    label: body.label,
    namehash: namehash(fullName).toLowerCase(),
    owner: body.owner,
    texts: toMap(body.texts),
    addresses: body.addresses && Object.fromEntries(body.addresses.map((a) => [String(a.coin), a.value])),
    metadata: toMap(body.metadata),
    contenthash: body.contenthash,
    ttl: body.ttl,
  };
}

function notFound(what: string): ProblemError {
  return new ProblemError(offchainProblems.SUBNAME_NOT_FOUND, `No offchain subname ${what}.`);
}

export function subnameRoutes(db: OffchainDb): RouteDefinition[] {
  return [
    defineRoute({
      method: 'post',
      path: '/api/v1/subnames',
      operationId: 'createOrUpdateSubname',
      security: 'apiKey',
      summary: 'Create or update a subname',
      description:
        'Needs an API key (`x-auth-token`) issued for `parentName`. 201 when the subname was created, 200 when it ' +
        'was updated. Lists that are present replace the stored lists; absent fields keep their stored values. ' +
        'The whole write is one statement: concurrent writes of one name never create two rows or lose a field.',
      tags: TAG,
      body: createSubnameRequest,
      before: [requireApiKey(db)],
      responses: {
        200: { description: 'Updated.', schema: offchainSubnameSchema },
        201: { description: 'Created.', schema: offchainSubnameSchema },
      },
      problems: [commonProblems.INVALID_INPUT, commonProblems.INVALID_NAME, ...authProblems],
      handler: async ({ body }, _req, res) => {
        assertKeyAllowsParent(res, body.parentName);
        const { subname, created } = await upsertSubname(db, toWrite(body));
        res.status(created ? 201 : 200).json(subname);
      },
    }),
    defineRoute({
      method: 'post',
      path: '/api/v1/subnames/search',
      operationId: 'searchSubnames',
      summary: 'Search subnames',
      description:
        'Filters: `parentName` and/or `parentNames` (at least one), `labelSearch` (case-insensitive substring of ' +
        'the label), `owner`, `metadata` (every key must equal its value). Ordered by label; `page` from 1, ' +
        '`size` 1 to 100 (default 25); `totalItems` counts every match.',
      tags: TAG,
      body: searchSubnamesRequest,
      responses: { 200: { description: 'One page of matches.', schema: searchSubnamesResponse } },
      problems: [commonProblems.INVALID_INPUT, commonProblems.INVALID_NAME],
      handler: async ({ body }) => {
        const parentNames = [
          ...new Set([...(body.parentName ? [body.parentName] : []), ...(body.parentNames ?? [])]),
        ];
        const { items, totalItems } = await searchSubnames(db, {
          parentNames,
          labelSearch: body.labelSearch,
          owner: body.owner,
          metadata: body.metadata,
          page: body.page,
          size: body.size,
        });
        return { items, totalItems, page: body.page, size: body.size };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/subnames/namehash/:namehash',
      operationId: 'getSubnameByNamehash',
      summary: 'Get a subname by namehash',
      description: 'Used by the metadata service to find an offchain subname from a token id.',
      tags: TAG,
      params: z.object({
        namehash: z.string().regex(/^0x[0-9a-fA-F]{64}$/, 'must be 0x followed by 64 hex digits'),
      }),
      responses: { 200: { description: 'The subname.', schema: offchainSubnameSchema } },
      problems: [commonProblems.INVALID_INPUT, offchainProblems.SUBNAME_NOT_FOUND],
      handler: async ({ params }) => {
        const subname = await findSubnameByNamehash(db, params.namehash);
        if (!subname) throw notFound(`has namehash ${params.namehash}`);
        return subname;
      },
    }),
    defineRoute({
      method: 'get',
      path: '/api/v1/subnames/:fullSubname',
      operationId: 'getSubname',
      summary: 'Get a subname by full name',
      description: 'The name is normalised (ENSIP-15) before the lookup.',
      tags: TAG,
      params: fullNameParams,
      responses: { 200: { description: 'The subname.', schema: offchainSubnameSchema } },
      problems: [commonProblems.INVALID_NAME, offchainProblems.SUBNAME_NOT_FOUND],
      handler: async ({ params }) => {
        const subname = await findSubnameByName(db, params.fullSubname);
        if (!subname) throw notFound(`named "${params.fullSubname}"`);
        return subname;
      },
    }),
    defineRoute({
      method: 'delete',
      path: '/api/v1/subnames/:fullSubname',
      operationId: 'deleteSubname',
      security: 'apiKey',
      summary: 'Delete a subname',
      description: 'Needs an API key issued for the subname’s parent name. 204 when deleted.',
      tags: TAG,
      params: fullNameParams,
      before: [requireApiKey(db)],
      responses: { 204: { description: 'Deleted.' } },
      problems: [commonProblems.INVALID_NAME, ...authProblems, offchainProblems.SUBNAME_NOT_FOUND],
      handler: async ({ params }, _req, res) => {
        assertKeyAllowsParent(res, parentOf(params.fullSubname) ?? '');
        if (!(await deleteSubname(db, params.fullSubname))) throw notFound(`named "${params.fullSubname}"`);
        res.status(204).end();
      },
    }),
  ];
}
